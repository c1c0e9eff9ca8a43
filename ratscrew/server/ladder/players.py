"""Players who come back, without accounts: a player is a *player key*, a random secret the
client makes on its first visit and keeps (the browser in localStorage, ``ratscrew join`` in the
user's state directory). The server keeps only the key's SHA-256 and shows a *public id*
instead: 12 random URL-safe characters, made when the key is first seen, never derived from the
key. Everything a player owns (statistics, ratings, history) hangs on the key, never on a typed
name: the name shown is the key's latest chosen name, and two keys may not hold the same name
at once (compared by look: `ratscrew.protocol.names.name_key`).

A key moves to another device as an *import code*: the key, a dot, and a short check of this
server's identity (a random id kept in the store), so a code from another server is told apart
from a mistyped one. Clients that send no key play as guests: not rated, not on the leaderboard.

>>> split_code("Ab3_-Ab3_-Ab3_-Ab3_-.k2Jd9x")
('Ab3_-Ab3_-Ab3_-Ab3_-', 'k2Jd9x')
"""

from __future__ import annotations

import base64
import hashlib
import random
import re
import secrets
import time
from collections.abc import Callable
from typing import Any, overload

from ratscrew.bots.agent import draw_reaction_ms
from ratscrew.bots.profile import LEVELS
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.http import (
    PlayerAnswer,
    PlayerArena,
    PlayerExported,
    PlayerImported,
    PlayerRating,
    RatingPoint,
    SlapCounts,
)
from ratscrew.protocol.keys import MIN_DISTINCT_KEY_CHARACTERS, MIN_NEW_KEY_LENGTH, looks_random, valid_key
from ratscrew.server.ladder.ranking import PROVISIONAL_GAMES, conservative
from ratscrew.server.ladder.review import integrity_of
from ratscrew.storage.records import NameTaken, PlayerRow, RateCounter
from ratscrew.storage.roles import Store

PUBLIC_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{12}")
"""A public player id: 12 URL-safe characters."""
CHECK_LENGTH = 6
"""Characters of the server check in an import code."""
EXPORT_HINT = "losing your key loses your record"
REACTIONS_SHOWN = 500
"""Reaction times on a player's page: the player's latest, and as many of each bot level's."""
GAMES_SHOWN = 50
"""The latest games listed on a player's page (and read for the slaps by pattern)."""
GAMES_READ = 500
"""The latest games read for a player's reaction times and slaps by pattern."""


def hash_key(key: str) -> str:
    """What the server keeps of a key: its SHA-256 (a stolen database holds no keys)."""
    return hashlib.sha256(key.encode()).hexdigest()


async def known_player_counted(store: Store, key: str, new_players: RateCounter | None,
                               address: str, now: float, per_hour: int) -> str | None:
    """The public id of the player holding ``key`` if the store knows it (``None``: a key that
    would make a new player). A new player is counted first against its address's limit
    (``new_players`` allows ``per_hour`` an hour; ``None``: not counted); past it,
    `ProtocolError` ``rate_limited``. Keys that would be refused are not counted."""
    existing = await store.player_by_key_async(hash_key(key))
    if (new_players is not None and looks_random(key) and existing is None
            and not await new_players.allow_async(address, now)):
        raise too_many_new_players(per_hour)
    return existing.player_id if existing is not None and valid_key(key) else None


async def enter_async(store: Store, key: str, name: str, known_id: str | None) -> str:
    """The public id of the player joining (or seeking) with ``key`` under ``name``, entered in
    the store: the key's name becomes ``name``. `ProtocolError` ``bad_key`` for a key that is
    not one (or a new key that does not look random), ``name_taken`` when another key holds
    the name: nothing changed then. ``known_id`` is `known_player_counted`'s answer."""
    check_key(key, lambda: known_id is None)
    try:
        entered = await store.enter_player_async(hash_key(key), name, new_public_id())
    except NameTaken:
        raise ProtocolError("name_taken", name_taken_text(name)) from None
    return entered.player_id


def too_many_new_players(per_hour: int) -> ProtocolError:
    """The refusal of a join past its address's new players an hour."""
    return ProtocolError("rate_limited", f"join: at most {per_hour} new players an hour from "
                         "your address; join as a guest (no key) or try again later")


