"""Whether a finished game counts on a preset's ladder, and if not, why: one decision,
`rating_verdict`, fed by plain facts about the game (`GameFacts`), so every reason a game is
not rated lives here and nowhere else (docs/online.md, "What is rated").

The facts come from the stored game (`game_facts`: its record and results) and from the store
(earlier quick resignations between the same keys, flagged players); the rating
(`ratscrew.server.ladder.ratings.rate`) asks for the verdict before it changes anyone's rating.

In the order they are checked, a game is **unrated** when:

1. its rules are not a preset's *by content* (`rules_are_preset`): a custom TOML that calls
   itself ``classic`` with one setting changed is "custom rules (unrated)";
2. its deal was seeded (its creator knew the first cards before the deal);
3. it was abandoned: every person at the table had been gone for the server's abandon time
   (`ratscrew.server.room.absence`), so nobody won it;
4. a player in it is flagged by the integrity review (`ratscrew.integrity`) and not cleared;
5. it was **aborted**: with two or more keyed players at the table, one of them resigned or
   left before the game really started, that is within `ABORT_WITHIN_MS` of game time having
   played fewer than `ABORT_OWN_CARDS` of their own cards (time-outs playing for them do not
   count), and fewer than two rated participants (keyed people and bots) are left once the
   early leavers are taken out. With others left, the early leaver voids only their own part
   (`LEFT_EARLY`): they are taken out of the match like a guest, and the others' game stays
   rated, so a stranger who sits down and resigns cannot unrate a table's game. With one
   keyed player (the rest bots or guests) an early resignation is just a loss: it buys no one
   a rating (guests are not rated, the bots' ratings are the server's) and costs only the one
   who resigned;
6. it was **farmed**: it ended in a quick resignation (a person resigned within
   `QUICK_RESIGN_MS`) and the same keys already had `FARM_REPEATS` such games within
   `ratscrew.storage.terms.FARM_WINDOW_S`.

Otherwise it is **rated**, except that a seat whose actions were mostly (more than
`ABSENT_SHARE`) made by turn time-outs or a stand-in bot gains nothing from it: its rating
may go down (a loss counts, as when a lichess player lets the clock run out) but never up.

A rating grows only from opponents who count (`counts_as_opponent`): an opponent who took
part (a bot, or a person who slapped or won a pile in the game: someone who only turns cards
over is not playing ERS) and is **established** (a bot, or a player with rated games in the
ruleset against `ratscrew.storage.terms.MIN_OPPONENTS` different opponents before this game). A person whose
opponents in a game all fail that keeps their rating as it was (`NO_ESTABLISHED_OPPONENT`;
their loss still counts), as lichess limits what a win over a provisional player is worth, so
a farm of fresh or idle keys buys nothing. The same test ranks a player: only established
opponents count towards their `ratscrew.storage.terms.MIN_OPPONENTS` (`ratscrew.storage.queries.ranked`).

>>> rating_verdict(GameFacts(rules_preset=False))
Unrated(reason='custom rules (unrated)')
>>> rating_verdict(GameFacts(rules_preset=True))
Rated(gains_nothing=frozenset(), left_early=frozenset())
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ratscrew.ruleset import PRESET_NAMES, Ruleset, RulesetError

CUSTOM_RULES = "custom rules (unrated)"
"""Why a game under rules that are not a preset's (by content) is not rated; the room says it too."""
SEEDED = "seeded room: its creator chose the deal"
ABANDONED = "abandoned: everyone left, and nobody won (unrated)"
FLAGGED = "a player in it is under integrity review (unrated)"
ABORTED = "aborted: a player resigned or left before the game really started (unrated)"
LEFT_EARLY = "left before the game really started: this seat's part is unrated"
"""Why an early leaver's seat is left out of a game the others play out (rated for them)."""
NO_ESTABLISHED_OPPONENT = ("no rating gain: no opponent in this game was established on the "
                           "ladder and playing (rated games against 3 different players, "
                           "and a slap or a pile won here)")
"""Why a person's win left their rating as it was (a loss still counts)."""
FARMED = "farmed: the same players keep ending games in quick resignations (unrated)"

ABORT_OWN_CARDS = 3
"""A person who leaves having played fewer of their own cards than this ..."""
ABORT_WITHIN_MS = 30_000
"""... within this much game time aborts the game (lichess aborts a game left before each side
has moved; ERS has no moves to count, so cards played and seconds stand in)."""
QUICK_RESIGN_MS = 120_000
"""A resignation within this much game time is a quick one (a real ERS game runs minutes)."""
FARM_REPEATS = 1
"""Earlier quick resignations between the same keys (in `ratscrew.storage.terms.FARM_WINDOW_S`)
that make the next one farmed: once may be someone called away; twice is a pattern."""
ABSENT_SHARE = 0.5
"""A seat with more than this share of its actions made by time-outs or a stand-in bot gains
nothing from the game."""


