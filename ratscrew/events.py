"""Events: what an action caused, in order, as small immutable records.

Every engine call returns a list of events. Views (terminal, server, bots) read events and
observations; they never look inside the engine. ``event.to_dict()`` gives a JSON-able form
with a ``kind`` key, for logs, websockets and records.

>>> from ratscrew.cards import Card
>>> CardPlayed(at=120, seat=1, card=Card.parse("7H")).to_dict()
{'kind': 'card_played', 'at': 120, 'seat': 1, 'card': '7H'}
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from ratscrew.cards import Card


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events: the time in ms and the seat it concerns (``None`` for the table)."""

    kind: ClassVar[str] = "event"
    at: int
    seat: int | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict: ``kind`` then every field, cards written in notation."""
        out: dict[str, Any] = {"kind": self.kind}
        for name in _field_names(type(self)):
            out[name] = _plain(getattr(self, name))
        return out

    def public_dict(self) -> dict[str, Any]:
        """What every client may be sent, players and spectators alike: `to_dict` without the
        identity of any card the rules keep face down (only `Misslap` has such cards)."""
        return self.to_dict()


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type[Event]) -> tuple[str, ...]:
    """An event class's field names, in order, looked up once (``dataclasses.fields`` builds
    its answer anew on every call, and a server writes events for every step)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """``seat`` played ``card`` face up onto the pile."""

    kind: ClassVar[str] = "card_played"
    card: Card


@dataclass(frozen=True, slots=True)
class ChallengeStarted(Event):
    """``seat`` played a face card: ``target`` has ``chances`` cards to answer with a face card."""

    kind: ClassVar[str] = "challenge_started"
    target: int
    chances: int
    card: Card


@dataclass(frozen=True, slots=True)
class ChallengePassed(ChallengeStarted):
    """``seat`` answered a challenge with a face card, passing a new challenge on to ``target``
    (a kind of `ChallengeStarted`, so code that handles starts handles passes too)."""

    kind: ClassVar[str] = "challenge_passed"


@dataclass(frozen=True, slots=True)
class ChallengeLost(Event):
    """``seat`` failed the challenge (or ran out of cards); ``winner`` is owed the pile.

    ``collect_at`` is when the pile goes to the winner automatically (``None`` when the winner
    must slap to claim it); ``exclusive_until`` is the end of the winner's own claim window.
    """

    kind: ClassVar[str] = "challenge_lost"
    winner: int
    collect_at: int | None
    exclusive_until: int | None


@dataclass(frozen=True, slots=True)
class SlapWon(Event):
    """``seat`` slapped a pile showing ``pattern`` (``"claim"`` for claiming a won challenge);
    ``top`` is the top of the pile (up to four cards, bottom to top) as it was slapped."""

    kind: ClassVar[str] = "slap_won"
    pattern: str
    top: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Misslap(Event):
    """``seat`` slapped a pile that could not be slapped, and paid ``penalty``.

    ``cards`` are the cards paid (burned or put in the penalty pile); ``pile_to`` is who got the
    pile under a ``give_pile`` penalty; ``why`` says what the pile looked like; ``slapped`` are
    the top cards of the pile that was slapped (up to three, bottom to top; empty for an empty
    pile).
    """

    kind: ClassVar[str] = "misslap"
    penalty: str
    cards: tuple[Card, ...]
    pile_to: int | None
    why: str
    slapped: tuple[Card, ...] = ()

    @property
    def cards_face_down(self) -> bool:
        """Whether the cards paid go face down: into the penalty pile, which nobody sees until
        its winner takes it (a ``burn`` puts them face up under the pile, for all to see)."""
        return self.penalty == "penalty_pile"

    def public_dict(self) -> dict[str, Any]:
        """`to_dict`, with ``paid`` (how many cards were paid) added and ``cards`` empty when
        they went face down.

        >>> from ratscrew.cards import parse_cards
        >>> Misslap(at=5, seat=1, penalty="penalty_pile", cards=tuple(parse_cards("QC TS")),
        ...         pile_to=None, why="no pattern").public_dict()["cards"]
        []
        """
        out = self.to_dict()
        out["paid"] = len(self.cards)
        if self.cards_face_down:
            out["cards"] = []
        return out


