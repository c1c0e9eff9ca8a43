"""``ratscrew join``: sit at an online table (``ratscrew serve``) from the terminal, or watch it.

Before the screen opens the room is looked up over HTTP, so a mistyped code, a server that is not
running or a full room is one line on stderr that says what to do (exit status 2), never a
traceback. Then the same table as ``ratscrew play`` opens, seated through the public websocket
protocol (docs/protocol.md) exactly as a browser is.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from dataclasses import replace
from typing import Any

from ratscrew.client.address import DEFAULT_SERVER, parse_room_address
from ratscrew.client.link import RoomUnavailable, fetch_room
from ratscrew.client.saved import SavedState, default_path
from ratscrew.server.protocol import ProtocolError, clean_name
from ratscrew.tui.keys import ACTIONS, DEFAULT_KEYS, KeyConfigError, SeatKeys, key_label, normalize_key


class JoinError(ValueError):
    """The room cannot be joined as asked; the message says what to do instead."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "join", help="play at an online table from the terminal (or watch it)",
        description="Sit down at a room of a ratscrew server (ratscrew serve) in the terminal: "
                    "the same table, keys and log as 'ratscrew play', with people in browsers "
                    "or other terminals and bots. Your reaction is measured from when a card "
                    "was on your screen, exactly as the browser does, so the server judges "
                    "slaps fairly. The seat is yours until the room ends: after a dropped "
                    "connection, or when you run the same command again, you take it back.",
        epilog=f"Examples: ratscrew join K7QPX2 (a room on {DEFAULT_SERVER}); ratscrew join "
               "http://192.168.1.20:8000/r/K7QPX2 --name Ann; ratscrew join K7QPX2 --server "
               "192.168.1.20:8000 --watch. In the game: a play, s slap, Esc the room (seats; "
               "the host starts with s and asks for a rematch with r), F1 help, F10 resign, "
               f"Ctrl+Q quit. Seat tokens and your name are kept in {default_path()}.")
    parser.add_argument("room", metavar="URL_OR_CODE",
                        help="the room's code (K7QPX2) or its link (http://host:8000/r/K7QPX2)")
    parser.add_argument("--server", default=None, metavar="URL",
                        help=f"the server, when only a code is given (default: {DEFAULT_SERVER})")
    parser.add_argument("--name", default=None,
                        help="your name at the table, 1-24 characters (default: the name you "
                             "used last time, else your login name)")
    parser.add_argument("--watch", action="store_true",
                        help="watch without taking a seat")
    parser.add_argument("--keys", default=None, metavar="SPEC",
                        help="your keys, e.g. 'play:space,slap:enter' (default: play a, slap s)")
    parser.add_argument("--colour-blind", "--color-blind", dest="colour_blind", action="store_true",
                        help="four-colour cards with suit letters")
    parser.set_defaults(run=run)


def player_keys(spec: str | None) -> SeatKeys:
    """The player's keys from ``--keys``: ``play:KEY,slap:KEY`` (either may be left out; a
    ``p1=`` in front, as ``ratscrew play`` writes it, is allowed).

    >>> player_keys("slap:enter")
    SeatKeys(play='a', slap='enter')
    >>> player_keys("p1=play:f1")
    Traceback (most recent call last):
    ...
    ratscrew.tui.keys.KeyConfigError: key 'F1' for play is kept for help; choose another key
    """
    from ratscrew.tui.online import ONLINE_KEYS

    keys = DEFAULT_KEYS[0]
    text = (spec or "").strip()
    for binding in (b.strip() for b in text.partition("=")[2 if "=" in text else 0].split(",")):
        if not binding:
            continue
        action, sep, key = binding.partition(":")
        action = action.strip().lower()
        if not sep or action not in ACTIONS:
            raise KeyConfigError(f"cannot read {binding!r}: write play:KEY or slap:KEY")
        keys = replace(keys, **{action: normalize_key(key)})
    for action in ACTIONS:
        key = keys.key_for(action)
        if key in ONLINE_KEYS:
            raise KeyConfigError(f"key {key_label(key)!r} for {action} is kept for "
                                 f"{ONLINE_KEYS[key]}; choose another key")
    if keys.play == keys.slap:
        raise KeyConfigError(f"key {key_label(keys.play)!r} is mapped twice: play and slap")
    return keys


def player_name(given: str | None, saved: SavedState) -> str:
    """``--name``, else the name used last time, else the login name; checked as the server
    checks names."""
    name = given or saved.name
    if not name:
        try:
            name = getpass.getuser()
        except (OSError, KeyError, ImportError):
            name = "Player"
    try:
        return clean_name(name)[:24]
    except ProtocolError as error:
        raise JoinError(f"--name: {error}") from None


def room_is_full(room: dict[str, Any]) -> bool:
    """No seat a newcomer could take: the game is on, or every seat is taken."""
    return room.get("phase") == "playing" or not any(s.get("kind") == "open" for s in room["seats"])


def ask_to_watch(code: str) -> bool:
    """Offer to watch a full room (only when a person is at the keyboard)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    answer = input(f"Room {code} has no open seat (it is full, or its game has started). "
                   "Watch instead? [Y/n] ")
    return answer.strip().lower() in ("", "y", "yes")


def run(args: argparse.Namespace) -> int:
    address = parse_room_address(args.room, args.server)
    keys = player_keys(args.keys)
    saved = SavedState()
    name = player_name(args.name, saved)
    try:
        room = fetch_room(address)
    except RoomUnavailable as error:
        raise JoinError(str(error)) from None
    watch = bool(args.watch)
    token = saved.token(address.server, address.code)
    if not watch and token is None and room_is_full(room):
        if not ask_to_watch(address.code):
            raise JoinError(f"room {address.code} has no open seat (it is full, or its game has "
                            f"started): watch it with 'ratscrew join {address.code} --server "
                            f"{address.server} --watch', or ask the host for a seat")
        watch = True
    from ratscrew.tui.online import OnlineApp  # Textual is imported only once the room is there

    app = OnlineApp(address, name, watch=watch, keys=keys, colour_blind=args.colour_blind, saved=saved)
    app.run()
    if app.exit_message is not None:
        print(f"ratscrew: {app.exit_message}", file=sys.stderr)
        return 1
    return 0
