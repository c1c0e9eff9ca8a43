"""Plain-English lines for engine events: the one place a game is put into words for people.

Used by ``ratscrew watch``, the terminal game's log and replays, and for the words of a refused
action (`refusal_text`): the terminal game's status line and the server's ``illegal`` error.

>>> from ratscrew.cards import Card
>>> from ratscrew.events import CardPlayed
>>> describe_event(CardPlayed(at=1500, seat=0, card=Card.parse("KH")), names=["Ann", "Bob"])
'Ann plays K♥'

A penalty says what was slapped, why it was wrong and what it cost; a slower hand on a pile
someone else just won pays nothing:

>>> from ratscrew.cards import parse_cards
>>> from ratscrew.events import Misslap, SlapIgnored
>>> describe_event(Misslap(at=9, seat=2, penalty="burn", cards=tuple(parse_cards("3D")), pile_to=None,
...                        why="no pattern on 7H 4C", slapped=tuple(parse_cards("7H 4C"))),
...                names=["Ann", "Bob", "Cara"])
'Cara slapped 7♥ 4♣: no pattern. Cara burns 1 card (3♦) under the pile'
>>> describe_event(SlapIgnored(at=9, seat=1, reason="late", margin_ms=38, beaten_by=0), ["Ann", "Bob"])
'Bob slapped too, but Ann was 38 ms quicker: no penalty, since being slower is not a mistake'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ratscrew.cards import Card
from ratscrew.errors import GameOverError, NoCardsError, NotYourTurnError, SlapNotAllowedError
from ratscrew.events import (
    CardPlayed,
    CardsBurned,
    ChallengeLost,
    ChallengeStarted,
    ClaimOpened,
    Event,
    GameOver,
    LockedOut,
    Misslap,
    PileWon,
    PlayerBarred,
    PlayerOut,
    SlapIgnored,
    SlappedIn,
    SlapTie,
    SlapWon,
)
from ratscrew.runtime import Rejection, TablePausedError

_FACE_NAMES = {11: "Jack", 12: "Queen", 13: "King", 14: "Ace", 15: "Joker"}


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(card.pretty() for card in cards)


def seat_names(players: int) -> list[str]:
    """Default names: ``Player 1`` … (seat numbers are 0-based inside the engine)."""
    return [f"Player {seat + 1}" for seat in range(players)]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _misslap_line(event: Misslap, who: Callable[[int | None], str]) -> str:
    """What was slapped, why it was wrong and what it cost, in one line."""
    name = who(event.seat)
    if event.slapped:
        what = f"{name} slapped {_cards(event.slapped)}: no pattern"
    elif event.why == "the pile is empty":
        what = f"{name} slapped an empty pile"
    else:
        what = f"{name} misslapped ({event.why})"
    paid = len(event.cards)
    cost = {
        "burn": f"{name} burns {_plural(paid, 'card')} ({_cards(event.cards)}) under the pile" if paid
        else f"{name} has no card to burn",
        "penalty_pile": f"{name} puts {_plural(paid, 'card')} on the penalty pile",
        "give_pile": f"the pile goes to {who(event.pile_to)}" if event.pile_to is not None
        else "there is no pile to give away",
        "lockout": f"{name} may not slap until someone else wins a pile",
        "none": "no penalty: these rules do not punish a misslap",
    }[event.penalty]
    return f"{what}. {cost[0].upper()}{cost[1:]}"


TOO_SLOW_IS_NOT_WRONG = "being slower is not a mistake"
"""Why a slap that came too slow on a pile someone had just won costs nothing (at a table the slower
hand lands on the quicker one)."""
NO_MISSLAP = f"no penalty, since {TOO_SLOW_IS_NOT_WRONG}"


def late_slap_line(slapper: str, margin_ms: int | None, quicker: str | None) -> str:
    """A slap too slow on a won pile (the engine's ``SlapIgnored(reason="late")``): who was
    quicker and by how much, and why it costs nothing.

    >>> late_slap_line("Bob", 0, "Ann").split(": ")[0]
    'Bob slapped too, in the same ms as Ann, who came first'
    >>> late_slap_line("Bob", 120, None)
    'Bob slapped 120 ms after the pile was taken: no penalty, since being slower is not a mistake'
    """
    if margin_ms is None:
        return f"{slapper} slapped after the pile was won: {NO_MISSLAP}"
    if quicker is None:
        return f"{slapper} slapped {margin_ms} ms after the pile was taken: {NO_MISSLAP}"
    if margin_ms == 0:
        return f"{slapper} slapped too, in the same ms as {quicker}, who came first: {NO_MISSLAP}"
    return f"{slapper} slapped too, but {quicker} was {margin_ms} ms quicker: {NO_MISSLAP}"


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One sentence for an event, naming seats by ``names``."""

    def who(seat: int | None) -> str:
        return "nobody" if seat is None else names[seat]

    if isinstance(event, CardPlayed):
        return f"{who(event.seat)} plays {event.card.pretty()}"
    if isinstance(event, ChallengeStarted):
        face = _FACE_NAMES.get(int(event.card.rank), "face card")
        plural = "chance" if event.chances == 1 else "chances"
        return f"{face}! {who(event.target)} has {event.chances} {plural} to play a face card"
    if isinstance(event, ChallengeLost):
        if event.seat == event.winner:  # nobody had cards to answer: the face card wins
            answered = f"Nobody can answer {who(event.winner)}'s face card"
        else:
            answered = f"{who(event.seat)} found no face card"
        if event.collect_at is not None:
            return f"{answered}: the pile goes to {who(event.winner)}"
        return f"{answered}: {who(event.winner)} must slap to claim the pile"
    if isinstance(event, SlapWon):
        if event.pattern == "claim":
            return f"{who(event.seat)} slaps to claim the pile"
        shown = f" ({_cards(event.top)})" if event.top else ""
        return f"{who(event.seat)} slaps a {event.pattern.replace('_', ' ')}{shown}"
    if isinstance(event, Misslap):
        return _misslap_line(event, who)
    if isinstance(event, SlapIgnored):
        if event.reason == "late":
            return late_slap_line(who(event.seat), event.margin_ms,
                                  None if event.beaten_by is None else who(event.beaten_by))
        why = {"void": "the tie on this card was voided", "repeat": "already slapped"}[event.reason]
        return f"{who(event.seat)}'s slap does not count: {why}"
    if isinstance(event, SlapTie):
        tied = ", ".join(who(s) for s in event.seats)
        if event.outcome == "void":
            return f"Tie between {tied}: play on as if nobody slapped"
        return f"Tie between {tied}: the draw goes to {who(event.winner)}"
    if isinstance(event, CardsBurned):
        reason = {"misslap": "for a misslap", "out_of_turn": "for playing out of turn",
                  "failure": "for failing a Joker", "tribute": "in tribute to a Joker sandwich",
                  "resigned": "on resigning", "misslaps": "on misslapping out of the game"}
        return f"{who(event.seat)} burns {_cards(event.cards)} {reason.get(event.reason, '')}".rstrip()
    if isinstance(event, PileWon):
        extra = f" and {event.penalty_cards} penalty card(s)" if event.penalty_cards else ""
        ways = {"slap": "", "challenge": " with a face card", "claim": " by claiming it",
               "misslap": " from someone's misslap", "last_holder": " as the last player with cards"}
        return f"{who(event.seat)} takes the pile ({event.cards} cards{extra}){ways.get(event.reason, '')}"
    if isinstance(event, ClaimOpened):
        return f"{who(event.seat)} did not claim in time: anyone may slap to take the pile"
    if isinstance(event, PlayerOut):
        if event.reason == "resigned":
            return f"{who(event.seat)} resigns"
        if event.reason == "misslaps":
            return f"{who(event.seat)} misslapped too often and is out of the game"
        back = " (may slap back in)" if event.may_slap_in else ""
        return f"{who(event.seat)} is out of cards{back}"
    if isinstance(event, SlappedIn):
        return f"{who(event.seat)} slaps back in!"
    if isinstance(event, PlayerBarred):
        return f"{who(event.seat)} misslapped too often and may no longer slap in"
    if isinstance(event, LockedOut):
        return f"{who(event.seat)} is locked out of slapping until someone else wins a pile"
    if isinstance(event, GameOver):
        endings = {"all_cards": "holds every card and wins", "last_holder": "is the last with cards and wins",
                   "triple": "slapped a triple and wins the game",
                   "time_limit": "holds the most cards when time is up and wins"}
        if event.reason == "triple_sixes":
            return "Triple sixes were slapped: everyone loses"
        if event.reason == "cycle":
            return "The game repeats itself forever: nobody wins"
        if event.reason == "nobody_wins":
            return "The last cards ran out before the pile was won: nobody wins"
        return f"{who(event.seat)} {endings.get(event.reason, 'wins')}"
    return event.kind


def refusal_text(rejection: Rejection, name: str, observation: Mapping[str, Any],
                 names: Sequence[str]) -> str:
    """Why the engine refused a person's key press or click, in words (the engine's reason, with
    names instead of seat numbers): the terminal game's status line and the server's ``illegal``
    error."""
    error = rejection.error
    if isinstance(error, TablePausedError):
        return "The game is paused."
    if isinstance(error, GameOverError):
        return "The game is over."
    status = observation["status"][rejection.seat]
    if observation["hand_sizes"][rejection.seat] == 0 and rejection.intent.kind == "play":
        if status == "out":
            return f"{name}: you have no cards; win a valid slap to get back in."
        return f"{name}: you have no cards and are out of the game."
    if isinstance(error, NotYourTurnError):
        turn = observation.get("turn")
        if turn is None:
            return f"{name}: wait, the pile is still to be collected."
        return f"{name}: not your turn, {names[turn]} plays next."
    if isinstance(error, NoCardsError):
        return f"{name}: you have no cards to play."
    if isinstance(error, SlapNotAllowedError):
        why = {"locked": "locked out until someone else wins a pile",
               "barred": "barred from slapping in", "eliminated": "out of the game",
               "watching": "not allowed to slap in"}.get(status, "not allowed")
        return f"{name} may not slap: {why}."
    return f"{name}: {error}"
