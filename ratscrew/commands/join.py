"""``ratscrew join``: sit at an online table (``ratscrew serve``) from the terminal, or watch it.

Before the screen opens the room is looked up over HTTP, so a mistyped code or a server that is
not running is one line on stderr that says what to do (exit status 2), never a traceback. Then
the same table as ``ratscrew play`` opens, seated through the public websocket protocol
(docs/protocol.md) exactly as a browser is: a seat, or (the room full, or its game on) waiting to
be dealt into the next game while watching this one.

``--quick`` seeks a table of strangers first (quick play, `ratscrew.client.quick`): the wait is
shown on stderr, and once matched the table opens on the matched room, where the seat is kept
for this computer's player key.

``--import-code`` brings a player from another device first (this computer plays as that player
on that server from then on); ``--export-code`` prints the code that takes this computer's player
to another device, and joins nothing.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from dataclasses import replace
from typing import Any

from ratscrew.client.address import DEFAULT_SERVER, RoomAddress, normalize_server, parse_room_address
from ratscrew.client.link import RoomUnavailable, fetch_room
from ratscrew.client.players import PlayerCodeError, export_code, import_player
from ratscrew.client.quick import SeekFailed, seek_table
from ratscrew.client.saved import SavedState, default_path
from ratscrew.protocol.client_messages import POOL_PLAYERS, POOL_RULES, clean_name
from ratscrew.protocol.codec import ProtocolError
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
               "Ctrl+Q quit. A room whose game is on (or whose seats are all taken) deals you "
               "into its next game; you watch meanwhile. Seat tokens, your name and your player "
               f"key are kept in {default_path()}.")
    parser.add_argument("room", metavar="URL_OR_CODE", nargs="?",
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
    parser.add_argument("--quick", action="store_true",
                        help="quick play: wait for strangers near your rating (rated) and sit "
                             "down at the table made for you; give the server with --server")
    parser.add_argument("--rules", default="classic", choices=POOL_RULES,
                        help="with --quick: the preset of the pool (default: classic)")
    parser.add_argument("--players", default=2, type=int, choices=POOL_PLAYERS,
                        help="with --quick: the table's size (default: 2)")
    parser.add_argument("--import-code", default=None, metavar="CODE",
                        help="play as your player from another device: the import code from "
                             "your player page there (or from --export-code in a terminal); "
                             "this computer's own player key on that server is kept aside")
    parser.add_argument("--export-code", action="store_true",
                        help="print the import code that takes this computer's player on the "
                             "server to another device, and join nothing (give the server with "
                             "--server or a room link)")
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


def server_of(args: argparse.Namespace) -> str:
    """The server a room link or ``--server`` names (the room code may be left out)."""
    if args.room:
        return parse_room_address(args.room, args.server).server
    return normalize_server(args.server or DEFAULT_SERVER)


def bring_player(saved: SavedState, server: str, code: str) -> str:
    """Take the player of import ``code`` on ``server`` into this computer's saved state; the
    player's name there."""
    try:
        player = import_player(server, code)
    except PlayerCodeError as error:
        raise JoinError(str(error)) from None
    saved.replace_player_key(server, player.player_key)
    print(f"ratscrew: this computer now plays as {player.name} on {server} "
          f"({server}/players/{player.player_id})", file=sys.stderr)
    return player.name


def print_export_code(saved: SavedState, server: str) -> int:
    """``--export-code``: print this computer's import code on ``server``."""
    if not saved.has_player_key(server):
        raise JoinError(f"this computer has not played on {server} yet: join a room there first")
    try:
        code = export_code(server, saved.player_key(server))
    except PlayerCodeError as error:
        raise JoinError(str(error)) from None
    print(code)
    print(f"Your import code on {server}: on the other device paste it on your player page "
          f"(\"Is this you?\"), or run ratscrew join CODE --server {server} --import-code "
          f"{code}. Keep it secret: it is your player.", file=sys.stderr)
    return 0


def quick_table(saved: SavedState, server: str, rules: str, players: int, name: str) -> RoomAddress:
    """``--quick``: seek on ``server`` until a table is made, showing the wait; its room."""
    def show(line: str) -> None:
        print(f"\r{line}  ", end="", file=sys.stderr, flush=True)

    try:
        address, matched = seek_table(server, rules, players, name, saved.player_key(server), show)
    except SeekFailed as error:
        print(file=sys.stderr)
        raise JoinError(str(error)) from None
    others = [p["name"] for p in matched["players"] if p["name"] != name]
    print(f"\rMatched with {', '.join(others)}: room {address.code} ({address.page_url})",
          file=sys.stderr)
    return address


def run(args: argparse.Namespace) -> int:
    saved = SavedState()
    if args.export_code:
        return print_export_code(saved, server_of(args))
    if args.quick:
        if args.room or args.watch:
            raise JoinError("--quick finds the room itself: give no room, and no --watch")
        keys = player_keys(args.keys)
        server = server_of(args)
        imported = bring_player(saved, server, args.import_code) if args.import_code else None
        name = player_name(args.name or imported, saved)
        address = quick_table(saved, server, args.rules, args.players, name)
    else:
        if not args.room:
            raise JoinError("name the room: ratscrew join CODE (or the room's link), or "
                            "ratscrew join --quick")
        address = parse_room_address(args.room, args.server)
        keys = player_keys(args.keys)
        if args.name is not None:
            player_name(args.name, saved)  # a bad --name is refused before anything is done
        try:
            fetch_room(address)
        except RoomUnavailable as error:
            raise JoinError(str(error)) from None
        imported = bring_player(saved, address.server, args.import_code) if args.import_code else None
        name = player_name(args.name or imported, saved)
    from ratscrew.tui.online import OnlineApp  # Textual is imported only once the room is there

    app = OnlineApp(address, name, watch=bool(args.watch), keys=keys, colour_blind=args.colour_blind,
                    saved=saved)
    app.run()
    if app.exit_message is not None:
        print(f"ratscrew: {app.exit_message}", file=sys.stderr)
        return 1
    return 0
