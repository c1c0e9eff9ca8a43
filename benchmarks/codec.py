"""Which JSON library the server encodes and validates with: the standard library, orjson, msgspec.

Encoding: a ``state`` message as a room sends it in a game of four (the public part with a
step's events and lines, one seat's observation), taken from a real game midway. Decoding and
validating: the frames a loaded server receives most (``slap``/``play`` with a reaction stamp and
a version, ``pong``), through

- ``json.loads`` and ``orjson.loads`` alone: parsing, no checks;
- ``orjson`` + checks: what the server does (:func:`ratscrew.protocol.client_messages.parse_client_message`);
- ``msgspec`` structs: a tagged union of typed structs with range constraints, decoded in one
  call (msgspec's own error texts; the server's field-by-field messages would need a second pass).

Usage: ``.venv/bin/python benchmarks/codec.py [--rounds N]``. msgspec is optional (``pip install
msgspec``); without it that row is left out. Prints microseconds per call, best of 5 rounds;
nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import orjson

from ratscrew.engine import Game
from ratscrew.narrate import describe_event
from ratscrew.playout import play_simple_game
from ratscrew.protocol.client_messages import parse_client_message
from ratscrew.ruleset import Ruleset

FRAMES = ['{"type":"slap","reaction_ms":231.5,"version":1234}',
          '{"type":"play","reaction_ms":480,"version":1235}',
          '{"type":"pong","id":77}']


def typical_state() -> dict[str, Any]:
    """A state message from the middle of a seeded four-player classic game."""
    rules = Ruleset.preset("classic")
    finished, _ = play_simple_game(rules, players=4, seed=3)
    record = finished.to_record()
    middle = len(record["actions"]) // 2
    game = Game.from_record({**record, "actions": record["actions"][: middle - 3]})
    events = [event for number in range(middle - 3, middle)
              for event in game.replay_action(number, record["actions"][number])]
    names = ["Ann", "Bob", "Cara", "Dev"]
    return {"type": "state", "version": 412, "game": 1, "settle_ms": 38,
            "events": [event.to_dict() for event in events],
            "lines": [describe_event(event, names) for event in events],
            "observation": game.observe(0)}


def per_call_us(work: Callable[[], object], calls: int, rounds: int = 5) -> float:
    """Best of ``rounds`` timings of ``calls`` calls, in microseconds per call."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            work()
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def msgspec_decoder() -> Callable[[str], object] | None:
    """A msgspec decoder for the same frames, or ``None`` without msgspec."""
    try:
        import msgspec
    except ImportError:
        return None
    from typing import Annotated

    reaction = Annotated[float, msgspec.Meta(ge=0, le=60_000)]
    number = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
    act_fields = [("reaction_ms", reaction | None, None), ("version", number | None, None)]
    slap = msgspec.defstruct("Slap", act_fields, tag="slap", forbid_unknown_fields=True)
    play = msgspec.defstruct("Play", act_fields, tag="play", forbid_unknown_fields=True)
    pong = msgspec.defstruct("Pong", [("id", number)], tag="pong", forbid_unknown_fields=True)
    decoder = msgspec.json.Decoder(slap | play | pong)
    decode: Callable[[str], object] = decoder.decode
    return decode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20_000, help="calls per timing (default 20000)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be positive")
    state = typical_state()
    size = len(orjson.dumps(state))
    print(f"encode a state of {size} bytes ({len(state['events'])} events), us per message:")
    encoders: list[tuple[str, Callable[[], object]]] = [
        ("json.dumps (compact)", lambda: json.dumps(state, separators=(",", ":"))),
        ("orjson.dumps", lambda: orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS).decode()),
    ]
    try:
        import msgspec
        encoders.append(("msgspec.json.encode", lambda: msgspec.json.encode(state).decode()))
    except ImportError:
        print("  (msgspec not installed: its row is left out)")
    for name, work in encoders:
        print(f"  {name:<28}{per_call_us(work, args.rounds // 4):>8.2f}")
    print(f"decode and validate {len(FRAMES)} frames (slap, play, pong), us per frame:")
    decoders: list[tuple[str, Callable[[str], object]]] = [
        ("json.loads only (no checks)", json.loads),
        ("orjson.loads only (no checks)", orjson.loads),
        ("orjson + hand-written checks", parse_client_message),
    ]
    decode = msgspec_decoder()
    if decode is not None:
        decoders.append(("msgspec typed structs", decode))
    for name, parse in decoders:
        cost = sum(per_call_us(partial(parse, frame), args.rounds) for frame in FRAMES) / len(FRAMES)
        print(f"  {name:<28}{cost:>8.2f}")


if __name__ == "__main__":
    main()
