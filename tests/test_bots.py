"""Bots: the shared decision model, counting, and honest timing."""

from __future__ import annotations

import itertools
import random
import statistics
from collections.abc import Sequence

import pytest

from ratscrew.bots.agent import MIN_ANTICIPATION_MS, BotAgent, CardMemory, draw_reaction_ms
from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS, LEVELS, BotProfile, level
from ratscrew.cards import parse_cards
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardPlayed, CardsBurned, Event, Misslap, SlapWon
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Answer, Intent, Observation, Table

CLASSIC = Ruleset.preset("classic")
QUICK = BotProfile("quick", mu_ms=100, sigma_ms=0, tau_ms=0, miss=0, flinch=0,
                   pace_mean_ms=500, pace_sd_ms=0)


def bot_answer_after(hands: Sequence[str], profile: BotProfile, seed: int,
                     seat: int = 1) -> tuple[Answer, int]:
    """Seat 0 and seat 1 each play their top card; the bot at ``seat`` watches. Returns its
    answer to the second card and the time that card was shown."""
    game = Game(CLASSIC, hands=list(hands), leader=0)
    bot = BotAgent(profile, seed=seed)
    bot.on_start(seat, CLASSIC, game.observe(seat))
    bot.on_events(game.play(0, at=0), game.observe(seat))
    return bot.on_events(game.play(1, at=600), game.observe(seat)), 600


def slaps_in(answer: Answer) -> list[Intent]:
    return [intent for intent in answer or () if intent.kind == "slap"]


def test_reaction_times_follow_the_ex_gaussian_mean() -> None:
    rng = random.Random(1)
    casual = LEVELS["casual"]
    draws = [draw_reaction_ms(casual, rng) for _ in range(20_000)]
    assert statistics.fmean(draws) == pytest.approx(casual.mean_reaction_ms, rel=0.02)
    assert min(draws) >= ANTICIPATION_FLOOR_MS
    assert statistics.median(draws) < statistics.fmean(draws)  # the long right tail


def test_a_bot_slaps_a_double_no_sooner_than_the_reaction_floor() -> None:
    answer, shown_at = bot_answer_after(["7H 2C", "7S 3D"], LEVELS["expert"], seed=3)
    (slap,) = slaps_in(answer)
    assert slap.note == "react double" and slap.at >= shown_at + ANTICIPATION_FLOOR_MS


def test_harder_patterns_are_missed_more_often() -> None:
    profile = LEVELS["beginner"].with_changes(flinch=0.0)
    trials = 600
    doubles = sum(bool(slaps_in(bot_answer_after(["7H 2C", "7S 3D"], profile, seed)[0]))
                  for seed in range(trials))
    sandwiches = 0
    for seed in range(trials):
        game = Game(CLASSIC, hands=["7H 7D", "3S 4D"], leader=0)
        bot = BotAgent(profile, seed=seed)
        bot.on_start(1, CLASSIC, game.observe(1))
        bot.on_events(game.play(0, at=0), game.observe(1))
        bot.on_events(game.play(1, at=500), game.observe(1))
        sandwiches += bool(slaps_in(bot.on_events(game.play(0, at=1000), game.observe(1))))
    expect_double = 1 - profile.miss_chance("double")
    expect_sandwich = 1 - profile.miss_chance("sandwich")
    assert doubles / trials == pytest.approx(expect_double, abs=0.05)
    assert sandwiches / trials == pytest.approx(expect_sandwich, abs=0.05)
    assert sandwiches < doubles


def test_a_nervous_bot_flinches_at_a_near_double_and_misslaps() -> None:
    nervous = QUICK.with_changes(flinch=1.0)
    answer, shown_at = bot_answer_after(["7H 2C", "8S 3D"], nervous, seed=0)
    (slap,) = slaps_in(answer)
    assert slap.note == "flinch" and slap.at == shown_at + 100
    steady = QUICK
    assert slaps_in(bot_answer_after(["7H 2C", "8S 3D"], steady, seed=0)[0]) == []


def test_a_new_card_cancels_the_slap_planned_for_the_old_pile() -> None:
    game = Game(CLASSIC, hands=["7H 9C 2C", "7S 3D"], leader=0)
    bot = BotAgent(LEVELS["casual"].with_changes(miss=0.0, flinch=0.0), seed=1)
    bot.on_start(1, CLASSIC, game.observe(1))
    bot.on_events(game.play(0, at=0), game.observe(1))
    assert slaps_in(bot.on_events(game.play(1, at=500), game.observe(1)))
    assert slaps_in(bot.on_events(game.play(0, at=560), game.observe(1))) == []


def test_memory_holds_only_as_many_cards_as_its_capacity() -> None:
    memory = CardMemory(capacity=2, hand_sizes=[0, 1])
    memory.collect(0, parse_cards("7H 3C 9D"))  # 7H is forgotten first
    assert [e and str(e[0]) for e in memory.hands[0]] == [None, "3C", "9D"]
    assert memory.known == 2
    memory.take(0, parse_cards("7H"))
    assert memory.top(0) == parse_cards("3C")[0]
    memory.take(0, parse_cards("5S"))  # not what was remembered: trust nothing about hand 0
    assert memory.top(0) is None and memory.known == 0


