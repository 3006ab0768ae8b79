"""ospiel_team.algorithms.team."""
