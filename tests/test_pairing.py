"""Pairing seekers into tables (`ratscrew.matchmaking.pairing`): by rating, in waves, with the
allowed gap widening as a seeker waits; never a player with itself; no rematch at once; arena
standings; who goes first."""

from __future__ import annotations

import pytest

from ratscrew.matchmaking.pairing import PairingRules, Seeker, after_wave, allowed_gap, pair_wave

RULES = PairingRules(base_gap=5.0, widen_per_wave=5.0)


def seeker(player: str, rating: float = 0.0, **kwargs: object) -> Seeker:
    return Seeker(f"seek-{player}", player, rating, **kwargs)  # type: ignore[arg-type]


def tables(found: list[tuple[Seeker, ...]]) -> list[set[str]]:
    return [{s.player_id for s in table} for table in found]


def test_the_nearest_ratings_are_paired() -> None:
    pool = [seeker("ann", 0), seeker("bob", 20), seeker("cid", 2), seeker("dee", 21)]
    assert tables(pair_wave(pool, 2, RULES)) == [{"ann", "cid"}, {"bob", "dee"}]


def test_a_gap_wider_than_allowed_waits_and_widens_with_each_wave() -> None:
    pool = [seeker("ann", 0), seeker("bob", 12)]
    assert pair_wave(pool, 2, RULES) == []
    pool = after_wave(pool)
    assert pair_wave(pool, 2, RULES) == []  # gap 10 after one wave
    pool = after_wave(pool)
    assert tables(pair_wave(pool, 2, RULES)) == [{"ann", "bob"}]  # gap 15 after two
    assert allowed_gap(pool[0], RULES) == 15.0


def test_one_long_waiter_widens_its_own_table() -> None:
    waited = seeker("ann", 0, waves=3)
    assert tables(pair_wave([waited, seeker("bob", 18)], 2, RULES)) == [{"ann", "bob"}]


def test_between_waves_only_a_table_of_close_ratings_is_made_at_once() -> None:
    far = [seeker("ann", 0, waves=4), seeker("bob", 18)]
    assert pair_wave(far, 2, RULES, at_once=True) == []
    close = [seeker("ann", 0), seeker("bob", 4)]
    assert tables(pair_wave(close, 2, RULES, at_once=True)) == [{"ann", "bob"}]


def test_a_player_is_never_paired_with_itself() -> None:
    pool = [Seeker("tab-1", "ann"), Seeker("tab-2", "ann")]
    assert pair_wave(pool, 2, RULES) == []
    assert tables(pair_wave([*pool, seeker("bob")], 2, RULES)) == [{"ann", "bob"}]


def test_two_who_just_played_are_not_paired_again_at_once() -> None:
    ann = seeker("ann", 0, last_opponents=frozenset({"bob"}))
    bob = seeker("bob", 0, last_opponents=frozenset({"ann"}))
    assert pair_wave([ann, bob], 2, RULES) == []
    assert tables(pair_wave([ann, bob, seeker("cid", 30, waves=9)], 2, RULES)) == [{"ann", "cid"}]
    # one side's memory is enough
    assert pair_wave([ann, seeker("bob")], 2, RULES) == []
    # but two alone in a pool meet again after half a minute of waves
    ann, bob = (seeker(s.player_id, waves=6, last_opponents=s.last_opponents) for s in (ann, bob))
    assert tables(pair_wave([ann, bob], 2, RULES)) == [{"ann", "bob"}]
    never = PairingRules(rematch_after_waves=None)
    assert pair_wave([ann, bob], 2, never) == []


def test_four_player_tables_take_four_close_ratings() -> None:
    pool = [seeker(name, rating) for name, rating in
            [("a", 0), ("b", 1), ("c", 30), ("d", 2), ("e", 3), ("f", 31)]]
    assert tables(pair_wave(pool, 4, RULES)) == [{"a", "b", "d", "e"}]
    assert pair_wave(pool[:3], 4, RULES) == []


def test_the_front_and_the_longest_waiting_are_served_first() -> None:
    # three close seekers, one table of two: the one put back at the front sits, then the oldest
    pool = [seeker("new", 0, order=3), seeker("old", 0, waves=2, order=1),
            seeker("back", 0, front=True, order=2)]
    assert tables(pair_wave(pool, 2, RULES)) == [{"back", "old"}]


def test_arena_standings_pick_the_nearest_in_score() -> None:
    arena = PairingRules(base_gap=100.0, widen_per_wave=0.0, standing_weight=10.0)
    pool = [seeker("top", 0, standing=12), seeker("low", 0, standing=0), seeker("mid", 0, standing=10),
            seeker("bottom", 0, standing=1)]
    assert tables(pair_wave(pool, 2, arena)) == [{"top", "mid"}, {"low", "bottom"}]


def test_a_table_needs_two_seats() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        pair_wave([seeker("ann")], 1, RULES)
