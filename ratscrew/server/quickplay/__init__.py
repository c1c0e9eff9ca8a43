"""Quick play on the server: the pools and their waves (:mod:`.pools`), kept in memory on one
process or in PostgreSQL for every shard (:mod:`.shared`), wired to the app by `attach`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from starlette.applications import Starlette

from ratscrew.protocol.client_messages import DEFAULT_TURN_TIMEOUT_MS, RoomRequest
from ratscrew.ruleset import Ruleset
from ratscrew.server.quickplay.pools import SHOW_UP_S, MemoryPools, OpenRoom, PoolBackend, QuickPlay
from ratscrew.server.ws.seek import SEEKS_PER_MINUTE, Bucket, Seeking


def attach(app: Starlette, server: Any, window_counter: Callable[[int, float], Any],
           bucket: Callable[[float, int, float], Bucket]) -> QuickPlay:
    """Give ``app`` (and its ``server`` state) quick play: ``app.state.seeking`` for ``/ws/seek``,
    the pools shared through PostgreSQL when the store is, else in memory. ``window_counter``
    and ``bucket`` are the app's in-memory per-address counter and per-connection token bucket."""
    store = server.store
    backend: PoolBackend
    if store.writes_off_the_loop:  # PostgreSQL: one pool for every shard
        from ratscrew.server.quickplay.shared import SharedPools

        backend = SharedPools(store.url, server.shard, lambda: open_codes(server))
    else:
        backend = MemoryPools(open_rooms=lambda: open_codes(server))
    service = QuickPlay(backend, matched_room_opener(server))
    counter = (store.rate_counter("seeks", SEEKS_PER_MINUTE, 60.0)
               or window_counter(SEEKS_PER_MINUTE, 60.0))
    app.state.seeking = Seeking(service, counter, bucket)
    return service


def open_codes(server: Any) -> set[str]:
    """The codes of this process's rooms whose game has not ended."""
    return {code for code, room in server.rooms.items() if room.phase in ("lobby", "playing")}


def matched_room_opener(server: Any) -> OpenRoom:
    """The server's ``open_matched_room`` (seats reserved for the matched keys, the game
    started once all have joined). Until the room side has it, a plain room of the pool's rules
    and size that the matched players join by code (`_plain_room`)."""
    opener: OpenRoom | None = getattr(server, "open_matched_room", None)
    return opener if opener is not None else _plain_room(server)


def _plain_room(server: Any) -> OpenRoom:
    from ratscrew.server.ops.shards import new_room_code_async
    from ratscrew.server.room.room import Room

    async def open_room(rules: str, players: int, reservations: Sequence[Any], *,
                        show_up_s: float = SHOW_UP_S,
                        on_no_show: Callable[[list[str], list[str]], object] | None = None) -> str:
        request = RoomRequest(rules=Ruleset.preset(rules), seats=players, bots=(), seed=None,
                              pace="normal", turn_timeout_ms=DEFAULT_TURN_TIMEOUT_MS, judging="fair")
        code = await new_room_code_async(server.store, server.shard)
        room = await Room.create_async(request, server.store, code, absence=server.absence,
                                       writer=server.writer)
        server.add_room(room)
        return room.code

    return open_room
