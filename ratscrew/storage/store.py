"""`SqlStore`: every store method written once, over a `ratscrew.storage.sql.Database` (SQLite
or PostgreSQL) and the statements of `ratscrew.storage.queries`.

Each method is one transaction, committed when it returns, so an accepted action is stored
before anyone is shown its effect. `ratscrew.storage.sqlite.SqliteStore` and
`ratscrew.storage.postgres.PostgresStore` add only how they open, lock and reach their database.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ratscrew.storage import queries as q
from ratscrew.storage import schema
from ratscrew.storage.records import (
    ArenaRow,
    FinishedGame,
    GameInProgress,
    GameRating,
    NameTaken,
    PlayerRow,
    Rater,
    Rating,
    RoomRow,
    SeatResult,
    SeatRow,
    StepRows,
    StepsDone,
    fold_name,
    new_server_id,
    participant,
)
from ratscrew.storage.sql import Conflict, Database, Params, Rows, Transaction, Write, chunks
from ratscrew.storage.terms import FARM_WINDOW_S, MIN_OPPONENTS


def seat_result(row: Mapping[str, Any]) -> SeatResult:
    """A stored result row as a `SeatResult`."""
    return SeatResult(row["seat"], row["kind"], row["name"], row["token_hash"], bool(row["won"]),
                      row["slaps"], row["misslaps"], tuple(json.loads(row["reactions"])),
                      row["player_id"], row["bot"])


def result_params(game_id: int, r: SeatResult) -> Params:
    """One `SeatResult` as the parameters of `ratscrew.storage.queries.STORE_RESULT`."""
    return {"game_id": game_id, "seat": r.seat, "kind": r.kind, "name": r.name,
            "token_hash": r.token_hash, "won": int(r.won), "slaps": r.slaps,
            "misslaps": r.misslaps, "reactions": json.dumps(list(r.reactions)),
            "player_id": r.player_id, "bot": r.bot}


def player_game(row: Mapping[str, Any]) -> dict[str, Any]:
    """One `player_games` entry from its row."""
    return {"id": int(row["id"]), "rules": row["rules"], "finished_at": row["finished_at"],
            "seat": int(row["seat"]), "unrated": row["unrated"], "note": row["note"],
            "place": row["place"],
            "players": int(row["players"]), "won": bool(row["won"]),
            "slaps": row["slaps"], "misslaps": row["misslaps"],
            "reactions": list(json.loads(row["reactions"])),
            "patterns": None if row["patterns"] is None else json.loads(row["patterns"])}


def arena_row(row: Mapping[str, Any]) -> ArenaRow:
    """A stored arena row as an `ArenaRow`."""
    return ArenaRow(row["id"], row["rules_name"], int(row["players"]), float(row["starts_at"]),
                    float(row["ends_at"]), float(row["created_at"]), row["creator"], row["state"],
                    None if row["finished_at"] is None else float(row["finished_at"]))


def flag_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """One `integrity_flag` from its row."""
    return {"rules": row["rules_name"], "since_game": int(row["since_game"]),
            "flagged_at": float(row["flagged_at"]), "reasons": list(json.loads(row["reasons"])),
            "checked_slaps": int(row["checked_slaps"]),
            "cleared_at": None if row["cleared_at"] is None else float(row["cleared_at"])}


def step_inserts(steps: Sequence[StepRows]) -> list[Rows]:
    """The rows of ``steps``: their actions, then their judgements (at most two inserts).

    >>> [(table.name, len(rows)) for table, rows in step_inserts(
    ...     [StepRows(1, 0, [("play", 0, 5), ("play", 1, 900)], 0, []),
    ...      StepRows(2, 7, [("slap", 2, 40)], 3, [{"seat": 2}])])]
    [('actions', 3), ('judged', 1)]
    """
    actions = [{"game_id": step.game_id, "n": step.first_action + i, "kind": kind, "seat": seat,
                "at": at}
               for step in steps for i, (kind, seat, at) in enumerate(step.actions)]
    # orjson: the hot write's one encoding (a judgement per slap), several times faster than
    # json.dumps; the text reads back the same with json.loads
    judged = [{"game_id": step.game_id, "n": step.first_judged + i,
               "entry": orjson.dumps(entry, option=orjson.OPT_NON_STR_KEYS).decode()}
              for step in steps for i, entry in enumerate(step.judged)]
    inserts: list[Rows] = []
    if actions:
        inserts.append((schema.actions, actions))
    if judged:
        inserts.append((schema.judged, judged))
    return inserts


def _room_writes(code: str, settings: dict[str, Any], host_hash: str | None, phase: str,
                 games_played: int, game_id: int | None, seats: Sequence[SeatRow]) -> list[Write]:
    """The statements of `SqlStore.save_room`: the room's row, then its seats afresh."""
    now = time.time()
    writes: list[Write] = [
        (q.SAVE_ROOM, {"code": code, "created_at": now, "updated_at": now,
                       "settings": json.dumps(settings), "host_hash": host_hash, "phase": phase,
                       "games_played": games_played, "game_id": game_id}),
        (q.DELETE_SEATS, {"code": code}),
    ]
    writes += [(q.INSERT_SEAT, {"code": code, "seat": s.seat, "kind": s.kind, "name": s.name,
                                "bot": s.bot, "token_hash": s.token_hash,
                                "player_id": s.player_id}) for s in seats]
    return writes


