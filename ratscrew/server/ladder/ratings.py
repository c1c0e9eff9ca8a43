"""Ratings: one openskill Plackett-Luce rating per (participant, ruleset), updated once per game.

Why Plackett-Luce. ERS is a free-for-all with a finishing order (the winner, then those still
holding cards, then those who went out, the last one out best: `ratscrew.results`), and the
Plackett-Luce model is the rating model for exactly that: the probability of a finishing order
as a sequence of choices of the best among those left. openskill implements it (with a mu and
a sigma per participant, like TrueSkill, but without its patents and faster).

Who is rated. A game is rated when it ends with at least one keyed person at the table (a
client that sent a player key) and `ratscrew.server.ladder.rated.rating_verdict` finds nothing against
it (custom rules, a seeded deal, an abandoned, aborted or farmed game, a flagged player; a
seat mostly played for its person gains nothing); guests are left out of the match (the
others' places close up around them). Bots take part: each bot level has a rating per
ruleset, fitted from the games it plays like a person's, so a player who only plays bots
still gets a meaningful rating. Several bots of one level in a game each enter with the
level's rating, and the level's new rating is the mean of theirs.

The ranking value is the conservative rating mu - 3 sigma (openskill's ordinal): 0 for a new
player; a rating from fewer than 10 rated games is *provisional*.

Exactly once. `rate_finished_game` is called by the room's recorder
(`ratscrew.server.room.persistence.RoomRecorder.finish_game`) right after the game's end is stored;
`ratscrew.storage.roles.Store.rate_game` writes the game's rated mark and every update in one
transaction, so a game is never counted twice, and `catch_up` (at server start) rates the
finished games a stopped server left unrated. ``RATSCREW_TEST_EXIT_BEFORE_RATING=1`` makes the
process exit between storing a game's end and rating it (for the test that proves this).
Rating replays the game's record once (about 3 ms for a 400-action game) to find the finishing
order and the slaps by pattern.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from openskill.models import PlackettLuce

from ratscrew.events import Misslap, PileWon, SlapIgnored, SlapTie, SlapWon
from ratscrew.history import start_of
from ratscrew.results import FinishingOrder, finishing_places
from ratscrew.server.ladder.ranking import conservative
from ratscrew.server.ladder.rated import (
    LEFT_EARLY,
    NO_ESTABLISHED_OPPONENT,
    Rated,
    Unrated,
    counts_as_opponent,
    game_facts,
    rating_verdict,
)
from ratscrew.server.ladder.review import review_game
from ratscrew.storage.records import BOT_PREFIX, FinishedGame, GameRating, Rating, RatingChange, participant
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

MODEL = PlackettLuce()
"""openskill's defaults: a new participant is mu 25, sigma 25/3 (conservative rating 0)."""
EXIT_BEFORE_RATING = "RATSCREW_TEST_EXIT_BEFORE_RATING"
"""Tests only: when ``1``, the process exits (``os._exit``) after a game's end is stored and
before it is rated."""
EXIT_CODE = 17

Patterns = dict[int, dict[str, list[int]]]


def rate(game: FinishedGame, current: Mapping[str, Rating]) -> GameRating:
    """The rating of one finished game (`ratscrew.storage.records.Rater`): places and slaps by
    pattern from replaying its record, and new ratings when a keyed person played and nothing
    makes the game unrated (then the reason is logged, and the record says it: ``seeded``)."""
    players = len(game.results)
    places, patterns, piles_won = _replay(game.record, players, game.winner)
    changes: dict[str, RatingChange] = {}
    keyed = any(r.kind == "human" and r.player_id for r in game.results)
    facts = game_facts(game.record, [(r.seat, r.player_id) for r in game.results if r.kind == "human"],
                       rules_name=game.rules_name, earlier_quick_resigns=game.earlier_quick_resigns,
                       flagged=game.flagged, bots=sum(1 for r in game.results if r.kind == "bot"))
    verdict = rating_verdict(facts) if keyed else Rated()
    if isinstance(verdict, Unrated):
        return GameRating(places, patterns, {}, verdict.reason, facts.quick_resign)
    notes = {seat: LEFT_EARLY for seat in verdict.left_early}
    entrants = [(r.seat, name) for r in game.results
                if (name := participant(r)) is not None and r.seat not in verdict.left_early]
    if keyed and len(entrants) >= 2:
        before = {name: current.get(name) for _, name in entrants}
        teams = [[MODEL.rating(mu=_mu(before[name]), sigma=_sigma(before[name]))]
                 for _, name in entrants]
        new = MODEL.rate(teams, ranks=[float(places[seat]) for seat, _ in entrants])
        after: dict[str, list[tuple[float, float]]] = {}
        for (_, name), team in zip(entrants, new, strict=True):
            after.setdefault(name, []).append((float(team[0].mu), float(team[0].sigma)))
        for name, values in after.items():
            changes[name] = RatingChange(_mu(before[name]), _sigma(before[name]),
                                         sum(v[0] for v in values) / len(values),
                                         sum(v[1] for v in values) / len(values))
        counting = {seat for seat, name in entrants if counts_as_opponent(
            name, bot=name.startswith(BOT_PREFIX), established=game.established,
            took_part=bool(piles_won.get(seat)) or any(sum(c) for c in patterns.get(seat, {}).values()))}
        for seat, name in entrants:  # a seat played for them gains nothing; a loss still counts
            change = changes.get(name)
            if change is None or (conservative(change.mu_after, change.sigma_after)
                                  <= conservative(change.mu_before, change.sigma_before)):
                continue
            if seat in verdict.gains_nothing:
                del changes[name]
            elif not name.startswith(BOT_PREFIX) and not any(
                    other in counting for other, other_name in entrants if other_name != name):
                # a win over no one who counts: kept as it was, and still a game against them
                changes[name] = RatingChange(change.mu_before, change.sigma_before,
                                             change.mu_before, change.sigma_before)
                notes[seat] = NO_ESTABLISHED_OPPONENT
    return GameRating(places, patterns, changes, None, facts.quick_resign, notes)


