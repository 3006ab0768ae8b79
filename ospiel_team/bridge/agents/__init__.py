"""ospiel_team.bridge.agents."""
