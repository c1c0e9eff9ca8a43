"""The integrity review on the server: after each finished game, each keyed player's latest
slaps in its ruleset are assessed (`ratscrew.integrity.assess`); a player whose slaps raise a
flag is flagged in the store, which takes back the ratings of the ruleset's games since the
evidence began, and they are rated again without the flagged player's games (a flagged
player's games are unrated: `ratscrew.server.ladder.rated`). ``GET /api/players/ID`` shows
``integrity: {flagged, reasons, checked_slaps}``; ``ratscrew admin players clear-flag ID``
clears a flag after a moderator's review (its evidence is not counted again).

The slaps come from the stored records: each true reaction in a game's ``judging`` entries for
the player's seat (`is_reaction`: a slap that took a pile that had become
slappable, timed from the card that made it so as the player's own connection was sent it; not
a claim of one's own pile, a misslap, nor a slap that came late, was ignored or tied), with the
reported reaction, the link compensation and the bound applied (docs/fairness.md, "What counts
as a reaction").
"""

from __future__ import annotations

import logging
from typing import Any

from ratscrew.integrity import WINDOW, SlapSample, assess
from ratscrew.protocol.http import Integrity
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

GAMES_READ = 60
"""The latest games of a player read for their slaps (at most `ratscrew.integrity.WINDOW`
slaps are assessed)."""


def is_reaction(entry: dict[str, Any]) -> bool:
    """Whether a judged action of the record (`ratscrew.server.room.driver.GameDriver.judged`) is a
    true reaction, the only kind the integrity review counts (docs/fairness.md, "What counts as
    a reaction"): a slap that took a pile that had become slappable (not a claim of one's own
    pile, a misslap, a slap that came late, was ignored or is still held in a tie), timed from
    the state that made the pile slappable as the slapper's own connection was sent it
    (``pile_reaction_ms``; a record stored before issue 46 has neither and counts nothing).

    >>> is_reaction({"kind": "slap", "outcome": "won", "pile_reaction_ms": 310})
    True
    >>> is_reaction({"kind": "slap", "outcome": "late", "pile_reaction_ms": 37})
    False
    >>> is_reaction({"kind": "slap", "accepted": True, "reaction_ms": 14})  # an old record
    False
    """
    return (entry.get("kind") == "slap" and entry.get("outcome") == "won"
            and entry.get("pile_reaction_ms") is not None)


def slap_samples(record: dict[str, Any], seat: int) -> list[SlapSample]:
    """The true reactions of ``seat`` in a game record (`is_reaction`), in the order they were
    judged."""
    samples = []
    for entry in record.get("judging") or []:
        if entry.get("seat") != seat or not is_reaction(entry):
            continue
        reaction = entry.get("pile_reaction_ms")
        reported = entry.get("reported_ms")
        samples.append(SlapSample(None if reaction is None else float(reaction),
                                  None if reported is None else float(reported),
                                  float(entry.get("link_ms") or 0.0), entry.get("clamped")))
    return samples


def player_slaps(store: Store, player_id: str, rules_name: str,
                 after: float | None = None) -> tuple[list[SlapSample], int | None]:
    """The player's latest slaps in ``rules_name`` (oldest first, at most the assessed window),
    from games finished after ``after``, and the id of the earliest game they come from."""
    samples: list[SlapSample] = []
    first_game: int | None = None
    for game in store.player_games(player_id, GAMES_READ):  # newest first
        if game["rules"] != rules_name or (after is not None and (game["finished_at"] or 0) <= after):
            continue
        record = store.game_record(game["id"])
        if record is None:
            continue
        slaps = slap_samples(record, game["seat"])
        if slaps:
            samples[:0] = slaps
            first_game = game["id"]
        if len(samples) >= WINDOW:
            break
    return samples[-WINDOW:], first_game


def integrity_of(store: Store, player_id: str) -> Integrity:
    """``{flagged, reasons, checked_slaps}`` for the player page (the public contract): a
    flag not cleared with its reasons and the slaps it was raised on, or else the slaps checked
    since the last flag was cleared (or ever)."""
    flag = store.integrity_flag(player_id)
    if flag is not None and flag["cleared_at"] is None:
        return {"flagged": True, "reasons": flag["reasons"], "checked_slaps": flag["checked_slaps"]}
    checked = 0
    for rules in {g["rules"] for g in store.player_games(player_id, GAMES_READ)}:
        samples, _ = player_slaps(store, player_id, rules, None if flag is None else flag["cleared_at"])
        checked += len(samples)
    return {"flagged": False, "reasons": [], "checked_slaps": checked}


def review_game(store: Store, game_id: int) -> list[str]:
    """Assess every keyed player of a finished game in its ruleset, flagging those whose slaps
    raise a flag (the store takes back the ratings since the evidence); the ids flagged now."""
    flagged_now = []
    for player_id, rules_name in store.game_players(game_id):
        flag = store.integrity_flag(player_id)
        if flag is not None and flag["cleared_at"] is None:
            continue  # already flagged: a moderator reviews it
        after = None if flag is None else flag["cleared_at"]
        samples, first_game = player_slaps(store, player_id, rules_name, after)
        verdict = assess(samples)
        if verdict.flagged and first_game is not None:
            store.flag_player(player_id, rules_name, first_game, verdict.reasons, verdict.checked_slaps)
            log.warning("player %s flagged for review in %s: %s", player_id, rules_name,
                        "; ".join(verdict.reasons))
            flagged_now.append(player_id)
    return flagged_now