def _mu(rating: Rating | None) -> float:
    return float(MODEL.mu) if rating is None else rating.mu


def _sigma(rating: Rating | None) -> float:
    return float(MODEL.sigma) if rating is None else rating.sigma


def replay_places(record: dict[str, Any], players: int,
                  winner: int | None) -> tuple[dict[int, int], Patterns]:
    """Each seat's finishing place and slaps by pattern (``{pattern: [won, lost, misslaps]}``,
    misslaps under ``none``), from replaying the game's record. A record that does not replay
    gives the winner first and everyone else second, and no slaps."""
    places, patterns, _ = _replay(record, players, winner)
    return places, patterns


def _replay(record: dict[str, Any], players: int,
            winner: int | None) -> tuple[dict[int, int], Patterns, dict[int, int]]:
    """`replay_places`, and the piles each seat won."""
    piles_won: dict[int, int] = {}
    try:
        game = start_of(record)
        order = FinishingOrder()
        patterns: Patterns = {}
        last_pattern = "none"

        def count(seat: int | None, pattern: str, column: int) -> None:
            if seat is not None:
                patterns.setdefault(seat, {}).setdefault(pattern, [0, 0, 0])[column] += 1

        for index, action in enumerate(record["actions"]):
            events = game.replay_action(index, action)
            order.events(events)
            for event in events:
                if isinstance(event, SlapWon):
                    last_pattern = event.pattern
                    count(event.seat, event.pattern, 0)
                elif isinstance(event, SlapIgnored) and event.beaten_by is not None:
                    count(event.seat, last_pattern, 1)  # late: beaten by a quicker slapper
                elif isinstance(event, SlapTie) and event.outcome == "random" and event.winner is not None:
                    tie_pattern = next((e.pattern for e in events if isinstance(e, SlapWon)), last_pattern)
                    for seat in event.seats:
                        if seat != event.winner:
                            count(seat, tie_pattern, 1)
                elif isinstance(event, Misslap):
                    count(event.seat, "none", 2)
                elif isinstance(event, PileWon) and event.seat is not None:
                    piles_won[event.seat] = piles_won.get(event.seat, 0) + 1
        places = order.places_of(game)
        return dict(enumerate(places)), patterns, piles_won
    except (ValueError, KeyError, TypeError):
        log.warning("a game record did not replay; rating it by its winner only")
        still_in = [seat for seat in range(players) if seat != winner]
        return dict(enumerate(finishing_places(players, winner, still_in, []))), {}, {}


def rate_finished_game(store: Store, game_id: int) -> None:
    """The room's hook, right after a game's end is stored: rate it now. A failure is logged
    and left to `catch_up` at the next start (the game stays unrated until then)."""
    if os.environ.get(EXIT_BEFORE_RATING) == "1":
        log.warning("exiting before rating game %d (%s is set)", game_id, EXIT_BEFORE_RATING)
        logging.shutdown()
        os._exit(EXIT_CODE)
    try:
        flagged = review_game(store, game_id)  # issue 30: the integrity review comes first
    except Exception:
        log.exception("game %d: the integrity review failed; rating it anyway", game_id)
        flagged = []
    try:
        if flagged:  # ratings since the evidence were taken back: rate them again, in order
            catch_up(store)
        else:
            store.rate_game(game_id, rate)
    except Exception:
        log.exception("game %d could not be rated now; it will be at the next start", game_id)


def catch_up(store: Store) -> int:
    """Rate every finished game left unrated (a server stopped between a game's end and its
    rating); how many were rated now."""
    rated = 0
    for game_id in store.unrated_games():
        if store.rate_game(game_id, rate) is not None:
            rated += 1
    if rated:
        log.info("rated %d finished games left unrated by the last run", rated)
    return rated