@dataclass(frozen=True)
class Rated:
    """The game is rated; the seats in ``gains_nothing`` were mostly played for them, those in
    ``left_early`` are taken out of the match (`LEFT_EARLY`)."""

    gains_nothing: frozenset[int] = frozenset()
    left_early: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Unrated:
    """The game is not rated, for ``reason`` (shown on the room, records and player pages)."""

    reason: str


Verdict = Rated | Unrated


@dataclass(frozen=True)
class SeatFacts:
    """What rating needs to know of one person's seat (bots' seats are not described).

    ``actions``: the seat's accepted actions; ``own_actions``: those the person sent
    (the rest were turn time-outs or collections made for them); ``stand_in_actions``: those a
    stand-in bot made (counted by the room that seats one); ``own_cards_at_exit``: cards the
    person played themselves before ``exit_at_ms``, the game time they resigned or, for a seat
    time-outs played on for, their last own action (``None``: never left).
    """

    seat: int
    player_id: str | None = None
    actions: int = 0
    own_actions: int = 0
    stand_in_actions: int = 0
    resigned_at_ms: int | None = None
    exit_at_ms: int | None = None
    own_cards_at_exit: int = 0

    @property
    def played_for_share(self) -> float:
        """The share of the seat's actions made by time-outs or a stand-in bot.

        >>> SeatFacts(0, actions=10, own_actions=3).played_for_share
        0.7
        """
        if self.actions <= 0:
            return 0.0
        played_for = max(0, self.actions - self.own_actions) + self.stand_in_actions
        return min(1.0, played_for / self.actions)

    @property
    def left_early(self) -> bool:
        """Resigned or left within `ABORT_WITHIN_MS` having played fewer than
        `ABORT_OWN_CARDS` of their own cards."""
        return (self.exit_at_ms is not None and self.exit_at_ms < ABORT_WITHIN_MS
                and self.own_cards_at_exit < ABORT_OWN_CARDS)

    @property
    def quick_resign(self) -> bool:
        """Resigned within `QUICK_RESIGN_MS`."""
        return self.resigned_at_ms is not None and self.resigned_at_ms < QUICK_RESIGN_MS


@dataclass(frozen=True)
class GameFacts:
    """The plain facts `rating_verdict` decides from (each branch adds its own at merge)."""

    rules_preset: bool
    """The rules equal a preset's by content (`rules_are_preset`)."""
    seeded: bool = False
    """The room was created with a ``seed``: its creator knew the deal."""
    abandoned: bool = False
    """Every person left the game for good (`ratscrew.server.room.absence`)."""
    people: tuple[SeatFacts, ...] = ()
    """Every person's seat (keyed or guest)."""
    earlier_quick_resigns: int = 0
    """Quick resignations in the last `ratscrew.storage.terms.FARM_WINDOW_S` between keys of this
    game's players."""
    flagged: frozenset[str] = frozenset()
    """Player ids in this game under an integrity flag not cleared."""
    bots: int = 0
    """Bot seats: rated participants that never leave."""

    @property
    def quick_resign(self) -> bool:
        """A keyed person resigned this game quickly (`QUICK_RESIGN_MS`)."""
        return any(p.quick_resign and p.player_id for p in self.people)


def rating_verdict(facts: GameFacts) -> Verdict:
    """Whether the game is rated, and if not why (see the module docstring for the order)."""
    if not facts.rules_preset:
        return Unrated(CUSTOM_RULES)
    if facts.seeded:
        return Unrated(SEEDED)
    if facts.abandoned:
        return Unrated(ABANDONED)
    if facts.flagged:
        return Unrated(FLAGGED)
    keyed = [p for p in facts.people if p.player_id]
    left_early = frozenset(p.seat for p in keyed if p.left_early) if len(keyed) >= 2 else frozenset()
    if left_early and len(keyed) - len(left_early) + facts.bots < 2:
        return Unrated(ABORTED)
    if facts.quick_resign and facts.earlier_quick_resigns >= FARM_REPEATS:
        return Unrated(FARMED)
    return Rated(frozenset(p.seat for p in facts.people if p.played_for_share > ABSENT_SHARE), left_early)


def counts_as_opponent(participant: str, *, bot: bool, established: frozenset[str],
                       took_part: bool) -> bool:
    """Whether a win over ``participant`` may raise a rating (see the module docstring): a bot
    always; a person when established (``established``: the game's participants with rated
    games against `ratscrew.storage.terms.MIN_OPPONENTS` different opponents before it) and
    taking part in the game (a slap or a pile won).

    >>> counts_as_opponent("bot:casual", bot=True, established=frozenset(), took_part=True)
    True
    >>> counts_as_opponent("AnnPublic123", bot=False, established=frozenset({"AnnPublic123"}),
    ...                    took_part=False)
    False
    """
    return bot or (took_part and participant in established)


