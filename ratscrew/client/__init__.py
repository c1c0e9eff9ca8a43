"""A client of ``ratscrew serve`` for programs other than the browser page: where a room is
(:mod:`.address`), what the client remembers between runs (:mod:`.saved`), the websocket link
that answers pings and reconnects (:mod:`.link`) and how a reaction is measured (:mod:`.reaction`).

Nothing here knows a rule of the game: the client sends what the player does and shows what the
server says (docs/protocol.md).
"""
