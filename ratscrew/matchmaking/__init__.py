"""Matchmaking for quick play and arenas, below the server: the pure rule of who sits with whom
(:mod:`ratscrew.matchmaking.pairing`). The pools that hold seekers and make rooms live in the
server (:mod:`ratscrew.server.quickplay`)."""
