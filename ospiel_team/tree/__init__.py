"""ospiel_team.tree."""
