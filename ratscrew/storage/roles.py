"""What the server may ask of its storage, split by role: `RoomStore` (rooms, their seats and
members), `ArchiveStore` (games, their actions, records and results), `PlayerStore` (player
keys and names), `RatingStore` (ratings, their history, integrity flags), `ArenaStore` (arenas,
their rooms and final standings) and `Connected` (the database itself: opening, claims, reaching
it). `Store` is their union, what a server holds;
a part of the server that needs one role may ask for that role only.

Implementations: `ratscrew.storage.sqlite.SqliteStore` and
`ratscrew.storage.postgres.PostgresStore`, both `ratscrew.storage.store.SqlStore`;
``tests/test_store_contract.py`` runs the same tests against both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ratscrew.storage.records import (
    ArenaRow,
    GameInProgress,
    GameRating,
    PlayerRow,
    RateCounter,
    Rater,
    RoomRow,
    SeatResult,
    SeatRow,
    StepRows,
    StepsDone,
)


class Connected(Protocol):
    """The database itself."""

    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        ...

    @property
    def description(self) -> str:
        """The database, as shown to people (a URL without its password)."""
        ...

    def close(self) -> None:
        """Close the database (and release what this process holds on it)."""

    def claim(self, shard: str | None) -> None:
        """Make this process the only one serving ``shard``'s rooms on this database (``None``:
        every room); `StoreError` when another process already does."""

    def reachable(self) -> bool:
        """Whether the database answers now (blocks for at most a few seconds); after
        `StoreUnavailable`, True means the store can be used again."""
        ...

    @property
    def failing_fast(self) -> bool:
        """Whether the store refuses every call at once (`StoreUnavailable`) since it found its
        database gone, until `reachable` finds it back."""
        ...

    def rate_counter(self, what: str, limit: int, window_s: float) -> RateCounter | None:
        """A per-address counter that every process on this database shares, or ``None`` when
        only one process uses the database (the app then counts in memory)."""
        ...


class RoomStore(Protocol):
    """Rooms, their seats, members and kicked tokens."""

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code was ever created."""
        ...

    async def room_exists_async(self, code: str) -> bool:
        """`room_exists` without a database round trip on the event loop (the ``…_async``
        methods: PostgreSQL answers while the loop runs on; SQLite, a local file, at once)."""
        ...

    def save_room(self, code: str, settings: dict[str, Any], host_hash: str | None, phase: str,
                  games_played: int, game_id: int | None, seats: Sequence[SeatRow]) -> None:
        """Write a room and its seats (created or updated)."""

    async def save_room_async(self, code: str, settings: dict[str, Any], host_hash: str | None,
                              phase: str, games_played: int, game_id: int | None,
                              seats: Sequence[SeatRow]) -> None:
        """`save_room` without a database round trip on the event loop."""

    def add_member(self, code: str, token_hash: str, name: str) -> None:
        """Remember the token of someone without a seat (so a watching host stays host)."""

    async def add_member_async(self, code: str, token_hash: str, name: str) -> None:
        """`add_member` without a database round trip on the event loop."""

    def add_kicked(self, code: str, token_hash: str) -> None:
        """A token the host removed: it no longer works in this room."""

    async def add_kicked_async(self, code: str, token_hash: str) -> None:
        """`add_kicked` without a database round trip on the event loop."""

    def load_rooms(self, shard: str | None = None) -> list[RoomRow]:
        """Every room that is not closed (only those whose code begins with ``shard``)."""
        ...

    def load_room(self, code: str) -> RoomRow | None:
        """One room as stored, if it exists."""
        ...

    def close_room(self, code: str) -> bool:
        """Mark a room closed (`ratscrew.server.ops.expiry`): never loaded again, and a later
        `save_room` leaves it closed. False when there is no such open room."""
        ...

    async def close_room_async(self, code: str) -> bool:
        """`close_room` without a database round trip on the event loop."""
        ...

    def closed_among(self, codes: Sequence[str]) -> set[str]:
        """Which of ``codes`` are closed (an operator may close a room a server still holds)."""
        ...

    async def closed_among_async(self, codes: Sequence[str]) -> set[str]:
        """`closed_among` without a database round trip on the event loop."""
        ...

    def list_rooms(self, include_closed: bool = False) -> list[dict[str, Any]]:
        """Every room (``code``, ``phase``, ``created_at``, ``updated_at``, ``games_played``),
        oldest first; closed ones only with ``include_closed``."""
        ...


