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
from dataclasses import dataclass

from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardPlayed, Event, PileWon
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
    plans: dict[tuple[int, str], int] = {}  # (seat, "play"/"slap") -> when
    now = 0

    def replan(new_events: list[Event]) -> None:
        if any(isinstance(e, (CardPlayed, PileWon)) for e in new_events):
            plans.clear()
        turn = game.turn
        if turn is not None and (turn, "play") not in plans:
            plans[(turn, "play")] = now + rng.randint(*style.pace_ms)
        if game.rules.collect == "slap" and (award := game.award) is not None and (
                (award.winner, "slap") not in plans):
            plans[(award.winner, "slap")] = now + rng.randint(*style.reaction_ms)
        if not any(isinstance(e, CardPlayed) for e in new_events):
            return
        slappable = game.slap_pattern() is not None
        for seat in range(game.players):
            if (slappable or rng.random() < style.misslap_chance) and game.status(seat) in ("in", "out"):
                plans[(seat, "slap")] = now + rng.randint(*style.reaction_ms)

    replan([])
    while not game.over and game.cards_played < style.max_cards:
        deadline = game.next_deadline
        if plans:
            (seat, kind), when = min(plans.items(), key=lambda item: (item[1], item[0]))
        else:
            seat, kind, when = -1, "", -1
        if deadline is not None and (not plans or deadline <= when):
            now = max(now, deadline)
            new = game.advance(now)
        elif plans:
            del plans[(seat, kind)]
            now = max(now, when)
            try:
                new = game.play(seat, now) if kind == "play" else game.slap(seat, now)
            except IllegalActionError:
                new = []
        else:
            break
        events.extend(new)
        replan(new)
    return game, events
