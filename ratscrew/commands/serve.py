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
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import uvicorn

    from ratscrew.server.ws.transport import ConnectionLimits

DEFAULT_DB = (Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
              / "ratscrew" / "ratscrew.db")
"""Where the server keeps rooms, games and statistics unless ``--db`` says otherwise."""
DEFAULT_IDLE_ROOM_HOURS = 24.0
"""``--idle-room-hours``'s default (`ratscrew.server.ops.expiry`)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the online server: friends play in their browsers",
        description="Run the ratscrew server. Open the printed address in a browser, create a "
                    "room (its seats wait for friends unless you put bots in them) and send its "
                    "link to your friends: whoever opens it before the start takes an open seat, "
                    "or else a bot's; who comes during a game waits and is dealt into the next "
                    "one; anyone may just watch. At the start the host fills seats still open "
                    "with bots or plays with fewer. Someone who leaves a game is played for by a "
                    "bot until they come back (--away-after-s). See docs/online.md for playing "
                    "over a LAN or behind a reverse proxy with TLS.",
        epilog=f"The database (rooms, finished games, statistics) defaults to {DEFAULT_DB}. "
               "Ctrl+C stops the server; games in progress resume when it starts again.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this computer only; "
                             "0.0.0.0 lets other computers on your network join)")
    parser.add_argument("--port", type=int, default=8000,
                        help="port to listen on (default: 8000; 0 picks a free one)")
    parser.add_argument("--db", default=None, metavar="FILE|URL",
                        help="SQLite database file, created when missing (default: "
                             f"$RATSCREW_DATABASE_URL, else {DEFAULT_DB}), or a "
                             "postgresql://USER@HOST/DB URL that several server processes share "
                             "(put a password in RATSCREW_DATABASE_URL or --db-file, not here: "
                             "ps shows command lines to every user)")
    parser.add_argument("--db-file", type=Path, default=None, metavar="PATH",
                        help="read the database URL from this file (e.g. a container secret)")
    parser.add_argument("--shard", default=None, metavar="LETTER",
                        help="own only the rooms whose code begins with LETTER (a room-code "
                             "letter); new rooms get such codes. For several processes behind "
                             "a proxy that routes by code (deploy/, docs/online.md)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="start N shard processes (letters A, B, C, ...) on ports PORT, "
                             "PORT+1, ...; needs a PostgreSQL database (RATSCREW_DATABASE_URL, "
                             "--db-file or --db). Front them with nginx: see --nginx-config")
    parser.add_argument("--nginx-config", type=Path, default=None, metavar="FILE",
                        help="with --workers: write the nginx routing to FILE (include it in "
                             "nginx's http block) and its locations beside it (routing.conf: "
                             "routing-locations.conf), at every start, and a server block that "
                             "includes them (routing-server.conf) once: yours to edit, it is "
                             "never overwritten; include it in the http block too")
    parser.add_argument("--public-url", default=None, metavar="URL",
                        help="the address players use when a proxy fronts this server (e.g. "
                             "https://ers.example.org/): printed instead of this process's own "
                             "(--workers passes nginx's)")
    parser.add_argument("--allowed-origin", "--allow-origin", dest="allow_origin", action="append",
                        default=[], metavar="ORIGIN",
                        help="this server's own address as browsers see it, e.g. "
                             "https://ers.example.org: pages from it may create rooms and open "
                             "websockets (repeatable). Needed when the server is reached by a "
                             "name; an IP address or localhost is accepted as it is")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="trust X-Forwarded-For from these proxy addresses or networks "
                             "(comma-separated; '*' is refused, since it would let any client "
                             "name its own address), so per-address limits see the players' real "
                             "addresses")
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
    parser.add_argument("--idle-room-hours", type=float, default=DEFAULT_IDLE_ROOM_HOURS, metavar="H",
                        help="close a room nobody has been in for H hours (fractions allowed; "
                             f"default: {DEFAULT_IDLE_ROOM_HOURS:g}): it leaves memory and is not "
                             "loaded again; its link says it has closed")
    parser.add_argument("--connections-per-address", type=int, default=None, metavar="N",
                        help="open connections one address may hold (default: 200)")
    parser.add_argument("--header-timeout-s", type=float, default=None, metavar="S",
                        help="seconds a request (its headers, and its body if it has one) may take "
                             "to arrive before the connection is closed (default: 10)")
    parser.add_argument("--unknown-codes-per-minute", type=int, default=None, metavar="N",
                        help="lookups of room codes that do not exist one address may make in a "
                             "minute before its lookups are refused (default: 30)")
    parser.add_argument("--away-after-s", type=float, default=None, metavar="S",
                        help="seconds a seated person may be without a connection during a game "
                             "before a bot plays for them until they come back (default: 120)")
    parser.add_argument("--abandon-after-s", type=float, default=None, metavar="S",
                        help="seconds after which a game whose people have all gone ends as "
                             "abandoned: no winner, unrated, back to the lobby (default: 300)")
    parser.add_argument("--lab-cache", default=None, metavar="DIR|off",
                        help="folder where lobbies' expected game lengths are kept, so that a "
                             "restart or another shard of this machine shows them at once "
                             "(default: $RATSCREW_LAB_CACHE, else ~/.cache/ratscrew/lengths; "
                             "off: keep them in memory only)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                        help="how much the server logs on stderr (default: info)")
    parser.add_argument("--log-format", default="text", choices=["text", "json"],
                        help="log lines as text (time with zone, level, shard, logger, message) "
                             "or as one JSON object a line for a log shipper (default: text)")
    parser.set_defaults(run=run)


def _listen(host: str, port: int) -> socket.socket:
    from ratscrew.server.ws.transport import GuardedListener

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = GuardedListener(family, socket.SOCK_STREAM)
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


def check_trusted_proxies(forwarded_allow_ips: str | None) -> None:
    """Refuse ``--forwarded-allow-ips *`` (or an empty list): trusting every peer's
    ``X-Forwarded-For`` lets any client name its own address, past every per-address limit.

    >>> check_trusted_proxies("127.0.0.1,10.0.0.0/8")
    >>> check_trusted_proxies("10.0.0.2, *")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --forwarded-allow-ips '10.0.0.2, *' would let any client name its own address...
    """
    if forwarded_allow_ips is None:
        return
    items = [item.strip() for item in forwarded_allow_ips.split(",")]
    if "*" in items or not any(items):
        raise ValueError(f"--forwarded-allow-ips {forwarded_allow_ips!r} would let any client name "
                         "its own address (and pass every per-address limit); name the proxies, "
                         "e.g. --forwarded-allow-ips 127.0.0.1")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ratscrew.server.app import create_app
    from ratscrew.server.ops.filelimit import raise_open_file_limit
    from ratscrew.server.ops.logs import announce, configure_logging
    from ratscrew.server.ops.metrics import parse_trusted
    from ratscrew.server.ops.settings import password_on_command_line, resolve_database
    from ratscrew.server.ops.shards import check_shard
    from ratscrew.server.ops.supervisor import watch_parent_from_environment
    from ratscrew.server.ws.transport import install_accept_error_filter
    from ratscrew.storage.opening import is_database_url, open_store
    from ratscrew.storage.records import StoreError

    if password_on_command_line(args.db):
        print("ratscrew: warning: the --db password shows in ps; put the URL in "
              "RATSCREW_DATABASE_URL or a --db-file instead", file=sys.stderr)
    args.db = resolve_database(args.db, args.db_file, default=str(DEFAULT_DB))
    if not args.idle_room_hours > 0:  # 0, a negative number or nan would close every room at once
        raise ValueError("--idle-room-hours is a number of hours above 0 (fractions allowed, e.g. "
                         f"0.5), not {args.idle_room_hours:g}")
    check_trusted_proxies(args.forwarded_allow_ips)
    if args.workers is not None:
        return run_workers(args)
    if args.nginx_config is not None:
        raise ValueError("--nginx-config goes with --workers")
    shard = None if args.shard is None else check_shard(args.shard)
    watch_parent_from_environment()  # a shard of --workers stops when its supervisor is gone
    configure_logging(args.log_level, args.log_format, shard)
    install_accept_error_filter()
    limits, connection_limits = _limits(args)
    absence = _absence_times(args)
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
        _refuse_start(str(error))
    raise_open_file_limit()  # one open file per socket: systemd's soft default of 1,024 is few
    try:
        store.claim(shard)
        sock = _listen(args.host, args.port)
    except (ValueError, StoreError) as error:
        store.close()
        _refuse_start(str(error))
    port = sock.getsockname()[1]
    app = create_app(store, limits=limits, allowed_origins=_own_origins(args, port),
                     close_store=True, shard=shard, idle_room_hours=args.idle_room_hours,
                     absence=absence, settle_gc=True,
                     lab_cache=args.lab_cache)
    app.state.trusted_proxies = parse_trusted(args.forwarded_allow_ips)  # who may read /metrics
    server = uvicorn.Server(uvicorn_config(app, connection_limits, args.forwarded_allow_ips, sock))
    addresses = _addresses(args.host, port)

    def tell(text: str) -> None:  # the lines for whoever started it: text, or JSON like the logs
        announce(text, args.log_format, shard)

    if args.public_url:  # behind a proxy: the address players use, not this process's port
        public = args.public_url.rstrip("/")
        tell(f"ratscrew server running behind {public}/ (this process: {addresses[0]}); "
             f"players open {public}/ in a browser")
        tell(f"  or from a terminal: ratscrew join CODE --server {public}  (CODE: the room's code)")
        addresses = []
    else:
        tell(f"ratscrew server running; open {addresses[0]} in a browser")
    if addresses:
        lan = next((a for a in addresses if "//127." not in a), addresses[0]).rstrip("/")
        tell(f"  or from a terminal: ratscrew join CODE --server {lan}  (CODE: the room's code)")
    for other in addresses[1:]:
        tell(f"  friends on your network: {other}")
    tell(f"database: {store.description}" + (f"   shard: {shard}" if shard else "")
         + "   (Ctrl+C stops the server)")
    try:
        server.run(sockets=[sock])
    finally:
        store.close()
    return 0


def uvicorn_config(app: Any, connection_limits: ConnectionLimits,
                   forwarded_allow_ips: str | None, listener: socket.socket | None = None) -> uvicorn.Config:
    """The ``uvicorn.Config`` this server runs ``app`` with: the guarded HTTP and batched-read
    websocket protocols (`ratscrew.server.ws.transport`), no per-message deflate, no access log;
    a `GuardedListener` ``listener`` refuses what their registry refuses as it accepts.
    ``benchmarks/ws_floor.py`` runs its bare floor on the same configuration."""
    import uvicorn

    from ratscrew.protocol.codec import MAX_FRAME_BYTES
    from ratscrew.server.ws.transport import GuardedListener, guarded_protocols

    http_protocol, ws_protocol, registry = guarded_protocols(connection_limits, forwarded_allow_ips)
    if isinstance(listener, GuardedListener):
        listener.registry = registry
    return uvicorn.Config(app, log_level="warning", log_config=None, http=http_protocol, ws=ws_protocol,
                          ws_max_size=MAX_FRAME_BYTES,
                          ws_per_message_deflate=False,
                          proxy_headers=forwarded_allow_ips is not None,
                          forwarded_allow_ips=forwarded_allow_ips, access_log=False,
                          timeout_graceful_shutdown=3)


def _refuse_start(message: str) -> NoReturn:
    """Stop a start that cannot go on (status 2): a shard of ``--workers`` logs why in the log
    format (time, level, shard; one JSON object with ``--log-format json``), since its supervisor
    starts it again and its lines mix with the other shards'; otherwise one ``ratscrew: error:``
    line for whoever typed the command."""
    from ratscrew.server.ops.supervisor import PARENT_ENV

    if not os.environ.get(PARENT_ENV):
        raise ValueError(message)
    logging.getLogger("ratscrew.server").error("cannot start: %s", message)
    raise SystemExit(2)


def _limits(args: argparse.Namespace) -> tuple[Any, Any]:
    """The app's `Limits` and the transport's `ConnectionLimits` from the command line."""
    from ratscrew.server.http.limits import Limits
    from ratscrew.server.ws.transport import ConnectionLimits

    given = {name: value for name, value in (
        ("rooms_per_hour", args.rooms_per_hour), ("joins_per_minute", args.joins_per_minute),
        ("connections_per_address", args.connections_per_address),
        ("unknown_codes_per_minute", args.unknown_codes_per_minute)) if value is not None}
    for name, value in given.items():
        if value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.header_timeout_s is not None and not 0 < args.header_timeout_s < float("inf"):
        raise ValueError("--header-timeout-s must be a number of seconds above 0")
    connections = ConnectionLimits(**{name: value for name, value in (
        ("connections_per_address", args.connections_per_address),
        ("header_timeout_s", args.header_timeout_s)) if value is not None})
    return Limits(**given), connections


def _own_origins(args: argparse.Namespace, port: int) -> frozenset[str]:
    """``--allowed-origin`` values, plus ``http://HOST:PORT`` when ``--host`` is a name."""
    origins = {origin.rstrip("/") for origin in args.allow_origin}
    host = str(args.host)
    if host not in ("0.0.0.0", "::") and not host.replace(".", "").isdigit() and ":" not in host:
        origins.add(f"http://{host.lower()}:{port}")
    return frozenset(origins)


