"""Measure the integrity flags (`ratscrew.integrity`): replay human-like reaction traces and
scripted cheaters through the real judging (`ratscrew.server.room.judging.judge_on_link` with a real
`ratscrew.server.ws.link.LinkEstimate` fed by pings) and the real flagging, and print per kind the
share flagged and the slaps until flagged; then *played* traces (``--played``): whole games in
real rooms on the fake clock, reviewed as the server reviews them.

Synthetic traces. Human-like: the bots' reaction model (ex-Gaussian,
`ratscrew.bots.agent.draw_reaction_ms`) at every human level (beginner, casual, skilled,
expert), each with its variance; the counting levels (skilled, expert) also anticipate a pile
they saw coming 5% of the time (about 80 ms, as the bots do). Each trace is `HUMAN_SLAPS` slaps
on an honest link (20-120 ms round trip with jitter), checked after every slap as the server
checks after every game (a trace is flagged if any check flags it). Cheaters: `CHEAT_SLAPS`
slaps each, flagged when a check within the first `GOAL_SLAPS` flags it. Every slap is taken as
contested (a race on a slappable pile).

Played traces (issue 46). A person (`tests/people.py`: sees each state half its round trip after
it was sent, presses a reaction drawn from a bot level's model after seeing a slappable pile,
presses anyway when someone took the pile meanwhile, plays its turns, and stamps each press with
the shipped client's code, `ratscrew.client.reaction.ShownStates`) plays 2-seat classic games in
a real `ratscrew.server.room.room.Room` (real judging, engine, bots and store) against each bot level
and against a colluder who races 60% of its presses by 30 ms. Each player plays ``--games``
games (a five-minute time limit each) and is reviewed after each, as the server does
(`ratscrew.server.ladder.review.slap_samples` of the stored record, the latest
`ratscrew.integrity.WINDOW` true reactions, `assess`). The same rooms then hold scripts (the
five synthetic kinds, stamping as the client does, against an Expert bot), flagged if a check
within their first `GOAL_SLAPS` true reactions flags them, and a script imitating the expert
model (drawing from the Expert bot's own reaction model, and the same 60 ms quicker). The rooms
run on the fake clock in-process, not over websockets: games of minutes each would take hours of
wall time on a loaded 2-core machine; `benchmarks/fairness.py` covers the websocket path.

    PYTHONPATH=. python benchmarks/integrity.py [--humans-per-level 300] [--cheaters 200]
    PYTHONPATH=. python benchmarks/integrity.py --played [--players 3] [--games 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ratscrew.bots.agent import draw_reaction_ms
from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.integrity import WINDOW, SlapSample, assess
from ratscrew.server.room.judging import judge_on_link
from ratscrew.server.ws.link import LinkEstimate

HUMAN_LEVELS = ("beginner", "casual", "skilled", "expert")
HUMAN_SLAPS = 200
CHEAT_SLAPS = 60
GOAL_SLAPS = 30
ANTICIPATION_RATE = {"skilled": 0.05, "expert": 0.05}


@dataclass
class Player:
    """How one trace reacts (real reaction, reported reaction) and answers pings."""

    react: Callable[[random.Random], float]
    """The real time from seeing the pile to the slap leaving the client."""
    report: Callable[[float, random.Random], float]
    """What the client reports, from the real reaction."""
    ping_delay: Callable[[random.Random], float]
    """Extra delay the client adds to its pong answers (0 for an honest client)."""


def human(profile: BotProfile, anticipation: float) -> Player:
    """An honest person with the bots' reaction model."""
    def react(rng: random.Random) -> float:
        if rng.random() < anticipation:
            return max(20.0, rng.gauss(profile.anticipation_ms, profile.anticipation_ms / 4))
        return draw_reaction_ms(profile, rng)
    return Player(react, lambda real, rng: real, lambda rng: 0.0)


def scripted(react: Callable[[random.Random], float]) -> Player:
    """A script that reports its real (inhuman) reaction."""
    return Player(react, lambda real, rng: real, lambda rng: 0.0)


def humanised(profile: BotProfile, shift: float) -> Player:
    """A script drawing from a human model shifted ``shift`` ms faster."""
    return scripted(lambda rng: max(1.0, draw_reaction_ms(profile, rng) - shift))


