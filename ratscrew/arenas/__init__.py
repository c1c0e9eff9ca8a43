"""Arenas (issue 50): timed tournaments on the room server. `ratscrew.arenas.scoring` is the one
home of their points and standings (pure: no server, no store); the server's part is in
`ratscrew.server.http.arenas`. What an arena may be is here, light enough for the command line.
"""

ARENA_RULES = ("classic", "northwest", "pagat", "ratscrew", "paranoid")
"""The presets an arena may be played under: quick play's pools' presets (the real ones)."""
MIN_MINUTES, MAX_MINUTES = 5, 120
"""How long an arena may run."""
MAX_STARTS_IN_S = 86_400
"""How far ahead an arena may be made to start."""
