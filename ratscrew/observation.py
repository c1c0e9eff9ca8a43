"""The observation's vocabulary: what `Game.observe` returns, as types, and who may act.

One home for the words every reader of an observation shares: the bots, the learning
environments, the terminal game and the online server (which sends the observation as it is,
see docs/protocol.md) all read the types from here; the engine builds them. Nothing here
imports the server or a client.

A seat's status is one of `SEAT_STATUSES`; the statuses whose seat may, as a rule, slap are
`SLAPPING_STATUSES`. Who may play and slap is :meth:`ratscrew.engine.Game.may`'s to say (its
exceptions are in `SLAPPING_STATUSES`'s note), and the observation's ``may`` carries it for
every seat: readers use it rather than work it out from statuses.

>>> sorted(SLAPPING_STATUSES)
['in', 'out']
>>> SEAT_STATUSES
('in', 'locked', 'out', 'barred', 'eliminated', 'watching')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, get_args

SeatStatus = Literal["in", "locked", "out", "barred", "eliminated", "watching"]
"""A seat's status (`Game.status`): ``in`` (holding cards or owed a pile), ``locked`` (holding
cards but may not slap until someone else wins a pile), ``out`` (no cards, may slap in),
``barred`` (may no longer slap in), ``eliminated`` (out for good) or ``watching`` (an outsider
who may not slap in)."""

SEAT_STATUSES: tuple[SeatStatus, ...] = get_args(SeatStatus)
"""Every status, in the order `SeatStatus` lists them."""

SLAPPING_STATUSES: frozenset[SeatStatus] = frozenset({"in", "out"})
"""The statuses whose seat may, as a rule, slap: what the bots' model (`ratscrew.bots.agent`,
the simulation kernel and its reference) reads, unchanged so that their games stay the same.
`Game.may` is the whole rule: a seat owed the pile of a lost challenge may slap to claim it
whatever its status, and a locked-out seat that ran out of cards shows ``out`` but may not slap
until someone else wins a pile."""

ActKind = Literal["play", "slap"]
"""The actions `Game.may` answers for."""

ACT_KINDS: tuple[ActKind, ...] = get_args(ActKind)


class ChallengeView(TypedDict):
    """The face-card challenge in progress: ``target`` owes ``chances_left`` more cards to the
    ``card`` (in notation) that ``challenger`` played."""

    challenger: int
    target: int
    chances_left: int
    card: str


class CollectionView(TypedDict):
    """A lost challenge whose pile waits for ``winner``: collected at ``collect_at`` (automatic
    collection) or claimed by a slap, ``winner``'s alone until ``exclusive_until``, then anyone's
    (``open_to_all``)."""

    winner: int
    collect_at: int | None
    exclusive_until: int | None
    open_to_all: bool


class MayView(TypedDict):
    """Who may act now, seat by seat: ``play[seat]`` and ``slap[seat]`` are
    ``Game.may(seat, "play")`` and ``Game.may(seat, "slap")``."""

    play: list[bool]
    slap: list[bool]


class Observation(TypedDict):
    """What a seat (or a spectator, ``seat`` ``None``) sees: `Game.observe`'s result, keys in
    this order. No face-down card is ever in it; everything but ``seat`` is the same for every
    seat. Cards are in notation (``7H``, ``TD``, ``JK``), piles bottom to top."""

    seat: int | None
    now: int
    rules: str
    players: int
    turn: int | None
    pile: list[str]
    pile_played_by: list[int]
    burned: list[str]
    penalty_pile: int
    hand_sizes: list[int]
    status: list[SeatStatus]
    challenge: ChallengeView | None
    collection: CollectionView | None
    tie_window_until: int | None
    cards_played: int
    tricks: int
    over: bool
    winner: int | None
    end_reason: str | None
    may: MayView


def observed_may(observation: Mapping[str, Any] | None, seat: int | None, kind: ActKind) -> bool:
    """Whether ``seat`` may ``kind`` by the observation's ``may``: how a client holding an
    observation that came over the network (a plain mapping) reads `Game.may`, never working
    it out from statuses. No seat, no observation or one without ``may``: ``False``.
    (The browser's twin is ``mayAct`` in ratscrew/web/js/format.js.)

    >>> view = {"may": {"play": [True, False], "slap": [True, True]}}
    >>> observed_may(view, 1, "play"), observed_may(view, 1, "slap"), observed_may(view, None, "slap")
    (False, True, False)
    """
    may = observation.get("may") if observation is not None else None
    if seat is None or not isinstance(may, Mapping):
        return False
    seats = may.get(kind)
    return isinstance(seats, list) and 0 <= seat < len(seats) and seats[seat] is True