def lag_cheat() -> Player:
    """Reports 0 ms, answers pings 200-400 ms late, reacts like a casual player."""
    return Player(lambda rng: draw_reaction_ms(LEVELS["casual"], rng), lambda real, rng: 0.0,
                  lambda rng: rng.uniform(200.0, 400.0))


def trace(player: Player, slaps: int, rng: random.Random) -> list[SlapSample]:
    """``slaps`` slaps judged as the room judges them (fair judging)."""
    base_rtt = rng.uniform(20.0, 120.0)
    link = LinkEstimate()

    def ping() -> None:
        link.add(base_rtt + rng.expovariate(1 / 8.0) + player.ping_delay(rng))

    for _ in range(5):
        ping()
    samples = []
    now = 1000.0
    for _ in range(slaps):
        ping()
        shown = now  # the server sends the pile
        one_way_out = base_rtt / 2 + rng.expovariate(1 / 4.0)
        real = player.react(rng)
        arrived = shown + one_way_out + real + base_rtt / 2 + rng.expovariate(1 / 4.0)
        reported = player.report(real, rng)
        verdict = judge_on_link("fair", link, arrived_at=arrived, shown_at=shown, reaction_ms=reported,
                                horizon=shown)
        samples.append(SlapSample(verdict.reaction_ms, reported, verdict.link_ms, verdict.clamped))
        now += rng.uniform(1500.0, 6000.0)
    return samples


