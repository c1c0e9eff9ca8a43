"""Players and the ladder: player keys and pages, ratings, rankings, whether a game is rated,
and the integrity review after each game."""
