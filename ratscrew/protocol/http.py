"""The server's HTTP JSON answers, one TypedDict each (docs/protocol.md, "HTTP").

What ``POST /api/rooms``, ``GET /api/presets``, ``/api/bots``, ``/api/leaderboard``,
``/api/players/ID``, ``POST /api/players/export`` and ``/import``, ``GET /api/lab/settings``,
``POST /api/lab`` and ``GET /api/lab/jobs/ID`` answer (and the coded errors), typed like the
websocket's messages (:mod:`ratscrew.protocol.server_messages`): the server builds each answer
as its type, so ``mypy --strict`` checks the keys it sends, and ``python -m ratscrew.protocol
typescript`` declares the same types for the pages (``ratscrew/web/js/protocol.d.ts``), which
read them with JSDoc (``import("./protocol").PlayerAnswer``). A test holds every endpoint's
actual JSON to its type's keys (tests/test_protocol_http.py).

Fields are added, never renamed: these answers are a public contract.
"""

from __future__ import annotations

from typing import Literal, NewType, NotRequired, TypedDict

SettingValue = bool | int | str | list[str]
"""One ruleset setting's value as JSON (`ratscrew.ruleset.Ruleset.to_dict`)."""

RulesetSettings = NewType("RulesetSettings", dict[str, SettingValue])
"""Every setting of a ruleset by name (`Ruleset.to_dict`), its ``name`` and ``summary``
among them."""

SettingKind = Literal["bool", "int", "choice", "patterns"]
"""How the lab page edits a setting: a check box, a number, a choice of words, slap patterns."""

JobState = Literal["queued", "running", "done", "failed"]
"""Where a lab job is."""


# ---------------------------------------------------------------------------------- rooms


class RoomCreated(TypedDict):
    """``POST /api/rooms`` (201): the new room's code and its page. (``GET /api/rooms/CODE``
    answers the ``room`` message without ``you``: `ratscrew.protocol.server_messages.RoomMessage`.)"""

    code: str
    url: str


# ---------------------------------------------------------------------------------- presets, bots


class PresetInfo(TypedDict):
    """A preset ruleset: its name, what it is, its TOML, its rules in plain English."""

    name: str
    summary: str
    toml: str
    lines: list[str]
    max_players: int


class PresetsAnswer(TypedDict):
    """``GET /api/presets``: every preset, in the order the rules list them."""

    presets: list[PresetInfo]


class BotLevel(TypedDict):
    """A bot level a seat may be given: its mean reaction and how many cards it remembers."""

    name: str
    mean_reaction_ms: int
    memory: int


class AgentInfo(TypedDict):
    """A trained or built-in agent a seat may be given, and the human reaction profile it is held to."""

    name: str
    description: str
    reaction: str
    mean_reaction_ms: int


class BotsAnswer(TypedDict):
    """``GET /api/bots``: the bot levels and the agents a room may seat."""

    levels: list[BotLevel]
    agents: list[AgentInfo]


# ---------------------------------------------------------------------------------- the ladder


class LeaderboardRow(TypedDict):
    """A ranked player: their rating (mu - 3 sigma; equal ratings share a rank) and figures."""

    name: str
    games: int
    wins: int
    win_rate: float
    slaps: int
    misslaps: int
    median_reaction_ms: int | None
    best_reaction_ms: int | None
    player_id: str
    rank: int
    rating: float
    rating_sigma: float
    provisional: bool


class LeaderboardAnswer(TypedDict):
    """``GET /api/leaderboard?rules=NAME``: the ranked players of a ruleset, best first."""

    rules: str
    players: list[LeaderboardRow]


class RatingPoint(TypedDict):
    """A player's rating after one rated game."""

    game_id: int
    at: str
    rating_before: float
    rating_after: float
    mu: float
    sigma: float


class PlayerRating(TypedDict):
    """A player's rating in one ruleset, with its rank and its history."""

    rules: str
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool
    rank: int | None
    history: list[RatingPoint]


class PlayerGame(TypedDict):
    """One of a player's finished games (``unrated``: why it changed no rating)."""

    id: int
    rules: str
    finished_at: str
    place: int
    players: int
    replay: str
    unrated: str | None
    note: str | None


class PlayerReactions(TypedDict):
    """A player's latest reaction times (ms, oldest first) beside each bot level's."""

    you: list[int]
    bots: dict[str, list[int]]


class SlapCounts(TypedDict):
    """A player's slaps of one pattern: won, lost to a quicker slapper, and misslaps (``none``)."""

    pattern: str
    won: int
    lost: int
    misslaps: int


class Integrity(TypedDict):
    """Whether the player is flagged for review, why, and the slaps checked."""

    flagged: bool
    reasons: list[str]
    checked_slaps: int


class PlayerArena(TypedDict):
    """A player's final standing in a finished arena (issue 50): the place among its entrants."""

    arena_id: str
    rules: str
    players: int
    starts_at: float
    ends_at: float
    rank: int
    entrants: int
    score: int
    games: int
    wins: int


class PlayerAnswer(TypedDict):
    """``GET /api/players/ID``: a player's ratings, games, reactions, slaps and integrity."""

    player_id: str
    name: str
    ratings: list[PlayerRating]
    games: list[PlayerGame]
    reactions: PlayerReactions
    slaps: list[SlapCounts]
    export_hint: str
    integrity: Integrity
    arenas: list[PlayerArena]


class PlayerExported(TypedDict):
    """``POST /api/players/export``: the import code that moves the key to another device."""

    player_id: str
    code: str