def first_flag(samples: list[SlapSample], limit: int) -> int | None:
    """The number of slaps after which a check first flags, within ``limit``."""
    for n in range(1, min(limit, len(samples)) + 1):
        if assess(samples[:n]).flagged:
            return n
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--humans-per-level", type=int, default=300)
    parser.add_argument("--cheaters", type=int, default=200)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--played", action="store_true",
                        help="play whole games in rooms on the fake clock instead (see above)")
    parser.add_argument("--players", type=int, default=3,
                        help="played: players per human level and opponent (default 3)")
    parser.add_argument("--games", type=int, default=10,
                        help="played and websocket games: games per player (default 10)")
    parser.add_argument("--scripts", type=int, default=20, help="played: scripts per kind (default 20)")
    parser.add_argument("--pairs", nargs="*", metavar="LEVEL:OPPONENT",
                        help="played: only these honest pairings (e.g. expert:expert), no scripts")
    parser.add_argument("--websocket-games", type=int, default=0,
                        help="play this many games over real websockets instead (one-minute games)")
    parser.add_argument("--parallel", type=int, default=10, help="websocket games at once (default 10)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.websocket_games:
        over_websockets(args.websocket_games, args.parallel, rng, args.games)
        return
    if args.played:
        pairs = [(p.split(":")[0], p.split(":")[1]) for p in args.pairs] if args.pairs else None
        played(args.players, args.games, args.scripts, rng, pairs)
        return
    kinds: dict[str, Callable[[], Player]] = {
        "fixed 40 ms": lambda: scripted(lambda r: 40.0),
        "fixed 150 +- 5 ms": lambda: scripted(lambda r: r.uniform(145.0, 155.0)),
        "uniform 120-200 ms": lambda: scripted(lambda r: r.uniform(120.0, 200.0)),
        "humanised expert -120 ms": lambda: humanised(LEVELS["expert"], 120.0),
        "humanised skilled -120 ms": lambda: humanised(LEVELS["skilled"], 120.0),
        "lag cheat (0 ms, pings +200-400 ms)": lag_cheat,
    }
    print(f"{'kind':40} {'traces':>6} {'flagged':>9} {'slaps until flagged (median, max)':>36}")
    humans_flagged = humans = 0
    for level in HUMAN_LEVELS:
        flagged = []
        for _ in range(args.humans_per_level):
            n = first_flag(trace(human(LEVELS[level], ANTICIPATION_RATE.get(level, 0.0)),
                                 HUMAN_SLAPS, rng), HUMAN_SLAPS)
            if n is not None:
                flagged.append(n)
        humans += args.humans_per_level
        humans_flagged += len(flagged)
        print(f"{'human ' + level:40} {args.humans_per_level:6} "
              f"{100.0 * len(flagged) / args.humans_per_level:8.2f}% "
              f"{_until(flagged):>36}")
    print(f"{'all human-like traces':40} {humans:6} {100.0 * humans_flagged / humans:8.2f}%"
          f"   (goal: at most 0.1%, {HUMAN_SLAPS} slaps each, checked after every slap)")
    for kind, make in kinds.items():
        flagged = []
        for _ in range(args.cheaters):
            n = first_flag(trace(make(), CHEAT_SLAPS, rng), GOAL_SLAPS)
            if n is not None:
                flagged.append(n)
        print(f"{kind:40} {args.cheaters:6} {100.0 * len(flagged) / args.cheaters:8.2f}% "
              f"{_until(flagged):>36}")
    print(f"(goal: at least 95% of every scripted kind flagged within {GOAL_SLAPS} slaps)")


# ------------------------------------------------------------------------------ played traces

PLAYED_TIME_LIMIT_MS = 300_000
"""Each played game ends after five minutes of room time at the latest (a two-person game may
otherwise go on for ever)."""
OPPONENTS = ("beginner", "casual", "skilled", "expert", "colluder")


def _played_game(react: Callable[[], float], opponent: str, seed: int,
                 rng: random.Random) -> list[SlapSample]:
    """One 2-seat classic game of a person (``react`` draws its reaction) against ``opponent``
    (a bot level, or ``colluder``); the person's true reactions as the review reads them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from online import make_room
    from people import Colluder, Person, play

    from ratscrew.server.ladder.review import slap_samples

    people: list[Any] = []

    def table(number: int) -> tuple[Any, Any, list[Any]]:
        bots = [] if opponent == "colluder" else [opponent]
        room, wall = make_room(seats=2, bots=bots, seed=seed, turn_timeout_ms=60_000)
        room.settings.time_limit_ms = PLAYED_TIME_LIMIT_MS
        person = Person(room, "Ann", rng.uniform(20.0, 120.0), react)
        people[:] = [person]
        if opponent == "colluder":
            people.append(Colluder(room, "Col", 10.0, person, 0.6, rng))
        return room, wall, people

    record = play(table, games=1)[0]
    seat = people[0].seat
    return [] if seat is None else slap_samples(record, seat)


def played(players: int, games: int, scripts: int, rng: random.Random,
           pairs: list[tuple[str, str]] | None = None) -> None:
    """Print the played traces' figures (see the module docstring); ``pairs`` (person level,
    opponent) narrows the honest games to those, and leaves the scripts out."""
    started = time.monotonic()
    seed = 460_000
    print(f"Played traces: 2-seat classic, rooms on the fake clock, {games} games per player "
          f"(5-minute limit), reviewed after every game\n")
    print(f"{'person':10} {'opponent':10} {'players':>7} {'games':>6} {'reactions':>9} "
          f"{'flagged players':>16} {'flagged reviews':>16} {'mean reaction':>14}")
    total_games = total_reviews = flagged_reviews = total_players = flagged_players = 0
    for level, opponent in pairs or [(lv, op) for lv in HUMAN_LEVELS for op in OPPONENTS]:
        profile = LEVELS[level]
        reactions: list[float] = []
        level_flagged = level_reviews = level_players_flagged = 0

        def react(profile: BotProfile = profile) -> float:
            return draw_reaction_ms(profile, rng)

        for _ in range(players):
            samples: list[SlapSample] = []
            flagged = False
            for _ in range(games):
                seed += 1
                samples += _played_game(react, opponent, seed, rng)
                level_reviews += 1
                verdict = assess(samples[-WINDOW:])
                if samples and verdict.flagged:
                    level_flagged += 1
                    if not flagged:
                        print(f"  flagged: a {level} person against {opponent}, after "
                              f"{len(samples)} reactions: {'; '.join(verdict.reasons)}")
                    flagged = True
            level_players_flagged += flagged
            reactions += [s.reaction_ms for s in samples if s.reaction_ms is not None]
        total_games += players * games
        total_reviews += level_reviews
        flagged_reviews += level_flagged
        total_players += players
        flagged_players += level_players_flagged
        mean = statistics.fmean(reactions) if reactions else float("nan")
        print(f"{level:10} {opponent:10} {players:7} {players * games:6} {len(reactions):9} "
              f"{level_players_flagged:9} ({100.0 * level_players_flagged / players:4.1f}%) "
              f"{level_flagged:8} ({100.0 * level_flagged / level_reviews:4.1f}%) {mean:11.0f} ms")
    print(f"{'all':21} {total_players:7} {total_games:6} {'':9} "
          f"{flagged_players:9} ({100.0 * flagged_players / total_players:4.2f}%) "
          f"{flagged_reviews:8} ({100.0 * flagged_reviews / total_reviews:4.2f}%)")
    print(f"(goal: at most 0.1% of at least 1,000 games flagged; "
          f"{time.monotonic() - started:.0f} s so far)\n")
    if pairs:
        return

    expert = LEVELS["expert"]
    kinds: dict[str, Callable[[], float]] = {
        "fixed 40 ms": lambda: 40.0,
        "fixed 150 +- 5 ms": lambda: rng.uniform(145.0, 155.0),
        "uniform 120-200 ms": lambda: rng.uniform(120.0, 200.0),
        "humanised expert -120 ms": lambda: max(1.0, draw_reaction_ms(expert, rng) - 120.0),
        "humanised skilled -120 ms": lambda: max(1.0, draw_reaction_ms(LEVELS["skilled"], rng) - 120.0),
        "imitating the expert model": lambda: draw_reaction_ms(expert, rng),
        "imitating the expert -60 ms": lambda: max(1.0, draw_reaction_ms(expert, rng) - 60.0),
    }
    print(f"Scripts against an Expert bot, stamping as the client does, {scripts} each "
          f"(flagged within their first {GOAL_SLAPS} true reactions):")
    print(f"{'kind':30} {'scripts':>7} {'games':>6} {'flagged':>9} {'reactions until flagged':>24} "
          f"{'counted per game':>17}")
    for kind, script in kinds.items():
        flagged_at: list[int] = []
        played_games = 0
        counted = 0
        for _ in range(scripts):
            samples = []
            for _ in range(8):  # until GOAL_SLAPS true reactions, at most 8 games
                seed += 1
                samples += _played_game(script, "expert", seed, rng)
                played_games += 1
                if len(samples) >= GOAL_SLAPS:
                    break
            n = first_flag(samples, GOAL_SLAPS)
            if n is not None:
                flagged_at.append(n)
            counted += len(samples)
        print(f"{kind:30} {scripts:7} {played_games:6} {100.0 * len(flagged_at) / scripts:8.1f}% "
              f"{_until(flagged_at):>24} {counted / max(1, played_games):17.1f}")
    print(f"(goal: at least 95% of each of the five script kinds flagged within {GOAL_SLAPS} true "
          f"reactions; {time.monotonic() - started:.0f} s in all)")


# ------------------------------------------------------------------ over real websockets

WEBSOCKET_TIME_LIMIT_MS = 60_000
"""A websocket game ends after a minute of play (the shortest time limit a room takes)."""


async def _websocket_game(url: str, level: str, opponent: str, rng: random.Random) -> list[SlapSample]:
    """One game over a real websocket: a person of ``level`` (the played traces' model: a
    reaction after seeing a slappable pile, a press anyway if someone took it meanwhile, stamped
    with the shipped client's `ShownStates`) against a bot of ``opponent`` level; the person's
    true reactions in the stored record, as the review reads them."""
    import asyncio

    import httpx
    from scripted import ScriptedPlayer

    from ratscrew.cards import parse_cards
    from ratscrew.client.reaction import ShownStates
    from ratscrew.patterns import find_slap
    from ratscrew.ruleset import Ruleset
    from ratscrew.server.ladder.review import slap_samples

    classic = Ruleset.preset("classic")
    profile = LEVELS[level]
    shown = ShownStates()
    acted: set[tuple[str, int]] = set()
    tasks: set[asyncio.Task[None]] = set()

    async def press(player: ScriptedPlayer, kind: str, delay_ms: float) -> None:
        await asyncio.sleep(delay_ms / 1000.0)
        stamp = shown.reaction_to(player.loop_time)
        if stamp is not None:
            player.act(kind, stamp[1], stamp[0])

    async def on_state(player: ScriptedPlayer, state: dict[str, Any]) -> None:
        shown.shown(int(state["version"]), at=player.loop_time)
        observation = state["observation"]
        seat, cards = observation["seat"], observation["cards_played"]
        if observation["over"] or seat is None:
            return
        pile = parse_cards(" ".join(observation["pile"]))
        if (("slap", cards) not in acted and observation["may"]["slap"][seat]
                and find_slap(pile, classic.slaps, classic.pattern_options) is not None):
            acted.add(("slap", cards))
            task = asyncio.create_task(press(player, "slap", draw_reaction_ms(profile, rng)))
        elif observation["turn"] == seat and ("play", cards) not in acted:
            acted.add(("play", cards))
            task = asyncio.create_task(press(player, "play", 500.0))
        else:
            return
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        response = await http.post("/api/rooms", json={
            "rules": "classic", "seats": 2, "bots": [opponent], "turn_timeout_ms": 60_000,
            "time_limit_ms": WEBSOCKET_TIME_LIMIT_MS})
        response.raise_for_status()
        code = response.json()["code"]
        rtt = rng.uniform(20.0, 120.0)
        person = ScriptedPlayer("Ann", rtt / 2, 3.0, rng.randrange(1 << 30), on_state)
        try:
            await person.connect(f"{url}/ws/{code}")
            person.send({"type": "join", "name": "Ann"})
            await asyncio.wait_for(person.seen("welcome").wait(), 30)
            await asyncio.sleep(0.8)  # the first quick pings
            person.send({"type": "start"})
            await asyncio.wait_for(person.seen("game_over").wait(), WEBSOCKET_TIME_LIMIT_MS / 1000 + 120)
            over = next(m for _, _, m in person.messages if m["type"] == "game_over")
            record = (await http.get(f"/api/games/{over['game_id']}/record")).json()
        finally:
            await person.close()
    seat = person.seat
    return [] if seat is None else slap_samples(record, seat)


def over_websockets(games: int, parallel: int, rng: random.Random, games_per_person: int = 10) -> None:
    """Play ``games`` one-minute games over real websockets (a ``ratscrew serve`` on loopback),
    ``parallel`` at once: people of every level against every bot level in turn, each person
    playing ``games_per_person`` games against one level. Print how many finished, the true
    reactions counted, and the people and reviews flagged, a person's review reading all its
    games so far after each one (as the ladder's review does)."""
    import asyncio

    from scripted import running_server

    pairs = [(level, opponent) for level in HUMAN_LEVELS for opponent in HUMAN_LEVELS]
    started = time.monotonic()
    results: dict[int, tuple[str, str, list[SlapSample] | None]] = {}

    async def run(url: str) -> None:
        gate = asyncio.Semaphore(parallel)

        async def one(index: int) -> None:
            level, opponent = pairs[(index // games_per_person) % len(pairs)]
            async with gate:
                try:
                    results[index] = (level, opponent, await _websocket_game(url, level, opponent, rng))
                except (TimeoutError, OSError, StopIteration) as error:
                    print(f"a game failed: {error!r}", file=sys.stderr)
                    results[index] = (level, opponent, None)

        await asyncio.gather(*(one(i) for i in range(games)))

    with running_server() as server:
        asyncio.run(run(server.url))
    finished = {i: r for i, r in results.items() if r[2] is not None}
    counted = sum(len(r[2] or []) for r in finished.values())
    people = flagged_people = reviews = flagged_reviews = 0
    for person in range(0, games, games_per_person):
        samples: list[SlapSample] = []
        flagged = False
        for index in range(person, min(games, person + games_per_person)):
            if index not in finished:
                continue
            samples += finished[index][2] or []
            reviews += 1
            verdict = assess(samples[-WINDOW:])
            if samples and verdict.flagged:
                flagged_reviews += 1
                if not flagged:
                    level, opponent, _ = finished[index]
                    print(f"  flagged: a {level} person against {opponent}, after {len(samples)} "
                          f"reactions: {'; '.join(verdict.reasons)}")
                flagged = True
        people += 1
        flagged_people += flagged
    print(f"Over real websockets: {len(finished)} of {games} one-minute games finished "
          f"({time.monotonic() - started:.0f} s), {counted} true reactions counted; "
          f"{people} people of {games_per_person} games each: {flagged_people} flagged, "
          f"{flagged_reviews} of {reviews} reviews flagged "
          f"({100.0 * flagged_reviews / max(1, reviews):.2f}%; goal: at most 0.1%)")
    for level in HUMAN_LEVELS:
        mine = [r for r in finished.values() if r[0] == level]
        reactions = [s.reaction_ms for r in mine for s in r[2] or [] if s.reaction_ms is not None]
        mean = statistics.fmean(reactions) if reactions else float("nan")
        print(f"  {level:10} {len(mine):4} games {len(reactions):5} reactions, mean {mean:4.0f} ms")


def _until(flagged: list[int]) -> str:
    return "-" if not flagged else f"{statistics.median(flagged):.0f}, {max(flagged)}"


if __name__ == "__main__":
    main()