def _absence_times(args: argparse.Namespace) -> Any:
    """The ``--away-after-s`` and ``--abandon-after-s`` durations (an `AbsenceTimes`)."""
    from ratscrew.server.room.absence import AbsenceTimes

    defaults = AbsenceTimes()
    times = AbsenceTimes(
        defaults.away_after_s if args.away_after_s is None else args.away_after_s,
        defaults.abandon_after_s if args.abandon_after_s is None else args.abandon_after_s)
    for flag, value in (("--away-after-s", times.away_after_s),
                        ("--abandon-after-s", times.abandon_after_s)):
        if not 0 < value <= 86_400:
            raise ValueError(f"{flag} is a number of seconds above 0 and at most 86400 (a day), "
                             f"not {value:g}")
    return times



def run_workers(args: argparse.Namespace) -> int:
    """``--workers N``: one ``ratscrew serve --shard L`` process per shard on consecutive ports,
    kept running by `ratscrew.server.ops.supervisor.Supervisor` (a shard that stops is started again
    with back-off, and its rooms come back from the database) until this process is stopped,
    which stops them all (as does its death: they watch it)."""
    from ratscrew.server.ops.logs import configure_logging
    from ratscrew.server.ops.nginx import write_split
    from ratscrew.server.ops.settings import DATABASE_ENV
    from ratscrew.server.ops.shards import shard_letters
    from ratscrew.server.ops.supervisor import Supervisor, say
    from ratscrew.storage.deployment import DeploymentClaim, describe_this_deployment
    from ratscrew.storage.opening import is_database_url
    from ratscrew.storage.records import StoreError, StoreInUse

    if not is_database_url(args.db):
        raise ValueError("--workers needs a shared PostgreSQL database: set "
                         "RATSCREW_DATABASE_URL=postgresql://USER:PASSWORD@HOST/DB (or give "
                         "--db-file FILE holding the URL); a SQLite file serves one process")
    if args.shard is not None:
        raise ValueError("--workers gives each process its own --shard; leave --shard out")
    if args.port == 0:
        raise ValueError("--workers needs a fixed --port (the first shard's; the others follow)")
    letters = shard_letters(args.workers)
    configure_logging(args.log_level, args.log_format)
    # the supervisor's own lines: printed for a person, or logged as JSON lines with the rest
    announce_to = None if args.log_format == "json" else sys.stdout
    ports = [args.port + i for i in range(len(letters))]
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    if args.nginx_config is not None:
        shards = [(letter, f"{shown_host}:{port}") for letter, port in zip(letters, ports, strict=True)]
        try:  # e.g. /etc/nginx/ratscrew/, which no package makes
            args.nginx_config.parent.mkdir(parents=True, exist_ok=True)
            written = write_split(args.nginx_config, shards, "8080")
        except OSError as error:
            raise ValueError(f"--nginx-config: cannot write {error.filename or args.nginx_config}: "
                             f"{error.strerror}") from None
        for line in written:
            say(line, announce_to)
    # the database goes in the shards' environment, not on their command lines
    passed = ["--host", args.host, "--log-level", args.log_level, "--log-format", args.log_format]
    public_url = args.public_url or (f"http://{shown_host}:8080/" if args.nginx_config is not None else None)
    if public_url:
        passed += ["--public-url", public_url]
    for option in ("players_per_hour", "key_codes_per_hour"):  # issue 29
        if getattr(args, option) is not None:
            passed += ["--" + option.replace("_", "-"), str(getattr(args, option))]
    for origin in args.allow_origin:
        passed += ["--allow-origin", origin]
    if args.forwarded_allow_ips is not None:
        passed += ["--forwarded-allow-ips", args.forwarded_allow_ips]
    passed += ["--idle-room-hours", repr(args.idle_room_hours)]
    if args.lab_cache is not None:
        passed += ["--lab-cache", args.lab_cache]
    if args.rooms_per_hour is not None:
        passed += ["--rooms-per-hour", str(args.rooms_per_hour)]
    if args.joins_per_minute is not None:
        passed += ["--joins-per-minute", str(args.joins_per_minute)]
    if args.connections_per_address is not None:
        passed += ["--connections-per-address", str(args.connections_per_address)]
    if args.unknown_codes_per_minute is not None:
        passed += ["--unknown-codes-per-minute", str(args.unknown_codes_per_minute)]
    if args.header_timeout_s is not None:
        passed += ["--header-timeout-s", repr(args.header_timeout_s)]
    _absence_times(args)  # refused here, once, rather than by every shard
    for flag, value in (("--away-after-s", args.away_after_s), ("--abandon-after-s", args.abandon_after_s)):
        if value is not None:
            passed += [flag, repr(value)]

    command = [sys.executable, "-m", "ratscrew", "serve", *passed]
    try:  # one deployment per database: a second is refused, naming the first (issue 47)
        claim = DeploymentClaim(args.db, describe_this_deployment(f"{ports[0]}-{ports[-1]}"))
    except StoreInUse as error:
        raise ValueError(f"{error.holder}; stop it first, then start this one") from None
    except StoreError as error:
        raise ValueError(str(error)) from None
    supervisor = Supervisor({letter: [*command, "--shard", letter, "--port", str(port)]
                             for letter, port in zip(letters, ports, strict=True)},
                            environment={DATABASE_ENV: args.db}, each_step=claim.keep)
    say(f"{len(letters)} shards ({', '.join(letters)}) on {shown_host}:{ports[0]}-{ports[-1]}; "
        "front them with nginx" + (f" ({args.nginx_config})" if args.nginx_config else
                                   " (--nginx-config FILE writes its configuration)"), announce_to)
    try:
        return supervisor.run()
    finally:
        claim.close()