# ---------------------------------------------------------------------------------- rules


def rules_are_preset(rules: Ruleset) -> bool:
    """Whether ``rules`` are the preset they are named after, setting by setting (the summary
    line aside): a look-alike named ``classic`` with one setting changed is not.

    >>> import dataclasses
    >>> classic = Ruleset.preset("classic")
    >>> rules_are_preset(classic), rules_are_preset(dataclasses.replace(classic, summary="mine"))
    (True, True)
    >>> rules_are_preset(dataclasses.replace(classic, jokers=not classic.jokers))
    False
    """
    if rules.name not in PRESET_NAMES:
        return False
    preset = Ruleset.preset(rules.name)
    return dataclasses.replace(rules, summary=preset.summary) == preset


def rules_verdict(rules: Ruleset) -> str | None:
    """Why a game under ``rules`` would not be rated whoever plays it (``None``: it may be):
    what the room shows before a game starts."""
    return None if rules_are_preset(rules) else CUSTOM_RULES


def room_verdict(rules: Ruleset, *, seeded: bool) -> str | None:
    """Why a room's games are not rated whoever plays them and however they end (``None``: they
    may be): its rules are not a preset's, or its deal was seeded. What a finished game's record
    says in ``unrated`` from the start.

    >>> room_verdict(Ruleset.preset("classic"), seeded=True)
    'seeded room: its creator chose the deal'
    >>> room_verdict(Ruleset.preset("classic"), seeded=False) is None
    True
    """
    return rules_verdict(rules) or (SEEDED if seeded else None)


def record_rules_are_preset(record: Mapping[str, Any], rules_name: str) -> bool:
    """`rules_are_preset` for a game record's rules; a record whose rules do not read is not,
    and a record that holds no rules at all is judged by the ruleset name it was stored under."""
    if "rules" not in record:
        return rules_name in PRESET_NAMES
    try:
        return rules_are_preset(Ruleset.from_dict(dict(record.get("rules") or {})))
    except (RulesetError, TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------- from a record


def people_facts(record: Mapping[str, Any],
                 people: Iterable[tuple[int, str | None]]) -> tuple[SeatFacts, ...]:
    """Each person's `SeatFacts` from a game record (``people``: seat and player id, ``None``
    for a guest). A person's own actions are the accepted entries of the record's ``judging``
    for their seat; the seat's other actions were made for them (time-outs, collections).
    ``stand_in`` in the record (actions per seat made by a stand-in bot), when present, is
    counted too."""
    actions: Sequence[Sequence[Any]] = record.get("actions") or []
    judging: Sequence[Mapping[str, Any]] = record.get("judging") or []
    stand_in: Mapping[str, Any] = record.get("stand_in") or {}
    facts = []
    for seat, player_id in people:
        mine = [a for a in actions if len(a) >= 3 and a[1] == seat and a[0] in ("play", "slap", "resign")]
        own = [j for j in judging if j.get("seat") == seat and j.get("accepted", True)]
        resigned = next((int(a[2]) for a in mine if a[0] == "resign"), None)
        exit_at = resigned
        if exit_at is None and len(own) < len(mine):  # others acted for the seat: when did the person stop?
            last_own = max((int(j.get("judged_at", 0)) for j in own), default=0)
            later_for_them = any(int(a[2]) > last_own for a in mine)
            exit_at = last_own if later_for_them else None
        own_cards = sum(1 for j in own if j.get("kind") == "play"
                        and (exit_at is None or int(j.get("judged_at", 0)) <= exit_at))
        facts.append(SeatFacts(seat, player_id, len(mine), min(len(own), len(mine)),
                               int(stand_in.get(str(seat), 0) or 0), resigned, exit_at, own_cards))
    return tuple(facts)


def game_facts(record: Mapping[str, Any], people: Iterable[tuple[int, str | None]], *,
               rules_name: str = "", earlier_quick_resigns: int = 0,
               flagged: Iterable[str] = (), bots: int = 0) -> GameFacts:
    """The `GameFacts` of a finished game from its record and its people (and its bot seats)."""
    room: Mapping[str, Any] = record.get("room") or {}
    return GameFacts(rules_preset=record_rules_are_preset(record, rules_name),
                     seeded=bool(record.get("seeded") or room.get("seeded")),
                     abandoned=bool(record.get("abandoned")), people=people_facts(record, people),
                     earlier_quick_resigns=earlier_quick_resigns, flagged=frozenset(flagged),
                     bots=bots)