def check_new_key(key: str) -> None:
    """Refuse (`ProtocolError` ``bad_key``) a key for a new player that does not look random."""
    if not looks_random(key):
        raise ProtocolError(
            "bad_key", f"join: a new player key needs at least {MIN_NEW_KEY_LENGTH} characters, "
            f"{MIN_DISTINCT_KEY_CHARACTERS} of them different: make it at random (the page and "
            "ratscrew join do)")


def new_public_id() -> str:
    """A fresh public id: random, so nothing about the key can be learned from it.

    >>> PUBLIC_ID_PATTERN.fullmatch(new_public_id()) is not None
    True
    """
    return secrets.token_urlsafe(9)


def check_key(key: str, is_new: Callable[[], bool]) -> None:
    """Refuse (`ProtocolError` ``bad_key``) what is not a key, and a key for a new player
    (``is_new``, asked only of a key) that does not look random (issue 29)."""
    if not valid_key(key):
        raise ProtocolError("bad_key", "join: a player key is 20 to 64 letters, digits, - or _")
    if is_new():
        check_new_key(key)


def name_taken_text(name: str) -> str:
    """What a ``join`` under a name another key holds is told: the same person on a new device
    is offered the way to bring their player here (the import code), anyone else another name.

    >>> name_taken_text("Kim")  # doctest: +NORMALIZE_WHITESPACE
    "another player already goes by 'Kim'. If that is you, bring your player to this device
     with the import code from your player page on the device you played on; otherwise choose
     another name"
    """
    return (f"another player already goes by {name!r}. If that is you, bring your player to this "
            "device with the import code from your player page on the device you played on; "
            "otherwise choose another name")


# ---------------------------------------------------------------------------------- export


