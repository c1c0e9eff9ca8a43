"""Arena points and standings (`ratscrew.arenas.scoring`), from compact game results: each game
is its finishing order, ``"ann > bob"`` (Ann won), ``"ann > bob > cy > dee"`` at a 4-player
table, ``"ann = bob"`` for a game nobody won."""

from __future__ import annotations

import pytest

from ratscrew.arenas.scoring import GameResult, Standing, base_points, points, standings


def games(*orders: str) -> list[GameResult]:
    """The results of games given as finishing orders (``>``: next place, ``=``: nobody won)."""
    out: list[GameResult] = []
    for number, order in enumerate(orders, 1):
        if "=" in order:
            out += [GameResult(number, name.strip(), name.strip().title(), 1, False)
                    for name in order.split("=")]
            continue
        for place, name in enumerate(order.split(">"), 1):
            out.append(GameResult(number, name.strip(), name.strip().title(), place, place == 1))
    return out


def line(table: list[Standing], player_id: str) -> tuple[int, int, int, int, int]:
    """A player's (rank, score, games, wins, streak)."""
    found = next(s for s in table if s.player_id == player_id)
    return found.rank, found.score, found.games, found.wins, found.streak


def test_a_win_at_a_two_player_table_scores_two_and_a_loss_nothing() -> None:
    table = standings(games("ann > bob"), players=2)
    assert line(table, "ann") == (1, 2, 1, 1, 1)
    assert line(table, "bob") == (2, 0, 1, 0, 0)


def test_a_four_player_table_scores_four_two_one_nothing_by_place() -> None:
    table = standings(games("ann > bob > cy > dee"), players=4)
    assert [(s.player_id, s.score) for s in table] == [("ann", 4), ("bob", 2), ("cy", 1), ("dee", 0)]


def test_after_two_wins_in_a_row_each_further_win_scores_double() -> None:
    table = standings(games("ann > bob", "ann > cy", "ann > bob", "ann > cy"), players=2)
    assert line(table, "ann") == (1, 2 + 2 + 4 + 4, 4, 4, 4)


def test_a_game_not_won_ends_the_streak_and_the_doubling() -> None:
    table = standings(games("ann > bob", "ann > cy", "ann > bob", "bob > ann", "ann > cy"), players=2)
    # 2 + 2 + 4 (streak), 0 (lost: streak over), 2 (a first win again)
    assert line(table, "ann") == (1, 10, 5, 4, 1)
    assert line(table, "bob") == (2, 2, 3, 1, 1)  # his latest game a win


def test_on_a_streak_at_a_four_player_table_only_a_win_is_doubled() -> None:
    table = standings(games("ann > bob > cy > dee", "ann > cy > bob > dee", "ann > dee > cy > bob",
                            "bob > ann > cy > dee"), players=4)
    assert line(table, "ann")[1:] == (4 + 4 + 8 + 2, 4, 3, 0)


def test_a_game_nobody_won_scores_no_win_and_ends_every_streak() -> None:
    table = standings(games("ann > bob", "ann > bob", "ann = bob", "ann > bob"), players=2)
    assert line(table, "ann")[1:] == (2 + 2 + 0 + 2, 4, 3, 1)
    assert base_points(1, False, 4) == 2  # a shared first place at four is a second place's points


def test_games_count_in_the_order_they_finished_not_the_order_given() -> None:
    given = games("bob > ann", "ann > bob", "ann > bob")
    shuffled = [r for r in given if r.game == 3] + [r for r in given if r.game != 3]
    assert standings(shuffled, players=2) == standings(given, players=2)
    assert line(standings(given, players=2), "ann")[1:] == (4, 3, 2, 2)


def test_equal_score_wins_and_games_share_a_rank_and_fewer_games_rank_higher() -> None:
    table = standings(games("ann > bob", "cy > dee", "dee > eve", "eve > dee"), players=2)
    assert [(s.rank, s.player_id) for s in table] == [
        (1, "ann"), (1, "cy"), (3, "eve"), (4, "dee"), (5, "bob")]


def test_the_latest_name_is_shown() -> None:
    results = [*games("ann > bob"), GameResult(2, "ann", "Annie", 1, True),
               GameResult(2, "bob", "Bob", 2, False)]
    assert standings(results, players=2)[0].name == "Annie"


def test_only_two_or_four_player_tables() -> None:
    with pytest.raises(ValueError, match="2 or 4 players"):
        points(1, True, 3, 0)


def test_no_games_no_standings() -> None:
    assert standings([], players=2) == []
