"""The Table: one scheduler driving a Game under a virtual clock and under the real clock."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardPlayed, Event, PileWon, SlapWon
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import (
    MAX_CONSECUTIVE_REJECTIONS,
    Answer,
    HumanAgent,
    Intent,
    Observation,
    RealClock,
    Rejection,
    Table,
)

CLASSIC = Ruleset.preset("classic")


class Dealer:
    """Plays its card ``pace`` ms after its turn comes; slaps nothing."""

    def __init__(self, pace: float = 500) -> None:
        self.pace = pace
        self.seen: list[Event] = []
        self.rejected: list[tuple[Intent, IllegalActionError]] = []

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        return self.on_events([], observation)

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        self.seen.extend(events)
        if observation["turn"] == observation["seat"]:
            return [Intent("play", observation["now"] + self.pace)]
        return []

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        self.rejected.append((intent, error))
        return None


class Scripted:
    """Acts exactly as told at the start, then never again."""

    def __init__(self, *intents: Intent) -> None:
        self.intents = list(intents)
        self.rejected: list[Intent] = []

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        return self.intents

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        return None

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        self.rejected.append(intent)
        return None


def kinds(events: Sequence[Event]) -> list[tuple[str, int | None, int]]:
    return [(e.kind, e.seat, e.at) for e in events]


# ------------------------------------------------------------------ virtual clock


def test_virtual_run_plays_a_whole_game_between_dealers() -> None:
    game = Game.deal(CLASSIC, players=3, seed=11)
    table = Table(game, [Dealer(), Dealer(400), Dealer(700)], max_cards=5000)
    events = table.run_virtual()
    assert table.stop_reason in ("game_over", "max_cards")
    assert events == table.events
    plays = [e for e in events if isinstance(e, CardPlayed)]
    assert len(plays) == game.cards_played
    assert all(a.at <= b.at for a, b in itertools.pairwise(events))


def test_engine_timers_are_honoured_without_any_action() -> None:
    # Seat 0 plays a jack; seat 1 answers with a three and loses the challenge. Nobody acts
    # after that: the table advances the engine when the grace window ends.
    game = Game(CLASSIC, hands=["JH 2C", "3D 4S"], leader=0)
    table = Table(game, [Scripted(Intent("play", 100)), Scripted(Intent("play", 600))])
    events = table.run_virtual()
    won = [e for e in events if isinstance(e, PileWon)]
    assert len(won) == 1
    assert (won[0].seat, won[0].reason, won[0].at) == (0, "challenge", 600 + CLASSIC.grace_ms)
    assert table.stop_reason == "idle"


def test_a_new_answer_replaces_pending_intents_and_none_keeps_them() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)

    class ChangesItsMind(Scripted):
        def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
            if any(isinstance(e, CardPlayed) and e.seat == 0 for e in events):
                return []  # seat 0 played: cancel the planned play at 5000
            return None

    slow = ChangesItsMind(Intent("play", 5000))
    table = Table(game, [Scripted(Intent("play", 100)), slow])
    table.start()
    assert table.pending(1) == [Intent("play", 5000)]
    table.fire_due(100)
    assert table.pending(1) == []
    assert table.run_virtual() and game.cards_played == 1


def test_an_illegal_intent_is_refused_the_agent_is_told_and_nothing_crashes() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    out_of_turn = Scripted(Intent("play", 50))
    heard: list[Rejection] = []
    table = Table(game, [Scripted(Intent("play", 100)), out_of_turn])
    table.add_rejection_listener(heard.append)
    table.run_virtual()
    assert out_of_turn.rejected == [Intent("play", 50)]
    assert [r.seat for r in heard] == [1] and "turn" in heard[0].reason
    assert game.cards_played == 1


def test_an_agent_that_keeps_asking_for_the_impossible_stalls_the_run_not_the_program() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)

    class Stubborn(Scripted):
        def on_rejected(self, intent: Intent, error: IllegalActionError,
                        observation: Observation) -> Answer:
            return [intent]

    table = Table(game, [None, Stubborn(Intent("play", 10))])
    table.run_virtual()
    assert table.stop_reason == "stalled"
    assert len(table.rejections) == MAX_CONSECUTIVE_REJECTIONS


def test_an_intent_in_the_past_happens_now() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)

    class Late(Scripted):
        def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
            return [Intent("slap", 0)] if len(observation["pile"]) == 2 else None

    table = Table(game, [Scripted(Intent("play", 100)), Late(Intent("play", 300))])
    events = table.run_virtual()
    assert ("slap_won", 1, 300) in kinds(events)


def test_slaps_in_the_same_millisecond_go_to_the_earlier_exact_time_not_the_lower_seat() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D", "4C"], leader=0)
    table = Table(game, [Scripted(Intent("play", 100), Intent("slap", 400.7)),
                         Scripted(Intent("play", 200), Intent("slap", 400.2)),
                         None])
    events = table.run_virtual()
    winners = [e.seat for e in events if isinstance(e, SlapWon)]
    assert winners[0] == 1


def test_max_cards_stops_a_long_game() -> None:
    game = Game.deal(CLASSIC, players=2, seed=3)
    table = Table(game, [Dealer(), Dealer()], max_cards=10)
    table.run_virtual()
    assert table.stop_reason == "max_cards" and game.cards_played == 10


def test_submit_performs_everything_due_before_it_first() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    table = Table(game, [Scripted(Intent("play", 100)), HumanAgent()])
    events = table.submit(1, "play", at=250)
    assert kinds(table.events) == [("card_played", 0, 100), ("card_played", 1, 250)]
    assert kinds(events) == [("card_played", 1, 250)]
    assert table.submit(1, "play", at=300) == []  # not seat 1's turn: refused, no crash
    assert len(table.rejections) == 1


def test_agents_see_only_their_observation_and_the_events() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    seen: list[Observation] = []

    class Watcher(Scripted):
        def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
            seen.append(observation)
            return None

    Table(game, [Scripted(Intent("play", 100)), Watcher()]).run_virtual()
    assert seen and all(o["seat"] == 1 for o in seen)
    assert all("3D" not in str(o) for o in seen)  # seat 1's own face-down card is never shown


# ------------------------------------------------------------------ real clock


def test_real_clock_scales_and_pauses() -> None:
    wall = [10.0]
    clock = RealClock(speed=4.0, wall=lambda: wall[0])
    wall[0] = 10.5
    assert clock.now() == 2000.0
    clock.pause()
    wall[0] = 20.0
    assert clock.now() == 2000.0
    clock.resume()
    wall[0] = 20.25
    assert clock.now() == 3000.0
    assert clock.seconds_until(5000) == 0.5


async def test_realtime_run_plays_a_game_and_listeners_hear_every_event() -> None:
    game = Game.deal(CLASSIC, players=2, seed=5)
    heard: list[Event] = []
    table = Table(game, [Dealer(), Dealer()], max_cards=30)
    table.add_listener(heard.extend)
    events = await asyncio.wait_for(table.run_realtime(speed=200.0), timeout=10)
    assert table.stop_reason in ("max_cards", "game_over")
    assert heard == events and len(events) >= 30
    # 30 cards at 500 ms each is 15 s of table time, so at speed 200 about 0.08 s.


async def test_a_human_key_press_is_stamped_with_the_table_clock() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    human = HumanAgent()
    table = Table(game, [Scripted(Intent("play", 100)), human])
    runner = asyncio.create_task(table.run_realtime(speed=10.0))
    while game.cards_played < 1:  # the bot's card lands after 10 ms of real time
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.03)
    human.press("play")  # seat 1 lays 7S on 7H...
    human.press("slap")  # ...and slaps the double
    assert human.observation is not None and human.observation["hand_sizes"][1] == 3
    won = [e for e in table.events if isinstance(e, SlapWon)]
    assert won and won[0].seat == 1 and won[0].at >= 100 + 300
    human.press("slap")  # a second slap right after the win is too slow, not wrong
    assert table.events[-1].kind == "slap_ignored"
    await asyncio.sleep(0.06)
    human.press("slap")  # 600 ms later (at speed 10) the pile is long gone: a misslap, not a crash
    assert any(e.kind == "misslap" for e in table.events)
    table.stop()
    await asyncio.wait_for(runner, timeout=2)
    assert table.stop_reason == "stopped"


async def test_a_person_who_leads_starts_the_game_clock_with_the_first_card() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    human = HumanAgent()
    wall = [100.0]
    table = Table(game, [human, Dealer()])
    runner = asyncio.create_task(table.run_realtime(wall=lambda: wall[0]))
    await asyncio.sleep(0)  # the run has started: nobody but the person can act
    wall[0] += 26 * 60  # they look at the table for 26 minutes before playing
    assert table.now == 0.0
    human.press("play")
    assert [(e.kind, e.at) for e in table.events] == [("card_played", 0)]
    wall[0] += 0.25
    assert table.now == 250.0  # from the first card on, the clock runs
    table.stop()
    await asyncio.wait_for(runner, timeout=2)


async def test_a_bot_who_leads_starts_the_clock_at_once() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    wall = [100.0]
    table = Table(game, [Scripted(Intent("play", 10_000)), HumanAgent()])
    runner = asyncio.create_task(table.run_realtime(wall=lambda: wall[0]))
    await asyncio.sleep(0)
    wall[0] += 2.0
    assert table.now == 2000.0
    table.stop()
    await asyncio.wait_for(runner, timeout=2)


async def test_pause_freezes_bots_and_refuses_key_presses_until_resume() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    human = HumanAgent()
    table = Table(game, [Scripted(Intent("play", 200)), human])
    runner = asyncio.create_task(table.run_realtime(speed=5.0))
    await asyncio.sleep(0)
    table.pause()
    await asyncio.sleep(0.08)  # 400 table-ms would have passed: the bot's play is still due
    assert game.cards_played == 0 and table.paused
    assert human.press("slap") == [] and human.last_rejection == "the game is paused"
    table.resume()
    table.speed = 50.0
    await asyncio.sleep(0.05)
    assert game.cards_played == 1
    table.stop()
    await asyncio.wait_for(runner, timeout=2)


def test_the_view_an_agent_gets_is_exactly_what_the_engine_shows_its_seat() -> None:
    game = Game.deal(Ruleset.preset("northwest"), players=3, seed=2)
    mismatches: list[int] = []

    class Checker(Dealer):
        def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
            seat = observation["seat"]
            assert seat is not None, "an agent sits at a seat"
            if observation != game.observe(seat):
                mismatches.append(seat)
            return super().on_events(events, observation)

    table = Table(game, [Checker(300), Checker(450), Checker(500)], max_cards=400)
    table.run_virtual()
    assert game.cards_played > 50 and mismatches == []


def test_max_ms_stops_the_clock_and_a_human_view_is_kept_up_to_date() -> None:
    game = Game.deal(CLASSIC, players=2, seed=3)
    updates: list[int] = []
    human = HumanAgent(on_update=lambda agent: updates.append(agent.observation["cards_played"]
                                                             if agent.observation else -1))
    table = Table(game, [Dealer(), human], max_ms=5_000)
    table.run_virtual()
    assert table.stop_reason == "idle"  # seat 1 is a human who never presses a key
    assert game.cards_played == 1 and updates[-1] == 1
    assert human.press("play") and game.cards_played == 2  # the key press plays seat 1's card
    table.run_virtual()  # seat 0 answers 500 ms later, then waits for the human again
    assert game.cards_played == 3
    late = Table(Game.deal(CLASSIC, players=2, seed=3), [Dealer(), Dealer()], max_ms=5_000)
    late.run_virtual()
    assert late.stop_reason == "max_ms" and late.game.now <= 5_000


def test_firing_at_every_tick_plays_the_game_run_virtual_plays() -> None:
    """A driver calling `fire_due` at every 25 ms tick (the learning environments do) gets
    the very game `run_virtual` plays, though most calls take the quick answer that nothing
    is due yet; and whenever the full look finds nothing due, the call does nothing."""
    from ratscrew.bots.agent import BotAgent
    from ratscrew.bots.profile import LEVELS

    for seed in range(3):
        def table_for(seed: int = seed) -> Table:
            game = Game.deal(CLASSIC, players=3, seed=seed)
            return Table(game, [BotAgent(LEVELS[level], seed=seed * 10 + seat)
                                for seat, level in enumerate(("casual", "expert", "beginner"))])

        whole = table_for()
        whole.run_virtual()
        ticked = table_for()
        ticked.start()
        until = 0.0
        while not ticked.game.over and until < 3_600_000:
            until += 25
            due = ticked.next_due()
            count = ticked.game.action_count
            events = ticked.fire_due(until)
            if due is None or due[0] > until:
                assert events == [] and ticked.game.action_count == count
        assert ticked.events == whole.events
        assert ticked.game.to_record() == whole.game.to_record()


def test_a_plan_made_after_a_quiet_look_is_still_performed_in_time() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    table = Table(game, [Scripted(Intent("play", 1000)), Scripted()])
    table.start()
    assert table.fire_due(100) == []  # nothing due before 1000: remembered
    table.plan(0, [Intent("play", 150)])
    assert [event.at for event in table.fire_due(200)] == [150]
    assert table.has_pending(0) is False and table.pending(0) == []

