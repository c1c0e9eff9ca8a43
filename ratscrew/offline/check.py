"""The offline table is the real engine (issue 51): a seeded game played by the offline room on
a virtual clock, summed up so that the browser's worker (Pyodide) and the server's Python can
be compared. The person's seat is played by its stand-in (a card on every turn time-out), the
others by the bots, all seeded from the deal.

>>> summary = seeded_game("rules=classic&bots=casual,casual&seed=42&time_limit_ms=600000")
>>> summary["over"], summary["cards_played"] > 0
(True, True)
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ratscrew.offline.room import OfflineRoom, parse_play_query


def seeded_game(query: str) -> dict[str, Any]:
    """The end of the game ``/play?QUERY`` deals (``seed`` should be given): its winner, why it
    ended, its cards, its frames' count and a digest of its record's actions."""
    clock = [0.0]
    room = OfflineRoom(parse_play_query(query), wall=lambda: clock[0])
    frames = len(room.receive('{"type": "join", "name": "Ann"}'))
    while room.phase == "playing":
        wake = room.wake_in_ms()
        if wake is None:
            break
        clock[0] += wake / 1000.0
        frames += len(room.advance())
    game = room.game
    assert game is not None
    actions = json.dumps(game.to_record()["actions"], separators=(",", ":"))
    return {"over": game.over, "winner": game.winner, "end_reason": game.end_reason,
            "cards_played": game.cards_played, "frames": frames,
            "actions_sha256": hashlib.sha256(actions.encode()).hexdigest()}
