"""Simple built-in players and a virtual clock: whole games with no outside input.

These players are deliberately plain (a steady pace, a fixed reaction window, an occasional
misslap); they drive ``ratscrew watch``, the engine benchmark and the property tests. The
human-like bots with reaction-time models live in :mod:`ratscrew.bots`.

>>> from ratscrew.ruleset import Ruleset
>>> game, events = play_simple_game(Ruleset.preset("classic"), players=3, seed=4)
>>> game.over
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardPlayed, Event, PileWon
from ratscrew.observation import SLAPPING_STATUSES
from ratscrew.ruleset import Ruleset


@dataclass(frozen=True)
class SimplePlayers:
    """How the simple players behave: pace between cards, reaction to a slappable pile, and
    how often someone slaps a pile that cannot be slapped."""

    pace_ms: tuple[int, int] = (350, 900)
    reaction_ms: tuple[int, int] = (180, 650)
    misslap_chance: float = 0.02
    max_cards: int = 20_000


def play_simple_game(
    rules: Ruleset,
    players: int,
    seed: int,
    style: SimplePlayers | None = None,
    game: Game | None = None,
) -> tuple[Game, list[Event]]:
    """Play a seeded game to the end between simple players under a virtual clock.

    Returns the game and every event in order. A game still running after ``max_cards`` card
    plays is left unfinished (``game.over`` is false) so a caller can report it.
    """
    style = style or SimplePlayers()
    rng = random.Random(seed)
    if game is None:
        game = Game.deal(rules, players=players, seed=seed)
    events: list[Event] = []
    # What each seat means to do and when: key ``2 * seat`` to play, ``2 * seat + 1`` to slap,
    # so the earliest plan, ties broken by seat and then play before slap, is the least
    # (when, key) pair.
    plans: dict[int, int] = {}
    now = 0
    # The players' decisions are half of what a benchmark of whole games measures, so this
    # loop is written for speed; it draws the same numbers in the same order as ever (a game
    # replays identically): `pace()` and `react()` are `rng.randint` over the style's ranges.
    pace, react = _drawer(rng, style.pace_ms), _drawer(rng, style.reaction_ms)
    chance, random_ = style.misslap_chance, rng.random
    claims = game.rules.collect == "slap"
    seats = range(game.players)
    play, slap, advance, status = game.play, game.slap, game.advance, game.status
    slap_pattern, max_cards = game.slap_pattern, style.max_cards
    new: list[Event] = []
    while True:
        # Plan after what just happened (nothing, the first time round).
        played = cleared = False
        for event in new:
            if isinstance(event, CardPlayed):
                played = cleared = True
                break
            if isinstance(event, PileWon):
                cleared = True
        if cleared:
            plans.clear()
        turn = game.turn
        if turn is not None and 2 * turn not in plans:
            plans[2 * turn] = now + pace()
        if claims and (award := game.award) is not None and 2 * award.winner + 1 not in plans:
            plans[2 * award.winner + 1] = now + react()
        if played:
            if slap_pattern() is not None:
                for seat in seats:
                    if status(seat) in SLAPPING_STATUSES:
                        plans[2 * seat + 1] = now + react()
            else:
                for seat in seats:
                    if random_() < chance and status(seat) in SLAPPING_STATUSES:
                        plans[2 * seat + 1] = now + react()
        # Then act: the earliest plan, or the engine's timer if it falls due first.
        if game.over or game.cards_played >= max_cards:
            break
        deadline = game.next_deadline
        if plans:
            if len(plans) == 1:  # as often as not, only the turn's next card is planned
                ((key, when),) = plans.items()
            else:
                when, key = min(zip(plans.values(), plans.keys(), strict=True))
            if deadline is not None and deadline <= when:
                if deadline > now:
                    now = deadline
                new = advance(now)
            else:
                del plans[key]
                if when > now:
                    now = when
                try:
                    new = slap(key >> 1, now) if key & 1 else play(key >> 1, now)
                except IllegalActionError:
                    new = []
        elif deadline is not None:
            if deadline > now:
                now = deadline
            new = advance(now)
        else:
            break
        events.extend(new)
    return game, events


def _drawer(rng: random.Random, bounds: tuple[int, int]) -> Callable[[], int]:
    """``rng.randint(*bounds)`` as a function of no arguments: the same number from the same
    state, with `randint`'s argument handling done once. For plain int bounds in order and a
    plain `random.Random`, `randint` comes down to ``low`` plus `_randbelow_with_getrandbits`
    of the width, which is written out here; anything else calls `randint` itself."""
    low, high = bounds
    if (type(low) is int and type(high) is int and high >= low and type(rng)._randbelow  # type: ignore[attr-defined]
            is random.Random._randbelow_with_getrandbits):  # type: ignore[attr-defined]
        width = high - low + 1
        bits, getrandbits = width.bit_length(), rng.getrandbits

        def draw() -> int:
            r = getrandbits(bits)
            while r >= width:
                r = getrandbits(bits)
            return low + r

        return draw
    return lambda: rng.randint(low, high)
