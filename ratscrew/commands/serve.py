"""``ratscrew serve``: run the online server, so friends can play from their browsers.

The listening socket is opened here, before the server starts, so a port already in use or a
database that cannot be used (a damaged file, an unreachable PostgreSQL) is one clear line on
stderr (exit status 2), never a traceback.

Past one process (docs/online.md, "Shards"): ``--db postgresql://…`` shares finished games,
statistics and limits between processes, ``--shard LETTER`` makes this process own the rooms
whose code begins with that letter, and ``--workers N`` starts N such processes on consecutive
ports (`run_workers`), to be fronted by nginx (``--nginx-config``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import signal
import socket
import subprocess
import sys
import time
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
    parser.add_argument("--db", default=str(DEFAULT_DB), metavar="FILE|URL",
                        help="SQLite database file, created when missing (default: "
                             f"{DEFAULT_DB}), or a postgresql://USER:PASSWORD@HOST/DB URL that "
                             "several server processes share")
    parser.add_argument("--shard", default=None, metavar="LETTER",
                        help="own only the rooms whose code begins with LETTER (a room-code "
                             "letter); new rooms get such codes. For several processes behind "
                             "a proxy that routes by code (deploy/, docs/online.md)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="start N shard processes (letters A, B, C, ...) on ports PORT, "
                             "PORT+1, ...; needs a postgresql:// --db. Front them with nginx: "
                             "see --nginx-config")
    parser.add_argument("--nginx-config", type=Path, default=None, metavar="FILE",
                        help="with --workers: write the nginx configuration that routes each "
                             "room to its shard to FILE (include it in nginx's http block)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="also accept browser websockets from this origin, e.g. "
                             "https://ers.example.org when a proxy changes the host name (repeatable)")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="trust X-Forwarded-For from these proxy addresses (comma-separated), "
                             "so per-address limits see the players' real addresses")
    parser.add_argument("--players-per-hour", type=int, default=None, metavar="N",
                        help="new players (joins with a player key the server has not seen) one "
                             "address may bring in an hour (default: 20)")
    parser.add_argument("--key-codes-per-hour", type=int, default=None, metavar="N",
                        help="player key exports and imports one address may ask for in an hour "
                             "(default: 30)")
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


def _player_limits(limits: Any, args: argparse.Namespace) -> Any:
    """``limits`` (the app's `Limits`) with ``--players-per-hour`` and ``--key-codes-per-hour``
    when given; a number below 1 is a usage error."""
    changes = {option: value for option in ("players_per_hour", "key_codes_per_hour")
               if (value := getattr(args, option)) is not None}
    for option, value in changes.items():
        if value < 1:
            raise ValueError(f"--{option.replace('_', '-')} must be at least 1, not {value}")
    return dataclasses.replace(limits, **changes)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ratscrew.server.app import Limits, create_app
    from ratscrew.server.protocol import MAX_FRAME_BYTES
    from ratscrew.server.shards import check_shard
    from ratscrew.server.store import StoreError, is_database_url, open_store
    from ratscrew.server.wsprotocol import BatchedReadProtocol

    if args.workers is not None:
        return run_workers(args)
    if args.nginx_config is not None:
        raise ValueError("--nginx-config goes with --workers")
    shard = None if args.shard is None else check_shard(args.shard)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    limits = Limits()
    if args.rooms_per_hour is not None or args.joins_per_minute is not None:
        limits = Limits(rooms_per_hour=args.rooms_per_hour or limits.rooms_per_hour,
                        joins_per_minute=args.joins_per_minute or limits.joins_per_minute)
    db: str | Path = args.db if is_database_url(args.db) else Path(args.db)
    limits = _player_limits(limits, args)  # issue 29
    if isinstance(db, Path):
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ValueError(f"cannot create the folder for the database {db}: {error.strerror}") from None
    try:
        store = open_store(db)
    except StoreError as error:
        raise ValueError(str(error)) from None
    try:
        store.claim(shard)
        sock = _listen(args.host, args.port)
    except (ValueError, StoreError) as error:
        store.close()
        raise ValueError(str(error)) from None
    port = sock.getsockname()[1]
    app = create_app(store, limits=limits, allowed_origins=frozenset(args.allow_origin),
                     close_store=True, shard=shard)
    config = uvicorn.Config(app, log_level="warning", ws=BatchedReadProtocol,
                            ws_max_size=MAX_FRAME_BYTES,
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
    print(f"database: {store.description}" + (f"   shard: {shard}" if shard else "")
          + "   (Ctrl+C stops the server)", flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        store.close()
    return 0


WORKER_RESTART_S = 1.0
"""How long a crashed shard process is left down before ``--workers`` starts it again."""


def run_workers(args: argparse.Namespace) -> int:
    """``--workers N``: one ``ratscrew serve --shard L`` process per shard on consecutive ports,
    kept running (a shard that dies is started again: its rooms come back from the database)
    until this process is stopped, which stops them all."""
    from ratscrew.server.nginx import render_http
    from ratscrew.server.shards import shard_letters
    from ratscrew.server.store import is_database_url

    if not is_database_url(args.db):
        raise ValueError("--workers needs a shared database: --db postgresql://USER@HOST/DB "
                         "(a SQLite file serves one process)")
    if args.shard is not None:
        raise ValueError("--workers gives each process its own --shard; leave --shard out")
    if args.port == 0:
        raise ValueError("--workers needs a fixed --port (the first shard's; the others follow)")
    letters = shard_letters(args.workers)
    ports = [args.port + i for i in range(len(letters))]
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if args.nginx_config is not None:
        shards = [(letter, f"{shown_host}:{port}") for letter, port in zip(letters, ports, strict=True)]
        args.nginx_config.write_text(render_http(shards, "8080"))
    passed = ["--host", args.host, "--db", args.db, "--log-level", args.log_level]
    for option in ("players_per_hour", "key_codes_per_hour"):  # issue 29
        if getattr(args, option) is not None:
            passed += ["--" + option.replace("_", "-"), str(getattr(args, option))]
    for origin in args.allow_origin:
        passed += ["--allow-origin", origin]
    if args.forwarded_allow_ips is not None:
        passed += ["--forwarded-allow-ips", args.forwarded_allow_ips]
    if args.rooms_per_hour is not None:
        passed += ["--rooms-per-hour", str(args.rooms_per_hour)]
    if args.joins_per_minute is not None:
        passed += ["--joins-per-minute", str(args.joins_per_minute)]

    def start(letter: str, port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "ratscrew", "serve", "--shard", letter,
                                 "--port", str(port), *passed])

    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    workers = {letter: start(letter, port) for letter, port in zip(letters, ports, strict=True)}
    print(f"ratscrew: {len(workers)} shards ({', '.join(letters)}) on {shown_host}:{ports[0]}-{ports[-1]}; "
          "front them with nginx" + (f" ({args.nginx_config})" if args.nginx_config else
                                     " (--nginx-config FILE writes its configuration)"), flush=True)
    status = 0
    try:
        while not stopping:
            time.sleep(0.2)
            for letter, port in zip(letters, ports, strict=True):
                code = workers[letter].poll()
                if code is None or stopping:
                    continue
                if code == 2:  # a start-up error (port taken, database refused): said on stderr
                    stopping, status = True, 2
                    break
                print(f"ratscrew: shard {letter} stopped (status {code}); starting it again",
                      file=sys.stderr, flush=True)
                time.sleep(WORKER_RESTART_S)
                workers[letter] = start(letter, port)
    finally:
        for process in workers.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in workers.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    return status