class PlayerImported(TypedDict):
    """``POST /api/players/import``: the player (and key) an import code made on this server stands for."""

    player_id: str
    name: str
    player_key: str


class CodedError(TypedDict):
    """An HTTP error a client can act on: a ``code`` word in ``error`` and a sentence in ``message``."""

    error: str
    message: str


# ---------------------------------------------------------------------------------- the lab


class LabSetting(TypedDict):
    """A setting the lab page offers: its name, what it means, how it is edited."""

    name: str
    text: str
    kind: SettingKind
    choices: NotRequired[list[str]]


class PatternText(TypedDict):
    """A slap pattern and what it means."""

    name: str
    text: str


FigureUnit = Literal["cards", "minutes", "count", "share difference"]
"""What a lab figure counts (`ratscrew.sim.figures.Unit`): a share difference is shown as points
of a percent."""


class FigureInfo(TypedDict):
    """A figure of the lab's report as the page shows it (`ratscrew.sim.figures.FIGURES`): where
    the report holds it (``length.mean_cards``), its label, its decimals and its unit."""

    name: str
    label: str
    digits: int
    unit: FigureUnit


class LabSettingsAnswer(TypedDict):
    """``GET /api/lab/settings``: the settings, the slap patterns, each preset's values, the
    bot levels, the report's figures, and the most games a job may ask for."""

    settings: list[LabSetting]
    patterns: list[PatternText]
    presets: list[RulesetSettings]
    levels: list[str]
    figures: list[FigureInfo]
    max_games: int | None


class LabJobStarted(TypedDict):
    """``POST /api/lab`` (202): the job's id, where to poll it, and the games it plays."""

    id: str
    url: str
    total: int


class Figure(TypedDict):
    """A figure with its 95% interval."""

    value: float
    low: float
    high: float


class WinShare(TypedDict):
    """A seat's share of the games with its interval (``seat`` null: games nobody won)."""

    seat: int | None
    share: float
    low: float
    high: float


class LengthFigures(TypedDict):
    """How long the games were: cards, and minutes at the bots' human pace."""

    mean_cards: Figure
    median_minutes: Figure
    p90_minutes: Figure
    mean_minutes: Figure


class MemoryVsSpeed(TypedDict):
    """A good memory against a fast hand: each one's share and the difference."""

    memory_bot: str
    fast_bot: str
    memory_share: Figure
    fast_share: Figure
    difference: Figure


class SignificantDifference(TypedDict):
    """A figure on which the rules differ from their preset beyond chance."""

    figure: str
    value: float
    preset: float
    difference: float


class LabFigures(TypedDict):
    """Every figure of one ruleset in the lab."""

    win_share: list[WinShare]
    length: LengthFigures
    slaps_per_game: Figure
    misslaps_per_game: Figure
    memory_vs_speed: MemoryVsSpeed


class PresetComparison(LabFigures):
    """The same figures for the preset the rules start from, the settings that differ, and the
    differences that are significant."""

    preset: str
    changed: dict[str, SettingValue]
    significant: list[SignificantDifference]


class LabReport(LabFigures):
    """The lab's report (`ratscrew.sim.lab.run_lab`): the rules' figures and the comparison."""

    compared_to: PresetComparison


class LabJobStatus(TypedDict):
    """``GET /api/lab/jobs/ID``: a job's state and progress; its place in the queue while
    ``queued``, its report once ``done``, why it stopped if ``failed``."""

    id: str
    state: JobState
    done: int
    total: int
    rules: str
    players: int
    position: NotRequired[int]
    report: NotRequired[LabReport]
    error: NotRequired[str]


# ---------------------------------------------------------------------------------- quick play


class PoolInfo(TypedDict):
    """One quick-play pool: its preset and table size, who waits in it and who plays from it."""

    rules: str
    players: int
    waiting: int
    playing: int


class PoolsAnswer(TypedDict):
    """``GET /api/pools``: every quick-play pool (issue 50)."""

    pools: list[PoolInfo]


# ---------------------------------------------------------------------------------- arenas (issue 50)

ArenaState = Literal["upcoming", "running", "finished", "cancelled"]
"""Where an arena is, by the server's clock (``cancelled``: by the operator)."""


class StandingLine(TypedDict):
    """One line of an arena's standings (`ratscrew.arenas.scoring.Standing`)."""

    rank: int
    player_id: str
    name: str
    score: int
    games: int
    wins: int
    streak: int


class ArenaAnswer(TypedDict):
    """``GET /api/arenas/ID`` (and each arena of ``GET /api/arenas``, whose ``standings`` are
    left empty): ``now`` is the server's clock, so a page's countdown does not trust its own;
    ``final`` says the standings are the stored final ones."""

    id: str
    url: str
    rules: str
    players: int
    state: ArenaState
    starts_at: float
    ends_at: float
    now: float
    final: bool
    standings: list[StandingLine]


class ArenasAnswer(TypedDict):
    """``GET /api/arenas``: upcoming, running and recently finished arenas."""

    arenas: list[ArenaAnswer]


class ArenaCreated(TypedDict):
    """``POST /api/arenas`` → 201."""

    id: str
    url: str


HTTP_ANSWERS: tuple[type, ...] = (RoomCreated, PresetsAnswer, BotsAnswer, LeaderboardAnswer, PlayerAnswer,
                                  PlayerExported, PlayerImported, CodedError, LabSettingsAnswer,
                                  LabJobStarted, LabJobStatus, PoolsAnswer, ArenaCreated, ArenasAnswer,
                                  ArenaAnswer)
"""Every HTTP answer typed here, in the order docs/protocol.md describes them."""
