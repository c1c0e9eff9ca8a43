"""Ranking maths: a player's figures (games, wins, slaps, reaction times) and the leaderboard's
ranks, ratings and ties, computed from the rows the store reads (`ratscrew.storage`). The store
only selects and orders rows; what they add up to is decided here, once for both databases.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS
from ratscrew.protocol.http import LeaderboardRow
from ratscrew.storage.roles import ArchiveStore, RatingStore

PROVISIONAL_GAMES = 10
"""A rating from fewer rated games than this is provisional."""


def conservative(mu: float, sigma: float) -> float:
    """The ranking value of a rating: mu - 3 sigma (openskill's ordinal), rounded.

    >>> conservative(25.0, 25.0 / 3)
    0.0
    """
    return round(mu - 3.0 * sigma, 3)


def empty_stats() -> dict[str, Any]:
    """The figures of a player with no finished game."""
    return {"name": None, "games": 0, "wins": 0, "win_rate": 0.0, "slaps": 0, "misslaps": 0,
            "median_reaction_ms": None, "best_reaction_ms": None}


def summarise(rows: Sequence[Mapping[str, Any]], key: str = "token_hash") -> list[dict[str, Any]]:
    """Per token (or other ``key`` column): games, wins, slaps, misslaps, median and best
    reaction (anticipations, under the human floor, are not reactions and are left out); named
    by the latest name used (``rows`` oldest first)."""
    by_player: dict[str, dict[str, Any]] = {}
    reactions: dict[str, list[int]] = {}
    for row in rows:
        player = by_player.setdefault(row[key], empty_stats())
        player["name"] = row["name"]
        player["games"] += 1
        player["wins"] += row["won"]
        player["slaps"] += row["slaps"]
        player["misslaps"] += row["misslaps"]
        reactions.setdefault(row[key], []).extend(
            r for r in json.loads(row["reactions"]) if r >= ANTICIPATION_FLOOR_MS)
    for token_hash, player in by_player.items():
        player["win_rate"] = round(player["wins"] / player["games"], 3)
        if key != "token_hash":
            player["key"] = token_hash
        times = reactions.get(token_hash) or []
        player["median_reaction_ms"] = round(median(times)) if times else None
        player["best_reaction_ms"] = min(times) if times else None
    return list(by_player.values())


def stats_of(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One player's figures from their result rows (oldest first)."""
    return summarise(rows)[0] if rows else empty_stats()


def leaderboard_rows(rated: Sequence[Mapping[str, Any]],
                     rows: Sequence[Mapping[str, Any]]) -> list[LeaderboardRow]:
    """The leaderboard from the ranked players (best first: ``player_id``, ``name``, ``mu``,
    ``sigma``, ``rated``) and their result rows: equal ratings share a rank."""
    figures = {p["key"]: p for p in summarise(rows, key="player_id")}
    board: list[LeaderboardRow] = []
    for position, player in enumerate(rated, start=1):
        entry = figures.get(player["player_id"]) or empty_stats()
        rating = conservative(player["mu"], player["sigma"])
        tied = board and board[-1]["rating"] == rating
        board.append(LeaderboardRow(
            name=player["name"], games=entry["games"], wins=entry["wins"], win_rate=entry["win_rate"],
            slaps=entry["slaps"], misslaps=entry["misslaps"],
            median_reaction_ms=entry["median_reaction_ms"], best_reaction_ms=entry["best_reaction_ms"],
            player_id=player["player_id"], rank=board[-1]["rank"] if tied else position, rating=rating,
            rating_sigma=round(player["sigma"], 3), provisional=player["rated"] < PROVISIONAL_GAMES))
    return board


def player_stats(store: ArchiveStore, token_hash: str, rules_name: str | None = None) -> dict[str, Any]:
    """One person's figures over their finished games (by seat token; all rulesets, or one)."""
    return stats_of(store.person_results(token_hash, rules_name))


def leaderboard(store: RatingStore, rules_name: str, limit: int = 50) -> list[LeaderboardRow]:
    """The ranked players of this ruleset, best rating (mu - 3 sigma) first, each with
    ``rank``, ``rating``, ``rating_sigma``, ``provisional``, ``player_id`` and their figures
    (guests and bots are not listed)."""
    ranked = store.ranked_players(rules_name, limit)
    rows = store.players_results(rules_name, [r["player_id"] for r in ranked]) if ranked else []
    return leaderboard_rows(ranked, rows)