def counting_duel(counter_memory: int) -> tuple[list[Event], BotAgent]:
    """Seat 1 wins 7H 7S, so its hand becomes 2C 7H 7S and everyone saw that order. Seat 0
    plays its last card, 4D, and watches seat 1 play 7H then 7S: a counting seat 0 knows the
    double is coming."""
    game = Game(CLASSIC, hands=["7H 4D", "7S 2C"], leader=0)
    counter = BotAgent(QUICK.with_changes(mu_ms=150, memory=counter_memory, anticipation_ms=40),
                       seed=1)
    table = Table(game, [counter, BotAgent(QUICK, seed=2)], max_cards=7)
    return table.run_virtual(), counter


def test_a_counting_bot_anticipates_a_double_it_saw_collected() -> None:
    events, counter = counting_duel(counter_memory=26)
    won = [e for e in events if isinstance(e, SlapWon)]
    plays = [e for e in events if isinstance(e, CardPlayed)]
    assert [str(p.card) for p in plays[:6]] == ["7H", "7S", "2C", "4D", "7H", "7S"]
    assert [w.seat for w in won] == [1, 0]  # the counter slaps in, ahead of the quicker hand
    reaction = won[1].at - plays[5].at
    assert MIN_ANTICIPATION_MS <= reaction < ANTICIPATION_FLOOR_MS
    assert counter.anticipations == 1


def test_without_memory_the_same_bot_cannot_anticipate() -> None:
    events, counter = counting_duel(counter_memory=0)
    won = [e for e in events if isinstance(e, SlapWon)]
    assert [w.seat for w in won] == [1, 1]
    assert counter.anticipations == 0


class Recorder:
    """Wraps a bot and records, for every answer, the latest card it had been shown."""

    def __init__(self, bot: BotAgent) -> None:
        self.bot = bot
        self.last_shown = -1
        self.seen_cards: set[str] = set()
        self.records: list[tuple[Intent, int, bool]] = []  # (slap intent, shown at, card seen before)
        self.card_seen_before = False

    def _record(self, answer: Answer) -> Answer:
        for intent in answer or ():
            if intent.kind == "slap" and intent.note.startswith(("react", "flinch", "anticipate")):
                self.records.append((intent, self.last_shown, self.card_seen_before))
        return answer

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        return self._record(self.bot.on_start(seat, rules, observation))

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        for event in events:
            if isinstance(event, CardPlayed):
                self.last_shown = event.at
                self.card_seen_before = str(event.card) in self.seen_cards
        answer = self.bot.on_events(events, observation)
        for event in events:
            if isinstance(event, CardPlayed):
                self.seen_cards.add(str(event.card))
            elif isinstance(event, (Misslap, CardsBurned)):
                self.seen_cards.update(str(c) for c in event.cards)
        return self._record(answer)

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        return self._record(self.bot.on_rejected(intent, error, observation))


@pytest.mark.parametrize("preset", ["classic", "ratscrew", "northwest", "paranoid", "pagat"])
def test_no_bot_ever_acts_on_a_card_before_it_was_shown(preset: str) -> None:
    rules = Ruleset.preset(preset)
    names = list(LEVELS)
    for seed in range(4):
        players = 2 + seed % 3
        game = Game.deal(rules, players=players, seed=seed)
        recorders = [Recorder(BotAgent(level(names[(seed + s) % len(names)]), seed=seed * 7 + s))
                     for s in range(players)]
        table = Table(game, recorders, max_cards=3000)
        events = table.run_virtual()
        for recorder in recorders:
            for intent, shown_at, seen_before in recorder.records:
                if intent.note.startswith("anticipate"):
                    assert recorder.bot.profile.memory > 0
                    assert seen_before, "only a card seen face up before can be anticipated"
                    assert intent.at >= shown_at + MIN_ANTICIPATION_MS
                else:
                    assert intent.at >= shown_at + ANTICIPATION_FLOOR_MS
        # And in the game itself: a bot without memory never wins a slap faster than the floor.
        last_card = 0
        for event in events:
            if isinstance(event, CardPlayed):
                last_card = event.at
            elif isinstance(event, SlapWon) and event.pattern != "claim":
                assert event.seat is not None
                if recorders[event.seat].bot.profile.memory == 0:
                    assert event.at - last_card >= ANTICIPATION_FLOOR_MS


def test_bots_with_the_same_seeds_play_the_same_game() -> None:
    def play() -> list[tuple[str, int | None, int]]:
        game = Game.deal(CLASSIC, players=3, seed=9)
        bots = [BotAgent(LEVELS[name], seed=i) for i, name in enumerate(["beginner", "skilled", "expert"])]
        return [(e.kind, e.seat, e.at) for e in Table(game, bots).run_virtual()]

    assert play() == play()


def test_every_level_is_slower_or_sloppier_than_the_one_above() -> None:
    ordered = list(LEVELS.values())
    for weaker, stronger in itertools.pairwise(ordered):
        assert weaker.mean_reaction_ms > stronger.mean_reaction_ms
        assert weaker.miss >= stronger.miss and weaker.memory <= stronger.memory
