"""``ratscrew serve``: run the online server, so friends can play from their browsers.

The listening socket is opened here, before the server starts, so a port already in use or a
database that cannot be used is one clear line on stderr (exit status 2), never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

DEFAULT_DB = (Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
              / "ratscrew" / "ratscrew.db")
"""Where the server keeps rooms, games and statistics unless ``--db`` says otherwise."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the online server: friends play in their browsers",
        description="Run the ratscrew server. Open the printed address in a browser, create a "
                    "room and send its link to your friends; bots fill empty seats and anyone "
                    "else who opens the link watches. See docs/online.md for playing over a LAN "
                    "or behind a reverse proxy with TLS.",
        epilog=f"The database (rooms, finished games, statistics) defaults to {DEFAULT_DB}. "
               "Ctrl+C stops the server; games in progress resume when it starts again.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this computer only; "
                             "0.0.0.0 lets other computers on your network join)")
    parser.add_argument("--port", type=int, default=8000,
                        help="port to listen on (default: 8000; 0 picks a free one)")
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, metavar="FILE",
                        help=f"SQLite database file, created when missing (default: {DEFAULT_DB})")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="also accept browser websockets from this origin, e.g. "
                             "https://ers.example.org when a proxy changes the host name (repeatable)")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="trust X-Forwarded-For from these proxy addresses (comma-separated), "
                             "so per-address limits see the players' real addresses")
    parser.add_argument("--rooms-per-hour", type=int, default=None, metavar="N",
                        help="rooms one address may create in an hour (default: 20)")
    parser.add_argument("--joins-per-minute", type=int, default=None, metavar="N",
                        help="joins one address may make in a minute (default: 60)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                        help="how much the server logs on stderr (default: info)")
    parser.set_defaults(run=run)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        hint = " (is another server running? pick another --port)" if port else ""
        raise ValueError(f"cannot listen on {host}:{port}: {error.strerror}{hint}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _addresses(host: str, port: int) -> list[str]:
    if host not in ("0.0.0.0", "::"):
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}/"]
    names = {"127.0.0.1"}
    with contextlib.suppress(OSError):
        names |= {a for a in socket.gethostbyname_ex(socket.gethostname())[2] if not a.startswith("127.")}
    return [f"http://{name}:{port}/" for name in sorted(names)]


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ratscrew.server.app import Limits, create_app
    from ratscrew.server.protocol import MAX_FRAME_BYTES
    from ratscrew.server.store import Store, StoreError

    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    limits = Limits()
    if args.rooms_per_hour is not None or args.joins_per_minute is not None:
        limits = Limits(rooms_per_hour=args.rooms_per_hour or limits.rooms_per_hour,
                        joins_per_minute=args.joins_per_minute or limits.joins_per_minute)
    try:
        args.db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot create the folder for the database {args.db}: {error.strerror}") from None
    try:
        store = Store(args.db)
    except StoreError as error:
        raise ValueError(str(error)) from None
    try:
        sock = _listen(args.host, args.port)
    except ValueError:
        store.close()
        raise
    port = sock.getsockname()[1]
    app = create_app(store, limits=limits, allowed_origins=frozenset(args.allow_origin),
                     close_store=True)
    config = uvicorn.Config(app, log_level="warning", ws_max_size=MAX_FRAME_BYTES,
                            ws_per_message_deflate=False,
                            proxy_headers=args.forwarded_allow_ips is not None,
                            forwarded_allow_ips=args.forwarded_allow_ips, access_log=False,
                            timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    addresses = _addresses(args.host, port)
    print(f"ratscrew server running; open {addresses[0]} in a browser", flush=True)
    lan = next((a for a in addresses if "//127." not in a), addresses[0]).rstrip("/")
    print(f"  or from a terminal: ratscrew join CODE --server {lan}  (CODE: the room's code)", flush=True)
    for other in addresses[1:]:
        print(f"  friends on your network: {other}", flush=True)
    print(f"database: {args.db}   (Ctrl+C stops the server)", flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        store.close()
    return 0
