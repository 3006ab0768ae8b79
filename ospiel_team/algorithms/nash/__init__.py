"""ospiel_team.algorithms.nash."""
