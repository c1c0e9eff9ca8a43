"""`ratscrew join` learns who may act from the state's ``observation.may`` (the engine's
`Game.may`), never from the seat's status: its key bar says when the player may not slap."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import cast

from ratscrew.client.address import RoomAddress
from ratscrew.client.saved import SavedState
from ratscrew.engine import Game
from ratscrew.protocol.client_messages import PROTOCOL_VERSION
from ratscrew.protocol.server_messages import ServerMessage
from ratscrew.ruleset import Ruleset
from ratscrew.tui.online import OnlineApp


def key_bar(app: OnlineApp) -> str:
    return str(app.table_screen.query_one("#keybar").render())


def state(version: int, game: Game, seat: int) -> ServerMessage:
    return cast(ServerMessage, {"type": "state", "version": version, "game": 1, "sent_at": game.now,
                                "observation": game.observe(seat), "events": [], "lines": []})


async def test_the_key_bar_says_when_the_engine_says_the_player_may_not_slap(tmp_path: Path) -> None:
    rules = dataclasses.replace(Ruleset.preset("classic"), misslap_penalty="lockout")
    game = Game(rules, hands=["2H 7C 5C", "3S 7D 9D"], leader=0)
    app = OnlineApp(RoomAddress("http://127.0.0.1:9", "K7QPX2"), "Tess",
                    saved=SavedState(tmp_path / "online.json"), connect=False)
    async with app.run_test(size=(100, 30)) as pilot:
        app.handle_message(cast(ServerMessage, {"type": "welcome", "protocol": PROTOCOL_VERSION,
                                                "code": "K7QPX2", "seat": 1, "token": "t",
                                                "host": False, "name": "Tess"}), 0.0)
        game.play(0, at=0)
        app.handle_message(state(1, game, 1), 0.0)
        await pilot.pause()
        assert "a play · s slap" in key_bar(app)
        game.slap(1, at=50)  # a misslap: Tess is locked out until someone else wins a pile
        app.handle_message(state(2, game, 1), 0.0)
        await pilot.pause()
        assert "no slapping now" in key_bar(app)