class ArchiveStore(Protocol):
    """Games: their start, every action as it happens, records and each seat's result."""

    def start_game(self, code: str, number: int, rules_name: str, start: dict[str, Any],
                   clock_start: float, game_id: int | None = None) -> int:
        """Record a new game (its deal and everything needed to rebuild it); returns its id
        (``game_id``: one taken ahead of time by `reserve_game_ids_async`)."""
        ...

    async def start_game_async(self, code: str, number: int, rules_name: str,
                               start: dict[str, Any], clock_start: float, game_id: int) -> None:
        """`start_game` with an id taken ahead of time, without a round trip on the event loop."""

    async def reserve_game_ids_async(self, count: int) -> list[int]:
        """Up to ``count`` new games' ids taken ahead of time, so that a game can start without
        waiting for its id; none where a start is written at once anyway (SQLite)."""
        ...

    def append_actions(self, game_id: int, first: int,
                       actions: Sequence[tuple[str, int | None, int]]) -> None:
        """Append accepted actions numbered from ``first``, in one transaction."""

    def append_judged(self, game_id: int, first: int, entries: Sequence[dict[str, Any]]) -> None:
        """Append how human actions were judged (see docs/protocol.md, "judging")."""

    def append_step(self, game_id: int, first_action: int,
                    actions: Sequence[tuple[str, int | None, int]], first_judged: int,
                    judged: Sequence[dict[str, Any]]) -> None:
        """`append_actions` and `append_judged` of one step, in one transaction."""

    def append_steps(self, steps: Sequence[StepRows]) -> None:
        """Several steps (of one game or of several), in one transaction."""

    async def append_steps_async(self, steps: Sequence[StepRows]) -> None:
        """`append_steps` without a database round trip on the event loop, where the store
        reaches its database over the network (PostgreSQL); otherwise `append_steps`."""

    @property
    def writes_off_the_loop(self) -> bool:
        """Whether steps are best written by `append_steps_async` in a task (the database is
        another process) rather than by `append_steps` at the end of a loop turn (a file)."""
        ...

    def start_steps(self, steps: Sequence[StepRows], done: StepsDone) -> bool:
        """Send ``steps`` as `append_steps_async` would, without a task, when the store can:
        ``done`` hears the outcome (``None`` once stored, else the store's error) in the turn
        of the event loop in which the database's answer is read, and True is returned.
        False, with nothing sent, when it cannot (a local database, a connection not yet made
        in this event loop or lost): then use `append_steps_async`."""
        ...

    async def close_async(self) -> None:
        """Close what the store opened for asynchronous use, in the event loop that used it."""

    def game_in_progress(self, game_id: int) -> GameInProgress | None:
        """A game still being played, with every action stored so far."""
        ...

    def finish_game(self, game_id: int, record: dict[str, Any], winner: int | None,
                    reason: str | None, results: Sequence[SeatResult]) -> None:
        """Store a finished game's record and each seat's result."""

    def game_record(self, game_id: int) -> dict[str, Any] | None:
        """The stored record of a finished game, or ``None``."""
        ...

    def game_count(self) -> int:
        """How many games have finished."""
        ...

    def person_results(self, token_hash: str, rules_name: str | None = None) -> list[dict[str, Any]]:
        """A person's finished results (by seat token hash; all rulesets, or one), oldest first."""
        ...

    def bot_reactions(self, limit: int = 500) -> dict[str, list[int]]:
        """Each bot level's latest slap reaction times (ms) in games stored here."""
        ...

    def game_players(self, game_id: int) -> list[tuple[str, str]]:
        """Each keyed player of a finished game and the game's ruleset."""
        ...


