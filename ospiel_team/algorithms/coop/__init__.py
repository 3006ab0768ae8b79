"""ospiel_team.algorithms.coop."""