def _game_start(code: str, number: int, rules_name: str, start: dict[str, Any],
                clock_start: float) -> Params:
    """The parameters of a game's start (`SqlStore.start_game`), its id aside."""
    return {"code": code, "number": number, "rules_name": rules_name, "start": json.dumps(start),
            "clock_start": clock_start, "started_at": time.time()}


def _member_writes(code: str, token_hash: str, name: str) -> list[Write]:
    """The statement of `SqlStore.add_member`."""
    return [(q.ADD_MEMBER, {"code": code, "token_hash": token_hash, "name": name})]


def _kicked_writes(code: str, token_hash: str) -> list[Write]:
    """The statements of `SqlStore.add_kicked`: kicked, and no longer a member."""
    which = {"code": code, "token_hash": token_hash}
    return [(q.ADD_KICKED, which), (q.DELETE_MEMBER, which)]


class SqlStore:
    """The store's methods over a database (see the module docstring); the roles they play are
    the protocols of `ratscrew.storage.roles`."""

    _database: Database

    # ------------------------------------------------------------------ rooms

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code was ever created (by any process)."""
        return bool(self._database.rows(q.ROOM_EXISTS, {"code": code}))

    async def room_exists_async(self, code: str) -> bool:
        """`room_exists` without a round trip on the event loop."""
        return bool(await self._database.rows_async(q.ROOM_EXISTS, {"code": code}))

    def save_room(self, code: str, settings: dict[str, Any], host_hash: str | None, phase: str,
                  games_played: int, game_id: int | None, seats: Sequence[SeatRow]) -> None:
        """Write a room and its seats (created or updated; a closed room stays closed)."""
        self._database.write(_room_writes(code, settings, host_hash, phase, games_played, game_id,
                                          seats))

    async def save_room_async(self, code: str, settings: dict[str, Any], host_hash: str | None,
                              phase: str, games_played: int, game_id: int | None,
                              seats: Sequence[SeatRow]) -> None:
        """`save_room` without a round trip on the event loop."""
        await self._database.write_async(_room_writes(code, settings, host_hash, phase,
                                                      games_played, game_id, seats))

    def add_member(self, code: str, token_hash: str, name: str) -> None:
        """Remember the token of someone without a seat (so a watching host stays host)."""
        self._database.write(_member_writes(code, token_hash, name))

    async def add_member_async(self, code: str, token_hash: str, name: str) -> None:
        """`add_member` without a round trip on the event loop."""
        await self._database.write_async(_member_writes(code, token_hash, name))

    def add_kicked(self, code: str, token_hash: str) -> None:
        """A token the host removed: it no longer works in this room."""
        self._database.write(_kicked_writes(code, token_hash))

    async def add_kicked_async(self, code: str, token_hash: str) -> None:
        """`add_kicked` without a round trip on the event loop."""
        await self._database.write_async(_kicked_writes(code, token_hash))

    def load_rooms(self, shard: str | None = None) -> list[RoomRow]:
        """Every room that is not closed, with its seats (only codes beginning with ``shard``)."""
        if shard is None:
            return self._room_rows(self._database.rows(q.OPEN_ROOMS))
        return self._room_rows(self._database.rows(q.OPEN_ROOMS_OF_SHARD, {"shard": shard}))

    def load_room(self, code: str) -> RoomRow | None:
        """One room as stored, if it exists."""
        rows = self._room_rows(self._database.rows(q.ONE_ROOM, {"code": code}))
        return rows[0] if rows else None

    def close_room(self, code: str) -> bool:
        """Mark a room closed: never loaded again, and a later `save_room` leaves it closed.
        False when there is no such open room."""
        rows: list[dict[str, Any]] = []
        with self._database.transaction() as tx:
            rows = tx.rows(q.CLOSE_ROOM, {"code": code, "now": time.time()})
        return bool(rows)

    async def close_room_async(self, code: str) -> bool:
        """`close_room` without a round trip on the event loop (one statement: its own
        transaction)."""
        return bool(await self._database.rows_async(q.CLOSE_ROOM, {"code": code, "now": time.time()}))

    def closed_among(self, codes: Sequence[str]) -> set[str]:
        """Which of ``codes`` are closed."""
        return {str(row["code"]) for chunk in chunks(codes)
                for row in self._database.rows(q.CLOSED_AMONG, {"codes": chunk})}

    async def closed_among_async(self, codes: Sequence[str]) -> set[str]:
        """`closed_among` without a round trip on the event loop."""
        return {str(row["code"]) for chunk in chunks(codes)
                for row in await self._database.rows_async(q.CLOSED_AMONG, {"codes": chunk})}

    def list_rooms(self, include_closed: bool = False) -> list[dict[str, Any]]:
        """Every room (``code``, ``phase``, ``created_at``, ``updated_at``, ``games_played``),
        oldest first; closed ones only with ``include_closed``."""
        return self._database.rows(q.LIST_ALL_ROOMS if include_closed else q.LIST_ROOMS)

    def _room_rows(self, rooms: list[dict[str, Any]]) -> list[RoomRow]:
        seats: dict[str, list[SeatRow]] = {}
        members: dict[str, dict[str, str]] = {}
        kicked: dict[str, set[str]] = {}
        for chunk in chunks([room["code"] for room in rooms]):
            for r in self._database.rows(q.SEATS_OF, {"codes": chunk}):
                seats.setdefault(r["code"], []).append(
                    SeatRow(r["seat"], r["kind"], r["name"], r["bot"], r["token_hash"], r["player_id"]))
            for r in self._database.rows(q.MEMBERS_OF, {"codes": chunk}):
                members.setdefault(r["code"], {})[r["token_hash"]] = r["name"]
            for r in self._database.rows(q.KICKED_OF, {"codes": chunk}):
                kicked.setdefault(r["code"], set()).add(r["token_hash"])
        return [RoomRow(row["code"], json.loads(row["settings"]), row["host_hash"], row["phase"],
                        row["games_played"], None if row["game_id"] is None else int(row["game_id"]),
                        tuple(seats.get(row["code"], ())), members.get(row["code"], {}),
                        frozenset(kicked.get(row["code"], ())))
                for row in rooms]

    # ------------------------------------------------------------------ games

    def start_game(self, code: str, number: int, rules_name: str, start: dict[str, Any],
                   clock_start: float, game_id: int | None = None) -> int:
        """Record a new game (its deal and everything needed to rebuild it); returns its id
        (``game_id``: one taken ahead of time, `reserve_game_ids_async`)."""
        params = _game_start(code, number, rules_name, start, clock_start)
        if game_id is not None:
            self._database.write([(q.START_GAME_WITH_ID, {**params, "id": game_id})])
            return game_id
        with self._database.transaction() as tx:
            rows = tx.rows(q.START_GAME, params)
        return int(rows[0]["id"])

    async def start_game_async(self, code: str, number: int, rules_name: str,
                               start: dict[str, Any], clock_start: float, game_id: int) -> None:
        """`start_game` with an id taken ahead of time, without a round trip on the event loop."""
        await self._database.write_async([(q.START_GAME_WITH_ID, {
            **_game_start(code, number, rules_name, start, clock_start), "id": game_id})])

    async def reserve_game_ids_async(self, count: int) -> list[int]:
        """``count`` new games' ids, taken from the database's sequence ahead of time, so that a
        game can start without waiting for its id (PostgreSQL)."""
        rows = await self._database.rows_async(q.RESERVE_GAME_IDS, {"count": count})
        return [int(row["id"]) for row in rows]

    def append_actions(self, game_id: int, first: int,
                       actions: Sequence[tuple[str, int | None, int]]) -> None:
        """Append accepted actions numbered from ``first``, in one transaction."""
        self._append(game_id, first, actions, 0, ())

    def append_judged(self, game_id: int, first: int, entries: Sequence[dict[str, Any]]) -> None:
        """Append how human actions were judged (see docs/protocol.md, "judging")."""
        self._append(game_id, 0, (), first, entries)

    def append_step(self, game_id: int, first_action: int,
                    actions: Sequence[tuple[str, int | None, int]], first_judged: int,
                    judged: Sequence[dict[str, Any]]) -> None:
        """`append_actions` and `append_judged` of one step, in one transaction (one commit
        per step is most of what storing costs a room)."""
        self._append(game_id, first_action, actions, first_judged, judged)

    def _append(self, game_id: int, first_action: int,
                actions: Sequence[tuple[str, int | None, int]], first_judged: int,
                judged: Sequence[dict[str, Any]]) -> None:
        self.append_steps([StepRows(game_id, first_action, actions, first_judged, judged)])

    def append_steps(self, steps: Sequence[StepRows]) -> None:
        """Several steps (of one game or of several), in one transaction: the rooms' steps of
        one event-loop turn (`ratscrew.server.room.writer`)."""
        inserts = step_inserts(steps)
        if inserts:
            self._database.insert_rows(inserts)

    async def append_steps_async(self, steps: Sequence[StepRows]) -> None:
        """`append_steps` (a local database: no round trip to wait for)."""
        self.append_steps(steps)

    @property
    def writes_off_the_loop(self) -> bool:
        """False: steps are written at the end of a loop turn (see `ratscrew.server.room.writer`)."""
        return False

    def start_steps(self, steps: Sequence[StepRows], done: StepsDone) -> bool:
        """False: a local database's steps are written by `append_steps`."""
        return False

    async def close_async(self) -> None:
        """Close what the store opened for asynchronous use (nothing, here)."""

    def game_in_progress(self, game_id: int) -> GameInProgress | None:
        """A game still being played, with every action stored so far."""
        which = {"game_id": game_id}
        games = self._database.rows(q.GAME_PLAYING, which)
        if not games:
            return None
        actions = [(r["kind"], r["seat"], int(r["at"])) for r in self._database.rows(q.ACTIONS_OF, which)]
        judged = [json.loads(r["entry"]) for r in self._database.rows(q.JUDGED_OF, which)]
        return GameInProgress(game_id, json.loads(games[0]["start"]), games[0]["clock_start"],
                              actions, judged)

    def finish_game(self, game_id: int, record: dict[str, Any], winner: int | None,
                    reason: str | None, results: Sequence[SeatResult]) -> None:
        """Store a finished game's record and each seat's result (a result stored again keeps
        the place and patterns its rating found)."""
        writes: list[Write] = [(q.FINISH_GAME, {"game_id": game_id, "finished_at": time.time(),
                                                "winner": winner, "reason": reason,
                                                "record": json.dumps(record)})]
        writes += [(q.STORE_RESULT, result_params(game_id, r)) for r in results]
        self._database.write(writes)

    def game_record(self, game_id: int) -> dict[str, Any] | None:
        """The stored record of a finished game, or ``None``."""
        rows = self._database.rows(q.GAME_RECORD, {"game_id": game_id})
        return None if not rows or rows[0]["record"] is None else dict(json.loads(rows[0]["record"]))

    def game_count(self) -> int:
        """How many games have finished (for logs and tests)."""
        return int(next(iter(self._database.rows(q.GAME_COUNT)[0].values())))

    # ------------------------------------------------------------------ results read for ranking

    def person_results(self, token_hash: str, rules_name: str | None = None) -> list[dict[str, Any]]:
        """A person's finished results (by seat token hash; all rulesets, or one), oldest first
        (`ratscrew.server.ladder.ranking.player_stats` adds them up)."""
        if rules_name is None:
            return self._database.rows(q.PERSON_RESULTS, {"token_hash": token_hash})
        return self._database.rows(q.PERSON_RESULTS_IN, {"token_hash": token_hash, "rules_name": rules_name})

    def ranked_players(self, rules_name: str, limit: int = 50) -> list[dict[str, Any]]:
        """The ranked players of a ruleset, best rating first: ``player_id``, ``name``, ``mu``,
        ``sigma``, ``rated`` (games)."""
        return self._database.rows(q.RANKED_PLAYERS, {"rules_name": rules_name, "limit": limit})

    def players_results(self, rules_name: str, player_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The finished results of these keyed players in a ruleset, oldest first."""
        return [row for chunk in chunks(player_ids)
                for row in self._database.rows(q.PLAYERS_RESULTS, {"rules_name": rules_name,
                                                             "player_ids": chunk})]

    # ------------------------------------------------------------------ players

    def server_id(self) -> str:
        """This server's random identity, made the first time any process asks for it."""
        self._database.write([(q.SERVER_ID_INIT, {"key": "server_id", "value": new_server_id()})])
        return str(self._database.rows(q.SERVER_ID)[0]["value"])

    def enter_player(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        """The player of this key hash, now named ``name``; a key never seen before becomes a
        player with the public id ``new_id``. `NameTaken` (and nothing changed) when another
        key holds the name (compared by `ratscrew.storage.records.fold_name`)."""
        try:
            return self._enter_player(key_hash, name, new_id)
        except Conflict:  # another process gave the name to another key meanwhile
            raise NameTaken(name) from None

    def _enter_player(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        folded = fold_name(name)
        with self._database.transaction() as tx:
            holder = tx.rows(q.NAME_HOLDER, {"name_folded": folded})
            if holder and holder[0]["key_hash"] != key_hash:
                raise NameTaken(name)
            now = time.time()
            tx.run(q.ENTER_PLAYER, {"id": new_id, "key_hash": key_hash, "name": name,
                                    "name_folded": folded, "created_at": now, "seen_at": now})
            row = tx.rows(q.PLAYER_BY_KEY, {"key_hash": key_hash})[0]
        return PlayerRow(row["id"], row["name"])

    async def enter_player_async(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        """`enter_player` without a round trip on the event loop. Its three statements are not
        one transaction: a name given to another key between the check and the write still
        fails the write (the names' unique index), so `NameTaken` stays the only outcome of a
        clash and nothing changes on one."""
        folded = fold_name(name)
        holder = await self._database.rows_async(q.NAME_HOLDER, {"name_folded": folded})
        if holder and holder[0]["key_hash"] != key_hash:
            raise NameTaken(name)
        now = time.time()
        try:
            await self._database.write_async([(q.ENTER_PLAYER, {
                "id": new_id, "key_hash": key_hash, "name": name, "name_folded": folded,
                "created_at": now, "seen_at": now})])
        except Conflict:
            raise NameTaken(name) from None
        row = (await self._database.rows_async(q.PLAYER_BY_KEY, {"key_hash": key_hash}))[0]
        return PlayerRow(row["id"], row["name"])

    def player(self, player_id: str) -> PlayerRow | None:
        """The player with this public id, if any."""
        rows = self._database.rows(q.PLAYER, {"id": player_id})
        return PlayerRow(rows[0]["id"], rows[0]["name"]) if rows else None

    def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The player of this key hash, if any."""
        rows = self._database.rows(q.PLAYER_BY_KEY, {"key_hash": key_hash})
        return PlayerRow(rows[0]["id"], rows[0]["name"]) if rows else None

    async def player_by_key_async(self, key_hash: str) -> PlayerRow | None:
        """`player_by_key` without a round trip on the event loop."""
        rows = await self._database.rows_async(q.PLAYER_BY_KEY, {"key_hash": key_hash})
        return PlayerRow(rows[0]["id"], rows[0]["name"]) if rows else None

    # ------------------------------------------------------------------ ratings

    def rate_game(self, game_id: int, rater: Rater) -> GameRating | None:
        """Rate a finished game exactly once: in one transaction (one rating at a time across
        every process), check it is not rated yet, call ``rater`` with the current ratings of
        its participants, store each change (and the places and slaps by pattern it found) and
        mark the game rated. ``None`` when the game is already rated or not finished."""
        with self._database.transaction(rating=True) as tx:
            which = {"game_id": game_id}
            if tx.rows(q.IS_RATED, which):
                return None
            games = tx.rows(q.FINISHED_GAME, which)
            if not games:
                return None
            game = games[0]
            results = tuple(seat_result(r) for r in tx.rows(q.RESULTS_OF, which))
            finished = FinishedGame(game_id, game["rules_name"], json.loads(game["record"] or "{}"),
                                    game["winner"], results,
                                    *self._rating_context(tx, results, game["rules_name"], time.time()))
            names = sorted({p for p in map(participant, results) if p is not None})
            current = {r["participant"]: Rating(r["mu"], r["sigma"], r["games"])
                       for r in tx.rows(q.RATINGS_AMONG, {"rules_name": finished.rules_name,
                                                          "participants": names})} if names else {}
            rating = rater(finished, current)
            for statement, params in self._rating_writes(finished, current, rating, time.time()):
                tx.run(statement, params)
            return rating

    @staticmethod
    def _rating_context(tx: Transaction, results: Sequence[SeatResult], rules_name: str,
                        now: float) -> tuple[int, frozenset[str], frozenset[str]]:
        """Earlier quick resignations between the game's keyed players within
        `ratscrew.storage.terms.FARM_WINDOW_S`, which of them are flagged, and which of its
        participants are established (rated games against `MIN_OPPONENTS` different opponents)."""
        keyed = sorted({r.player_id for r in results if r.kind == "human" and r.player_id})
        if not keyed:
            return 0, frozenset(), frozenset()
        flagged = frozenset(str(r["player_id"]) for r in tx.rows(q.FLAGGED_AMONG, {"player_ids": keyed}))
        earlier = 0
        if len(keyed) >= 2:
            rows = tx.rows(q.EARLIER_QUICK_RESIGNS, {"since": now - FARM_WINDOW_S, "player_ids": keyed})
            earlier = int(rows[0]["n"]) if rows else 0
        established = frozenset(str(r["participant"]) for r in tx.rows(
            q.OPPONENTS_AMONG, {"rules_name": rules_name, "participants": keyed})
            if int(r["opponents"]) >= MIN_OPPONENTS)
        return earlier, flagged, established

    @staticmethod
    def _rating_writes(game: FinishedGame, current: Mapping[str, Rating], rating: GameRating,
                       now: float) -> list[Write]:
        """The writes of one game's rating: its rated mark, each seat's place and patterns,
        each participant's update and new rating."""
        writes: list[Write] = [(q.MARK_RATED, {"game_id": game.game_id, "at": now,
                                               "participants": len(rating.changes),
                                               "unrated": rating.unrated,
                                               "quick_resign": int(rating.quick_resign)})]
        for seat, place in sorted(rating.places.items()):
            writes.append((q.PLACE, {"game_id": game.game_id, "seat": seat, "place": place,
                                     "patterns": json.dumps(rating.patterns.get(seat, {}),
                                                            sort_keys=True),
                                     "unrated": rating.seat_notes.get(seat)}))
        for name, change in sorted(rating.changes.items()):
            games = current[name].games + 1 if name in current else 1
            writes.append((q.RATING_UPDATE, {
                "participant": name, "rules_name": game.rules_name, "game_id": game.game_id,
                "mu_before": change.mu_before, "sigma_before": change.sigma_before,
                "mu_after": change.mu_after, "sigma_after": change.sigma_after, "at": now}))
            writes.append((q.SET_RATING, {"participant": name, "rules_name": game.rules_name,
                                          "mu": change.mu_after, "sigma": change.sigma_after,
                                          "games": games, "updated_at": now}))
        return writes

    def rating_notes(self, game_id: int) -> dict[str, Any] | None:
        """What rating made of a finished game, for its public record: ``unrated`` (why it
        changed no rating, or ``None``) and ``seats`` (``{seat: why that seat's part changed no
        rating}``, for the seats that have a reason); ``None`` while it is not rated yet."""
        rows = self._database.rows(q.RATING_NOTES, {"game_id": game_id})
        if not rows:
            return None
        return {"unrated": rows[0]["unrated"],
                "seats": {str(r["seat"]): r["seat_unrated"] for r in rows if r["seat_unrated"]}}

    def unrated_games(self) -> list[int]:
        """Finished games not rated yet (a server stopped between the end and the rating),
        oldest first."""
        return [int(r["id"]) for r in self._database.rows(q.UNRATED_GAMES)]

    def ratings_of(self, participant: str) -> list[dict[str, Any]]:
        """Every ruleset ``participant`` is rated in: ``rules``, ``mu``, ``sigma``, ``games``,
        and ``rank`` among players (``None`` for a bot)."""
        return [{**r, "rank": None if r["rank"] is None else int(r["rank"])}
                for r in self._database.rows(q.RATINGS_OF, {"participant": participant})]

    def rating_history(self, participant: str, rules_name: str) -> list[dict[str, Any]]:
        """Every rating update of ``participant`` in a ruleset, oldest first: ``game_id``,
        ``at`` (epoch seconds), ``mu_before``, ``sigma_before``, ``mu_after``, ``sigma_after``."""
        return [{**r, "game_id": int(r["game_id"])} for r in self._database.rows(
            q.RATING_HISTORY, {"participant": participant, "rules_name": rules_name})]

    def player_games(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's latest finished games, newest first: ``id``, ``rules``,
        ``finished_at``, ``unrated`` (why the game changed no rating), ``note`` (why this
        player's part changed no rating in a rated game), ``place``, ``players``, ``won``,
        ``slaps``, ``misslaps``, ``reactions`` (ms) and ``patterns`` (``None`` until the game
        is rated)."""
        return [player_game(row) for row in self._database.rows(
            q.PLAYER_GAMES, {"player_id": player_id, "limit": limit})]

    def bot_reactions(self, limit: int = 500) -> dict[str, list[int]]:
        """Each bot level's latest ``limit`` slap reaction times (ms) in games stored here."""
        samples: dict[str, list[int]] = {}
        for row in self._database.rows(q.BOT_REACTIONS):
            times = samples.setdefault(row["bot"], [])
            if len(times) < limit:
                times.extend(json.loads(row["reactions"])[: limit - len(times)])
        return {level: times for level, times in samples.items() if times}

    # ------------------------------------------------------------------ integrity (issue 30)

    def game_players(self, game_id: int) -> list[tuple[str, str]]:
        """Each keyed player of a finished game and the game's ruleset."""
        rows = self._database.rows(q.GAME_PLAYERS, {"game_id": game_id})
        return [(r["player_id"], r["rules"]) for r in rows]

    def integrity_flag(self, player_id: str) -> dict[str, Any] | None:
        """The player's latest integrity flag (``rules``, ``since_game``, ``flagged_at``,
        ``reasons``, ``checked_slaps``, ``cleared_at``), or ``None`` if never flagged."""
        rows = self._database.rows(q.FLAG, {"player_id": player_id})
        return flag_row(rows[0]) if rows else None

    def flag_player(self, player_id: str, rules_name: str, since_game: int, reasons: Sequence[str],
                    checked_slaps: int) -> None:
        """Flag a player, and in the same transaction take back the ratings of every game of
        ``rules_name`` from ``since_game`` on (`ratscrew.server.ladder.ratings.catch_up` rates them
        again, the flagged player's games now unrated)."""
        self._rerate((q.FLAG_PLAYER, {"player_id": player_id, "rules_name": rules_name,
                                      "since_game": since_game, "flagged_at": time.time(),
                                      "reasons": json.dumps(list(reasons)),
                                      "checked_slaps": checked_slaps}), rules_name, since_game)

    def clear_flag(self, player_id: str) -> bool:
        """A moderator cleared the player's flag: mark it cleared and take back the ratings
        from its evidence on (to be rated again); ``False`` if there was no flag to clear."""
        flag = self.integrity_flag(player_id)
        if flag is None or flag["cleared_at"] is not None:
            return False
        self._rerate((q.CLEAR_FLAG, {"player_id": player_id, "now": time.time()}),
                     flag["rules"], flag["since_game"])
        return True

    def _rerate(self, first: Write, rules_name: str, since_game: int) -> None:
        """``first``, then the ratings taken back, in one transaction holding the rating lock."""
        with self._database.transaction(rating=True) as tx:
            tx.run(*first)
            for statement in q.UNRATE:
                tx.run(statement, {"rules_name": rules_name, "since_game": since_game})

    # ------------------------------------------------------------------ arenas (issue 50)

    def create_arena(self, arena: ArenaRow) -> None:
        """Store a new arena (its id is new: a clash is `ratscrew.storage.sql.Conflict`)."""
        self._database.write([(q.INSERT_ARENA, {
            "id": arena.arena_id, "rules_name": arena.rules_name, "players": arena.players,
            "starts_at": arena.starts_at, "ends_at": arena.ends_at, "created_at": arena.created_at,
            "creator": arena.creator, "state": arena.state})])

    def arena(self, arena_id: str) -> ArenaRow | None:
        """The arena with this id, if any (cancelled ones too)."""
        rows = self._database.rows(q.ARENA, {"id": arena_id})
        return arena_row(rows[0]) if rows else None

    async def arena_async(self, arena_id: str) -> ArenaRow | None:
        """`arena` without a round trip on the event loop."""
        rows = await self._database.rows_async(q.ARENA, {"id": arena_id})
        return arena_row(rows[0]) if rows else None

    def list_arenas(self, ending_after: float, limit: int = 50) -> list[ArenaRow]:
        """Arenas not cancelled that end after ``ending_after`` (upcoming, running and recently
        finished), the first to start first."""
        return [arena_row(r) for r in self._database.rows(q.ARENAS_LISTED, {"since": ending_after,
                                                                            "limit": limit})]

    def all_arenas(self, limit: int = 200) -> list[ArenaRow]:
        """Every arena, cancelled ones too, the latest to start first (for the operator)."""
        return [arena_row(r) for r in self._database.rows(q.ARENAS_ALL, {"limit": limit})]

    def cancel_arena(self, arena_id: str) -> bool:
        """Cancel an arena that is not finished; False when there is no such open arena."""
        with self._database.transaction() as tx:
            rows = tx.rows(q.CANCEL_ARENA, {"id": arena_id, "now": time.time()})
        return bool(rows)

    def add_arena_room(self, arena_id: str, code: str) -> None:
        """Record that room ``code`` was made for a table of the arena (again: no change)."""
        self._database.write([(q.ADD_ARENA_ROOM, {"arena_id": arena_id, "code": code})])

    async def add_arena_room_async(self, arena_id: str, code: str) -> None:
        """`add_arena_room` without a round trip on the event loop."""
        await self._database.write_async([(q.ADD_ARENA_ROOM, {"arena_id": arena_id, "code": code})])

    def arena_of_room(self, code: str) -> str | None:
        """The arena room ``code`` plays for, if any."""
        rows = self._database.rows(q.ARENA_OF_ROOM, {"code": code})
        return str(rows[0]["arena_id"]) if rows else None

    def arena_results(self, arena_id: str, ends_at: float) -> list[dict[str, Any]]:
        """The keyed players' results in the arena's finished games that started before
        ``ends_at``, in the order the games finished: ``game_id``, ``player_id``, ``name``,
        ``place`` (``None`` until rated), ``won``, ``finished_at``."""
        return [{**r, "game_id": int(r["game_id"]), "won": bool(r["won"])} for r in self._database.rows(
            q.ARENA_RESULTS, {"arena_id": arena_id, "ends_at": ends_at})]

    def arena_games_playing(self, arena_id: str, ends_at: float) -> int:
        """How many of the arena's games that started before ``ends_at`` are still being played."""
        rows = self._database.rows(q.ARENA_GAMES_PLAYING, {"arena_id": arena_id, "ends_at": ends_at})
        return int(next(iter(rows[0].values())))

    def ended_arenas(self, now: float) -> list[ArenaRow]:
        """Open arenas whose end has come (their final standings not stored yet)."""
        return [arena_row(r) for r in self._database.rows(q.ARENAS_ENDED, {"now": now})]

    def finish_arena(self, arena_id: str, standings: Sequence[Mapping[str, Any]]) -> bool:
        """Store an open arena's final standings (each ``player_id``, ``rank``, ``name``,
        ``score``, ``games``, ``wins``, ``streak``) and mark it finished, in one transaction;
        False (nothing written) when it is not open (another process finished it first)."""
        with self._database.transaction() as tx:
            if not tx.rows(q.FINISH_ARENA, {"id": arena_id, "now": time.time()}):
                return False
            for line in standings:
                tx.run(q.INSERT_STANDING, {"arena_id": arena_id,
                                           **{c: line[c] for c in q.STANDING_COLUMNS[1:]}})
        return True

    def final_standings(self, arena_id: str) -> list[dict[str, Any]]:
        """A finished arena's stored standings, best first."""
        return [{c: r[c] for c in q.STANDING_COLUMNS[1:]}
                for r in self._database.rows(q.FINAL_STANDINGS, {"arena_id": arena_id})]

    def player_arenas(self, player_id: str, limit: int = 20) -> list[dict[str, Any]]:
        """The player's final standings in finished arenas, latest first: ``arena_id``,
        ``rules``, ``players``, ``starts_at``, ``ends_at``, ``rank``, ``entrants``, ``score``,
        ``games``, ``wins``."""
        return [{"arena_id": r["arena_id"], "rules": r["rules_name"], "players": int(r["players"]),
                 "starts_at": float(r["starts_at"]), "ends_at": float(r["ends_at"]),
                 "rank": int(r["rank"]), "entrants": int(r["entrants"]), "score": int(r["score"]),
                 "games": int(r["games"]), "wins": int(r["wins"])}
                for r in self._database.rows(q.PLAYER_ARENAS, {"player_id": player_id, "limit": limit})]