@dataclass(frozen=True, slots=True)
class SlapIgnored(Event):
    """A slap with no effect: ``late`` (too slow: the pile was taken ``margin_ms`` earlier by
    ``beaten_by``, and no card has been played since; no penalty) or ``void`` (the tie on this
    card was voided) or ``repeat`` (this seat already slapped in the open tie window)."""

    kind: ClassVar[str] = "slap_ignored"
    reason: str
    margin_ms: int | None = None
    """``late``: how long after the pile was taken this slap came."""
    beaten_by: int | None = None
    """``late``: who won the pile with a quicker slap (``None`` if it was taken otherwise)."""


@dataclass(frozen=True, slots=True)
class SlapTie(Event):
    """Several players slapped within the tie window; ``outcome`` is ``void`` or ``random``."""

    kind: ClassVar[str] = "slap_tie"
    seats: tuple[int, ...]
    outcome: str
    winner: int | None


@dataclass(frozen=True, slots=True)
class CardsBurned(Event):
    """``seat`` put ``cards`` face up under the pile (dead for patterns) because of ``reason``:
    ``misslap``, ``out_of_turn``, ``failure``, ``tribute``, ``resigned`` or ``misslaps``."""

    kind: ClassVar[str] = "cards_burned"
    cards: tuple[Card, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class PileWon(Event):
    """``seat`` took the pile (``cards`` cards, ``penalty_cards`` more from the penalty pile).

    ``reason``: ``slap``, ``challenge`` (collected automatically), ``claim`` (slapped to claim a
    won challenge) or ``misslap`` (handed over by someone else's misslap).
    """

    kind: ClassVar[str] = "pile_won"
    reason: str
    cards: int
    penalty_cards: int


@dataclass(frozen=True, slots=True)
class ClaimOpened(Event):
    """The challenge winner's own claim window ended: now anyone may slap to take the pile."""

    kind: ClassVar[str] = "claim_opened"


@dataclass(frozen=True, slots=True)
class PlayerOut(Event):
    """``seat`` has no cards left (``no_cards``), or left the game (``resigned``, ``misslaps``).

    ``may_slap_in`` says whether a valid slap can bring them back.
    """

    kind: ClassVar[str] = "player_out"
    reason: str
    may_slap_in: bool


@dataclass(frozen=True, slots=True)
class SlappedIn(Event):
    """``seat``, who had no cards, won a slap and is back in the game."""

    kind: ClassVar[str] = "slapped_in"


@dataclass(frozen=True, slots=True)
class PlayerBarred(Event):
    """``seat`` misslapped too often while out and may no longer slap in."""

    kind: ClassVar[str] = "player_barred"


@dataclass(frozen=True, slots=True)
class LockedOut(Event):
    """``seat`` may not slap until someone else wins a pile (a ``lockout`` misslap penalty)."""

    kind: ClassVar[str] = "locked_out"


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended. ``seat`` is the winner (``None``: nobody). ``reason``: ``all_cards``,
    ``last_holder``, ``triple``, ``triple_sixes``, ``nobody_wins``, ``cycle`` or ``time_limit``
    (an online room's time limit ran out: the player holding the most cards wins)."""

    kind: ClassVar[str] = "game_over"
    reason: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        CardPlayed, ChallengeStarted, ChallengePassed, ChallengeLost, SlapWon, Misslap, SlapIgnored, SlapTie,
        CardsBurned, PileWon, ClaimOpened, PlayerOut, SlappedIn, PlayerBarred, LockedOut,
        GameOver,
    )
}
"""Every event class by its ``kind``."""


def _quick_init(cls: type[Event]) -> None:
    """Give ``cls`` an ``__init__`` with the dataclass's own signature that sets the slots
    through their descriptors, rather than through ``object.__setattr__`` as a frozen
    dataclass does: the same fields, defaults and result, built in half the time (the engine
    builds an event or more on every action)."""
    names = [f.name for f in fields(cls)]
    namespace: dict[str, Any] = {}
    params = []
    for f in fields(cls):
        if f.default is MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__
    body = "".join(f"\n    _set_{name}(self, {name})" for name in names)
    exec(f"def __init__(self, {', '.join(params)}):{body}", namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = dict(cls.__init__.__annotations__)
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]


for _cls in EVENT_TYPES.values():
    _quick_init(_cls)
