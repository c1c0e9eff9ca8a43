"""Online play: ``ratscrew serve`` runs rooms that friends join from a browser.

The layers, top to bottom (see ``docs/online.md`` and ``docs/protocol.md``):

- :mod:`ratscrew.server.app`: the front door, wiring only: the state
  (:mod:`ratscrew.server.state`), the HTTP routes (:mod:`ratscrew.server.http`) and the websocket
  endpoint (:mod:`ratscrew.server.ws.endpoint`), which only parses, holds to limits and forwards
  to a room; docs/architecture.md is the map;
- :mod:`ratscrew.protocol` (below the server, shared with both clients): every message
  validated into a typed object at the edge, and every message sent typed;
- :mod:`ratscrew.server.room.room`: a room, the only writer of its game, which wires its parts:
  :mod:`~ratscrew.server.room.lobby` (seats, people, the host's commands),
  :mod:`~ratscrew.server.room.driver` (the game at its table, the settling window, the one place
  that feeds the engine), :mod:`~ratscrew.server.room.tally` (contested slaps and their
  judgements), :mod:`~ratscrew.server.room.publisher` (what is sent, encoded once per audience, with
  its versions and history) and :mod:`~ratscrew.server.room.persistence` (what is stored, before it
  is shown); :mod:`ratscrew.server.room.judging` and :mod:`ratscrew.server.ws.link` say at what table
  time a person's action happened; :mod:`ratscrew.server.room.agents` seats bots and stand-ins;
- :mod:`ratscrew.server.ladder.players`: player keys (stored as hashes), public ids, names, import
  codes and a player's record; :mod:`ratscrew.server.ladder.ratings`: openskill Plackett-Luce ratings
  of finished games, exactly once;
- :mod:`ratscrew.storage` (below the server): the `Store` and its roles, written once for
  SQLite and PostgreSQL (:mod:`ratscrew.server.blocking` makes its calls off the event loop);
  :mod:`ratscrew.server.ladder.ranking`: figures and leaderboards from its rows; shards
  (:mod:`ratscrew.server.ops.shards`, :mod:`ratscrew.server.ops.nginx`, :mod:`ratscrew.server.room.outage`);
- :mod:`ratscrew.server.ws.wsprotocol`: uvicorn's websocket protocol, reading in batches.

No rule of the game lives here: the engine judges everything.
"""
