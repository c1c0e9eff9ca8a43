"""A fingerprint of the engine's behaviour: one hash over many seeded games, for speed work.

Run it before and after changing the engine (or the simple players): the hash must not move.
``.venv/bin/python benchmarks/engine_fingerprint.py`` prints one SHA-256 per part and a total:

- ``playout``: whole games between the simple players of :mod:`ratscrew.playout`, every preset
  and a few variants that reach the rules no preset uses (random ties, lockouts, slap
  collection, the next player paying a challenge, no finishing out, ...), 2 to 8 seats, steady
  and clumsy players, some with outsiders. Hashed: every event (its class and ``to_dict()``),
  every accepted action, and the final observation, zones, statuses and record result.
- ``chaos``: random calls of the public API with bad arguments mixed in (seats out of range,
  bools, floats, times going backwards, actions after the end). Hashed: each call's events
  or its error class and message, and the spectator's observation after every call, so that
  a refused action is seen to leave the game exactly as it was.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import time
from typing import Any

from ratscrew.cards import shuffled_deck
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import Event
from ratscrew.playout import SimplePlayers, play_simple_game
from ratscrew.ruleset import Ruleset


def variants() -> list[Ruleset]:
    """Every preset, and variants of classic and northwest for the rules no preset uses."""
    rules = [Ruleset.preset(name) for name in Ruleset.presets()]
    classic, northwest = Ruleset.preset("classic"), Ruleset.preset("northwest")
    replace = dataclasses.replace
    rules += [
        replace(classic, name="v-random-tie", tie_policy="random", tie_window_ms=120),
        replace(classic, name="v-lockout", misslap_penalty="lockout", collect="slap",
                claim_window_ms=400),
        replace(classic, name="v-next-pays", challenge_out_of_cards="next_player_pays",
                misslap_out_after=2, slap_in_bar_after=2),
        replace(classic, name="v-no-finish", finishing_out=False, last_holder_plays_turn=True,
                out_of_turn="burn", double_burn=True),
        replace(northwest, name="v-northwest-hard", joker_slap_tribute=True, failure_rule=True,
                joker_chances=2, resign_bars_slap_in=True, triple_wins_game=True,
                triple_sixes_lose=True, slaps=("triple", "double", "sandwich", "joker"),
                first_player="highest_bottom_card", out_of_cards="out"),
        replace(classic, name="v-patterns", slaps=("top_bottom", "add_to_ten", "marriage",
                "divorce", "run", "sixty_nine"), run_length=3, run_wraps=True,
                misslap_penalty="give_pile"),
    ]
    return rules


STEADY = SimplePlayers()
CLUMSY = SimplePlayers(misslap_chance=0.15, reaction_ms=(20, 400), max_cards=3000)


def _event_text(event: Event) -> str:
    return type(event).__name__ + json.dumps(event.to_dict(), sort_keys=True)


def _state_text(game: Game) -> str:
    state: dict[str, Any] = {
        "observe": game.observe(None),
        "zones": {name: [str(c) for c in cards] for name, cards in game.zones().items()},
        "status": [game.status(s) for s in range(game.players)],
        "result": game.to_record()["result"],
        "deadline": game.next_deadline, "pattern": game.slap_pattern(),
        "actions": game.action_count,
    }
    return json.dumps(state, sort_keys=True)


def playout_part(digest: Any, scale: int) -> int:
    games = 0
    for rules in variants():
        for players in range(2, min(rules.max_players, 8) + 1):
            for seed in range(scale):
                style = CLUMSY if seed % 3 == 2 else STEADY
                outsiders = 1 if seed % 4 == 3 and players < rules.max_players else 0
                game = Game.deal(rules, players=players, seed=seed, outsiders=outsiders)
                game, events = play_simple_game(rules, players=players, seed=seed, style=style,
                                                game=game)
                digest.update(f"{rules.name} {players} {seed} {len(events)}\n".encode())
                for event in events:
                    digest.update(_event_text(event).encode())
                digest.update(repr(game.actions_since(0)).encode())
                digest.update(_state_text(game).encode())
                if seed == 0:
                    again = Game.from_record(json.loads(json.dumps(game.to_record())))
                    digest.update(_state_text(again).encode())
                games += 1
    return games


BAD_SEATS: list[Any] = [-1, True, 1.0, None, "0", 99]


def chaos_part(digest: Any, scale: int) -> int:
    calls = 0
    for number, rules in enumerate(variants()):
        for seed in range(3 * scale):
            rng = random.Random(seed * 1000 + number)
            players = rng.randint(2, min(rules.max_players, 6))
            if seed % 3 == 0:  # a few cards each: the endings come quickly
                deck = shuffled_deck(seed, rules.jokers)[:rng.randint(players, 4 * players)]
                game = Game(rules, [deck[s::players] for s in range(players)], seed=seed)
            else:
                game = Game.deal(rules, players=players, seed=seed, outsiders=rng.randint(0, 1)
                                 if players < rules.max_players else 0)
            now = 0
            for _ in range(600):
                roll = rng.random()
                seat: Any = rng.randrange(game.players)
                if roll < 0.03:
                    seat = rng.choice(BAD_SEATS)
                at: Any = now + rng.choice((0, 1, 5, 20, 29, 30, 31, 200, 450, 1200))
                if roll > 0.985:
                    at = rng.choice((now - 1, -5, float(now), True, 2**60))
                kind = rng.choices(("play", "slap", "resign", "advance"), (60, 30, 0.5, 9.5))[0]
                try:
                    events: list[Event] = (game.advance(at) if kind == "advance"
                                           else getattr(game, kind)(seat, at))
                    text = "|".join(_event_text(e) for e in events)
                    if type(at) is int and at >= now:
                        now = at
                except IllegalActionError as error:
                    text = f"{type(error).__name__}: {error}"
                digest.update(f"{kind} {seat!r} {at!r} {text}\n".encode())
                digest.update(json.dumps(game.observe(None), sort_keys=True).encode())
                if calls % 7 == 0:
                    digest.update(json.dumps(game.observe(calls % game.players)).encode())
                calls += 1
                if game.over and rng.random() < 0.1:
                    break
            digest.update(_state_text(game).encode())
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=6,
                        help="seeds per rules and seat count (default 6: 486 whole games)")
    args = parser.parse_args()
    total = hashlib.sha256()
    for name, part in (("playout", playout_part), ("chaos", chaos_part)):
        digest = hashlib.sha256()
        start = time.perf_counter()
        count = part(digest, args.scale)
        total.update(digest.digest())
        unit = "games" if name == "playout" else "calls"
        print(f"{name:<8} {digest.hexdigest()}  ({count} {unit}, "
              f"{time.perf_counter() - start:.1f} s)")
    print(f"{'total':<8} {total.hexdigest()}")


if __name__ == "__main__":
    main()