def server_check(server_id: str) -> str:
    """The short check of a server's identity that its import codes carry.

    >>> len(server_check("some-server")) == CHECK_LENGTH and server_check("a") != server_check("b")
    True
    """
    digest = hashlib.sha256(f"ratscrew server {server_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:CHECK_LENGTH]


def export_code(key: str, server_id: str) -> str:
    """The import code of ``key`` on the server ``server_id``: the key, a dot, the check."""
    return f"{key}.{server_check(server_id)}"


def split_code(code: str) -> tuple[str, str] | None:
    """An import code's key and check, or ``None`` when it is not one."""
    key, dot, check = code.strip().rpartition(".")
    if not dot or not valid_key(key) or len(check) != CHECK_LENGTH:
        return None
    return key, check


class PlayerCodeError(ValueError):
    """An import code that cannot be taken: ``code`` (``bad_code``, ``other_server``,
    ``unknown_player``) and a message that says what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def import_code(store: Store, code: str) -> PlayerImported:
    """``{"player_id", "name", "player_key"}`` of an import code made on this server."""
    parts = split_code(code)
    if parts is None:
        raise PlayerCodeError("bad_code", "that is not an import code: copy the whole code shown "
                           "on your player page")
    key, check = parts
    if check != server_check(store.server_id()):
        raise PlayerCodeError("other_server", "this code is from another server: import it on the "
                           "server where you played")
    player = store.player_by_key(hash_key(key))
    if player is None:
        raise PlayerCodeError("unknown_player", "no player on this server has that key; check the code")
    return {"player_id": player.player_id, "name": player.name, "player_key": key}


def export(store: Store, key: str) -> PlayerExported:
    """``{"player_id", "code"}`` for the holder of ``key``."""
    if not valid_key(key):
        raise PlayerCodeError("bad_key", "a player key is 20 to 64 letters, digits, - or _")
    player = store.player_by_key(hash_key(key))
    if player is None:
        raise PlayerCodeError("unknown_player", "this key has not played here yet: join a room first")
    return {"player_id": player.player_id, "code": export_code(key, store.server_id())}


# ---------------------------------------------------------------------------------- the page


@overload
def iso(at: float) -> str: ...
@overload
def iso(at: None) -> None: ...
def iso(at: float | None) -> str | None:
    """Epoch seconds as UTC ISO 8601 to the second.

    >>> iso(0.0)
    '1970-01-01T00:00:00Z'
    """
    return None if at is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def player_page(store: Store, player_id: str) -> PlayerAnswer | None:
    """``GET /api/players/ID`` (see docs/protocol.md), or ``None`` for an unknown id."""
    player: PlayerRow | None = store.player(player_id) if PUBLIC_ID_PATTERN.fullmatch(player_id) else None
    if player is None:
        return None
    games = store.player_games(player.player_id, GAMES_READ)
    answer: PlayerAnswer = {
        "player_id": player.player_id,
        "name": player.name,
        "ratings": _ratings(store, player.player_id),
        "games": [{"id": g["id"], "rules": g["rules"], "finished_at": iso(g["finished_at"]),
                   "place": g["place"], "players": g["players"], "replay": f"/games/{g['id']}",
                   "unrated": g["unrated"], "note": g["note"]}
                  for g in games[:GAMES_SHOWN]],
        "reactions": {"you": _recent_reactions(games), "bots": bot_samples(store)},
        "slaps": slaps_by_pattern(games),
        "export_hint": EXPORT_HINT,
        "integrity": integrity_of(store, player.player_id),  # issue 30
        "arenas": [_arena(a) for a in store.player_arenas(player.player_id)],  # issue 50
    }
    return answer


def _arena(row: dict[str, Any]) -> PlayerArena:
    """A finished arena's final standing of the player, as the page gets it."""
    return {"arena_id": str(row["arena_id"]), "rules": str(row["rules"]), "players": int(row["players"]),
            "starts_at": float(row["starts_at"]), "ends_at": float(row["ends_at"]),
            "rank": int(row["rank"]), "entrants": int(row["entrants"]), "score": int(row["score"]),
            "games": int(row["games"]), "wins": int(row["wins"])}


def _ratings(store: Store, participant: str) -> list[PlayerRating]:
    ratings: list[PlayerRating] = []
    for r in store.ratings_of(participant):
        history: list[RatingPoint] = [{"game_id": h["game_id"], "at": iso(h["at"]),
                    "rating_before": conservative(h["mu_before"], h["sigma_before"]),
                    "rating_after": conservative(h["mu_after"], h["sigma_after"]),
                    "mu": round(h["mu_after"], 3), "sigma": round(h["sigma_after"], 3)}
                   for h in store.rating_history(participant, r["rules"])]
        ratings.append({"rules": r["rules"], "rating": conservative(r["mu"], r["sigma"]),
                        "mu": round(r["mu"], 3), "sigma": round(r["sigma"], 3), "games": r["games"],
                        "provisional": r["games"] < PROVISIONAL_GAMES, "rank": r["rank"],
                        "history": history})
    return ratings


def _recent_reactions(games: list[dict[str, Any]]) -> list[int]:
    """The player's latest `REACTIONS_SHOWN` reaction times, oldest first."""
    times: list[int] = []
    for game in games:  # newest first
        times[:0] = game["reactions"]
        if len(times) >= REACTIONS_SHOWN:
            break
    return times[-REACTIONS_SHOWN:]


def bot_samples(store: Store) -> dict[str, list[int]]:
    """Each bot level's reaction times: from games on this server, or, for a level that has
    played none here, drawn from its profile (the same draws the bots make)."""
    stored = store.bot_reactions(REACTIONS_SHOWN)
    samples: dict[str, list[int]] = {}
    for level, profile in LEVELS.items():
        if stored.get(level):
            samples[level] = stored[level]
        else:
            rng = random.Random(f"reactions {level}")
            samples[level] = [round(draw_reaction_ms(profile, rng)) for _ in range(200)]
    return samples


def slaps_by_pattern(games: list[dict[str, Any]]) -> list[SlapCounts]:
    """Slaps won, lost (beaten by another slapper) and misslaps (penalised), by pattern, summed
    over the rated games read (misslaps are under pattern ``none``)."""
    totals: dict[str, list[int]] = {}
    for game in games:
        for pattern, counts in (game["patterns"] or {}).items():
            total = totals.setdefault(pattern, [0, 0, 0])
            for i in range(3):
                total[i] += int(counts[i])
    return [{"pattern": p, "won": c[0], "lost": c[1], "misslaps": c[2]}
            for p, c in sorted(totals.items(), key=lambda item: (-sum(item[1]), item[0]))]