class PlayerStore(Protocol):
    """Player keys (as hashes), public ids and names (docs/online.md, "Players and ratings")."""

    def server_id(self) -> str:
        """This server's random identity (made once, kept in the store): import codes carry
        a check of it, so a code from another server is told apart."""
        ...

    def enter_player(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        """The player of this key hash, now named ``name``; a key never seen before becomes a
        player with the public id ``new_id``. `NameTaken` (and nothing changed) when another
        key holds the name (compared casefolded)."""
        ...

    async def enter_player_async(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        """`enter_player` without a database round trip on the event loop."""
        ...

    def player(self, player_id: str) -> PlayerRow | None:
        """The player with this public id, if any."""
        ...

    def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The player of this key hash, if any."""
        ...

    async def player_by_key_async(self, key_hash: str) -> PlayerRow | None:
        """`player_by_key` without a database round trip on the event loop."""
        ...

    def player_games(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's latest finished games, newest first: ``id``, ``rules``,
        ``finished_at``, ``place``, ``players``, ``won``, ``slaps``, ``misslaps``,
        ``reactions`` (ms) and ``patterns`` (``None`` until the game is rated)."""
        ...


class RatingStore(Protocol):
    """Ratings of finished games (each game once), their history, ranks and integrity flags."""

    def rate_game(self, game_id: int, rater: Rater) -> GameRating | None:
        """Rate a finished game exactly once: in one transaction, check it is not rated yet,
        call ``rater`` with the current ratings of its participants, store each change (and
        the places and slaps by pattern it found) and mark the game rated. ``None`` when the
        game is already rated or not finished."""
        ...

    def unrated_games(self) -> list[int]:
        """Finished games not rated yet (a server stopped between the end and the rating),
        oldest first."""
        ...

    def rating_notes(self, game_id: int) -> dict[str, Any] | None:
        """What rating made of a finished game: ``unrated`` and ``seats`` (see `SqlStore`)."""
        ...

    def ranked_players(self, rules_name: str, limit: int = 50) -> list[dict[str, Any]]:
        """The ranked players of a ruleset, best rating (mu - 3 sigma) first: ``player_id``,
        ``name``, ``mu``, ``sigma``, ``rated`` (`ratscrew.server.ladder.ranking.leaderboard`)."""
        ...

    def players_results(self, rules_name: str, player_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The finished results of these keyed players in a ruleset, oldest first."""
        ...

    def ratings_of(self, participant: str) -> list[dict[str, Any]]:
        """Every ruleset ``participant`` is rated in: ``rules``, ``mu``, ``sigma``, ``games``,
        and ``rank`` among players (``None`` for a bot)."""
        ...

    def rating_history(self, participant: str, rules_name: str) -> list[dict[str, Any]]:
        """Every rating update of ``participant`` in a ruleset, oldest first: ``game_id``,
        ``at`` (epoch seconds), ``mu_before``, ``sigma_before``, ``mu_after``, ``sigma_after``."""
        ...

    def integrity_flag(self, player_id: str) -> dict[str, Any] | None:
        """The player's latest integrity flag (``rules``, ``since_game``, ``flagged_at``,
        ``reasons``, ``checked_slaps``, ``cleared_at``), or ``None`` if never flagged."""
        ...

    def flag_player(self, player_id: str, rules_name: str, since_game: int, reasons: Sequence[str],
                    checked_slaps: int) -> None:
        """Flag a player, and in the same transaction take back the ratings of every game of
        ``rules_name`` from ``since_game`` on (`ratscrew.server.ladder.ratings.catch_up` rates them
        again, the flagged player's games now unrated)."""
        ...

    def clear_flag(self, player_id: str) -> bool:
        """A moderator cleared the player's flag: mark it cleared and take back the ratings
        from its evidence on (to be rated again); ``False`` if there was no flag to clear."""
        ...


class ArenaStore(Protocol):
    """Arenas (issue 50): their rows, the rooms made for them, their final standings."""

    def create_arena(self, arena: ArenaRow) -> None:
        """Store a new arena."""

    def arena(self, arena_id: str) -> ArenaRow | None:
        """The arena with this id, if any."""
        ...

    async def arena_async(self, arena_id: str) -> ArenaRow | None:
        """`arena` without a round trip on the event loop."""
        ...

    def list_arenas(self, ending_after: float, limit: int = 50) -> list[ArenaRow]:
        """Arenas not cancelled that end after ``ending_after``, the first to start first."""
        ...

    def all_arenas(self, limit: int = 200) -> list[ArenaRow]:
        """Every arena, the latest to start first."""
        ...

    def cancel_arena(self, arena_id: str) -> bool:
        """Cancel an open arena; False when there is none."""
        ...

    def add_arena_room(self, arena_id: str, code: str) -> None:
        """Record that a room was made for the arena."""

    async def add_arena_room_async(self, arena_id: str, code: str) -> None:
        """`add_arena_room` without a round trip on the event loop."""

    def arena_of_room(self, code: str) -> str | None:
        """The arena a room plays for, if any."""
        ...

    def arena_results(self, arena_id: str, ends_at: float) -> list[dict[str, Any]]:
        """The keyed results of the arena's finished games, in the order they finished."""
        ...

    def arena_games_playing(self, arena_id: str, ends_at: float) -> int:
        """The arena's games still being played."""
        ...

    def ended_arenas(self, now: float) -> list[ArenaRow]:
        """Open arenas whose end has come."""
        ...

    def finish_arena(self, arena_id: str, standings: Sequence[Mapping[str, Any]]) -> bool:
        """Store an arena's final standings and mark it finished (once)."""
        ...

    def final_standings(self, arena_id: str) -> list[dict[str, Any]]:
        """A finished arena's stored standings."""
        ...

    def player_arenas(self, player_id: str, limit: int = 20) -> list[dict[str, Any]]:
        """A player's final standings in finished arenas, latest first."""
        ...


class Store(Connected, RoomStore, ArchiveStore, PlayerStore, RatingStore, ArenaStore, Protocol):
    """Everything a server asks of its storage: the union of the roles."""
