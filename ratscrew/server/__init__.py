"""Online play: ``ratscrew serve`` runs rooms that friends join from a browser.

The layers, top to bottom (see ``docs/online.md`` and ``docs/protocol.md``):

- :mod:`ratscrew.server.app`: the Starlette app, HTTP routes and the websocket endpoint, which
  only parses, authenticates and forwards to a room;
- :mod:`ratscrew.server.protocol`: every message validated into a typed object at the edge;
- :mod:`ratscrew.server.room`: a room, the only writer of its game, feeding the engine through
  one gateway; :mod:`ratscrew.server.judging` and :mod:`ratscrew.server.link` say at what table
  time a person's action happened; :mod:`ratscrew.server.agents` seats bots and stand-ins;
- :mod:`ratscrew.server.players`: player keys (stored as hashes), public ids, names, import
  codes and a player's record; :mod:`ratscrew.server.ratings`: openskill Plackett-Luce ratings
  of finished games, exactly once;
- :mod:`ratscrew.server.store`: SQLite, behind one small class.

No rule of the game lives here: the engine judges everything.
"""
