"""``ratscrew admin``: an operator's tools for a server's database (docs/online.md, "Operating it").

- ``ratscrew admin rooms list [--all]``: the rooms (open ones; ``--all`` adds the closed);
- ``ratscrew admin rooms close CODE [--force]``: close a room (a running server drops it within a
  minute); a game in progress is discarded only with ``--force``;
- ``ratscrew admin db copy FROM TO``: copy a whole database into an empty one, SQLite to
  PostgreSQL or back, with each table's rows counted on both sides
  (`ratscrew.server.ops.dbcopy`);
- ``ratscrew admin db restore BACKUP --db FILE``: put a SQLite backup in place of a stopped
  server's database, checked, keeping the old files (`ratscrew.storage.restore`);
- ``ratscrew admin players clear-flag ID`` / ``show-flag ID``: review a player's integrity flag
  (docs/fairness.md, "Integrity"): clearing it takes back and rates again the ruleset's games
  since its evidence, with the player in them;
- ``ratscrew admin arenas create|list|cancel``: timed tournaments (issue 50) made by the operator,
  every arena listed with its state, or one cancelled.

The database is found as ``ratscrew serve`` finds it: ``--db``, ``--db-file`` or
``RATSCREW_DATABASE_URL`` (`ratscrew.server.ops.settings`). A SQLite file can be used by one process
at a time: stop its server first.
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import Any

from ratscrew.commands.serve import DEFAULT_DB


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "admin", help="operate a server's database: rooms, database copies, players' integrity flags",
        description="Tools for whoever runs 'ratscrew serve'. The database is given as for "
                    "serve: --db FILE|URL, --db-file PATH, or RATSCREW_DATABASE_URL.",
        epilog="examples: ratscrew admin rooms list --all;  ratscrew admin rooms close AB23CD;  "
               "ratscrew admin db copy ratscrew.db postgresql://ratscrew@db/ratscrew;  "
               "ratscrew admin players clear-flag AbC123xYz_-Q")
    areas = parser.add_subparsers(dest="area", metavar="AREA")
    parser.set_defaults(run=lambda args: _usage(parser))

    rooms = areas.add_parser("rooms", help="list or close rooms",
                             description="List the rooms of a server's database, or close one.")
    rooms_actions = rooms.add_subparsers(dest="action", metavar="ACTION")
    rooms.set_defaults(run=lambda args: _usage(rooms))
    listing = rooms_actions.add_parser(
        "list", help="the rooms: code, phase, created, last change, games",
        description="List the database's rooms that are not closed: code, phase (lobby, playing, "
                    "over), when made, last change and games played. A SQLite database is "
                    "used by one process at a time: stop its server first (PostgreSQL: no need).")
    listing.add_argument("--all", action="store_true", help="closed rooms too")
    _database_options(listing)
    listing.set_defaults(run=list_rooms)
    closing = rooms_actions.add_parser(
        "close", help="close a room: its link says it has closed, and it is never loaded again",
        description="Close a room. A server that holds it (PostgreSQL) drops it within a minute. "
                    "A room with a game in progress keeps it unless --force is given: closing it "
                    "discards that game (it is never finished, rated or shown in records).")
    closing.add_argument("code", metavar="CODE", help="the room's code")
    closing.add_argument("--force", action="store_true",
                         help="close it even with a game in progress, discarding that game")
    _database_options(closing)
    closing.set_defaults(run=close_room)

    db = areas.add_parser("db", help="copy a database", description="Database tools.")
    db_actions = db.add_subparsers(dest="action", metavar="ACTION")
    db.set_defaults(run=lambda args: _usage(db))
    copying = db_actions.add_parser(
        "copy", help="copy everything into an empty database (SQLite <-> PostgreSQL)",
        description="Copy rooms, games, players and their keys, ratings and everything else "
                    "from FROM into the empty database TO (created and migrated if need be), "
                    "then count each table's rows on both sides. Stop the servers first. A "
                    "PostgreSQL password can come from the environment (PGPASSWORD) or ~/.pgpass "
                    "instead of the URL.")
    copying.add_argument("source", metavar="FROM", help="SQLite file or postgresql:// URL")
    copying.add_argument("target", metavar="TO", help="SQLite file or postgresql:// URL (empty)")
    copying.set_defaults(run=copy_database)
    restoring = db_actions.add_parser(
        "restore", help="put a SQLite backup in place of the server's database file, checked",
        description="Put the SQLite backup BACKUP in place of the database file (--db, as for "
                    "'ratscrew serve'; the server must be stopped). The backup is checked first "
                    "(SQLite's integrity check), copied beside the database and checked again; the "
                    "old database and its -wal and -shm files are kept beside it with "
                    ".replaced-TIME added (nothing is deleted), and the result is opened as the "
                    "server opens it. For PostgreSQL use pg_restore (docs/online.md, 'Backup and "
                    "restore').",
        epilog="example: ratscrew admin db restore /backups/ratscrew-2026-11-28.db --db ratscrew.db")
    restoring.add_argument("backup", metavar="BACKUP", type=Path, help="the SQLite backup file")
    _database_options(restoring)
    restoring.set_defaults(run=restore_database)

    register_players(areas)
    register_arenas(areas)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _database_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, metavar="FILE|URL",
                        help=f"the database (default: $RATSCREW_DATABASE_URL, else {DEFAULT_DB})")
    parser.add_argument("--db-file", type=Path, default=None, metavar="PATH",
                        help="read the database URL from this file")


def _open(args: argparse.Namespace) -> Any:
    from ratscrew.server.ops.settings import resolve_database
    from ratscrew.storage.opening import is_database_url, open_store
    from ratscrew.storage.records import StoreError, StoreInUse

    where = resolve_database(args.db, args.db_file, default=str(DEFAULT_DB))
    if not is_database_url(where) and not Path(where).is_file():
        raise ValueError(f"{where}: no such database file")
    try:
        return open_store(where if is_database_url(where) else Path(where))
    except StoreInUse as error:  # only a SQLite file is held by its server
        raise ValueError(f"{error.holder}; stop it first: a SQLite database is used by one "
                         "process at a time") from None
    except StoreError as error:
        raise ValueError(str(error)) from None


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")


def list_rooms(args: argparse.Namespace) -> int:
    """``admin rooms list``."""
    store = _open(args)
    try:
        rooms = store.list_rooms(include_closed=args.all)
    finally:
        store.close()
    print(f"{'CODE':<8}{'PHASE':<9}{'CREATED':<27}{'LAST CHANGE':<27}GAMES")
    for room in rooms:
        print(f"{room['code']:<8}{room['phase']:<9}{_when(room['created_at']):<27}"
              f"{_when(room['updated_at']):<27}{room['games_played']}")
    print(f"{len(rooms)} room{'s' if len(rooms) != 1 else ''}")
    return 0


def close_room(args: argparse.Namespace) -> int:
    """``admin rooms close CODE``."""
    code = args.code.upper()
    store = _open(args)
    try:
        before = store.load_room(code)
        in_progress = before is not None and before.phase == "playing"
        if in_progress and not args.force:
            raise ValueError(f"room {code} has a game in progress: closing it discards that game "
                             "(never finished, rated or recorded); add --force to close it anyway")
        if store.close_room(code):
            print(f"room {code} closed; a server holding it drops it within a minute"
                  + ("; its game in progress is discarded" if in_progress else ""))
            return 0
        row = store.load_room(code)
    finally:
        store.close()
    raise ValueError(f"room {code} is already closed" if row is not None else f"there is no room {code}")


def restore_database(args: argparse.Namespace) -> int:
    """``admin db restore BACKUP``."""
    from ratscrew.server.ops.settings import resolve_database
    from ratscrew.storage.opening import is_database_url
    from ratscrew.storage.records import StoreError, StoreInUse
    from ratscrew.storage.restore import restore_sqlite

    where = resolve_database(args.db, args.db_file, default=str(DEFAULT_DB))
    if is_database_url(where):
        raise ValueError("admin db restore puts a SQLite backup in place of a SQLite file; for "
                         "PostgreSQL use pg_restore (docs/online.md, 'Backup and restore')")
    try:
        restored = restore_sqlite(args.backup, Path(where))
    except StoreInUse as error:
        raise ValueError(f"{error.holder}; stop it first, then restore") from None
    except StoreError as error:
        raise ValueError(str(error)) from None
    print(f"restored {args.backup} as {restored.database}: {restored.games} finished games, "
          f"schema version {restored.schema_version}, integrity check ok")
    for kept in restored.kept:
        print(f"kept the file it replaced as {kept}")
    return 0


def copy_database(args: argparse.Namespace) -> int:
    """``admin db copy FROM TO``."""
    from ratscrew.server.ops.dbcopy import CopyError
    from ratscrew.server.ops.dbcopy import copy_database as copy

    try:
        counts = copy(args.source, args.target)
    except CopyError as error:
        raise ValueError(str(error)) from None
    width = max(len(c.table) for c in counts)
    print(f"{'TABLE':<{width}}  {'FROM':>8}  {'TO':>8}")
    for count in counts:
        print(f"{count.table:<{width}}  {count.source:>8}  {count.target:>8}")
    print(f"copied {sum(c.target for c in counts)} rows in {len(counts)} tables; every count matches")
    return 0


def register_players(groups: Any) -> None:
    """``admin players``: review players."""
    players = groups.add_parser("players", help="review players' integrity flags",
                                description="Review players: see or clear an integrity flag.")
    actions = players.add_subparsers(dest="players_action", metavar="ACTION")
    clear = actions.add_parser(
        "clear-flag", help="clear a player's integrity flag after review",
        description="Clear the integrity flag of the player with this public id (shown on their "
                    "page, /players/ID). Their games since the flag's evidence are rated again.")
    clear.add_argument("player_id", metavar="ID", help="the player's public id")
    _database_options(clear)
    clear.set_defaults(run=clear_flag)
    show = actions.add_parser("show-flag", help="show a player's integrity flag",
                              description="Print the player's integrity flag, if any.")
    show.add_argument("player_id", metavar="ID", help="the player's public id")
    _database_options(show)
    show.set_defaults(run=show_flag)
    players.set_defaults(run=lambda args: _usage(players))


def clear_flag(args: argparse.Namespace) -> int:
    """Clear the flag and rate the games it held back; 1 when there was no flag to clear."""
    from ratscrew.server.ladder.ratings import catch_up

    store = _open(args)
    try:
        if store.player(args.player_id) is None:
            raise ValueError(f"no player with the id {args.player_id!r} on this server")
        if not store.clear_flag(args.player_id):
            print(f"player {args.player_id} has no integrity flag to clear")
            return 1
        rated = catch_up(store)
        print(f"cleared the integrity flag of player {args.player_id}; "
              f"{rated} game{'s' if rated != 1 else ''} rated again")
        return 0
    finally:
        store.close()


def show_flag(args: argparse.Namespace) -> int:
    """Print the player's flag: its reasons, the slaps checked, whether it was cleared."""
    store = _open(args)
    try:
        if store.player(args.player_id) is None:
            raise ValueError(f"no player with the id {args.player_id!r} on this server")
        flag = store.integrity_flag(args.player_id)
        if flag is None:
            print(f"player {args.player_id} has never been flagged")
            return 0
        state = "cleared" if flag["cleared_at"] is not None else "flagged"
        print(f"player {args.player_id}: {state} in {flag['rules']} from game {flag['since_game']} "
              f"({flag['checked_slaps']} slaps checked)")
        for reason in flag["reasons"]:
            print(f"  - {reason}")
        return 0
    finally:
        store.close()


# ---------------------------------------------------------------------------------- arenas (issue 50)


def register_arenas(groups: Any) -> None:
    """``admin arenas``: create, list or cancel arenas."""
    from ratscrew.arenas import ARENA_RULES, MAX_MINUTES, MAX_STARTS_IN_S, MIN_MINUTES

    arenas = groups.add_parser(
        "arenas", help="create, list or cancel arenas (timed tournaments)",
        description="Arenas are timed tournaments: players seek with the arena's id, are paired "
                    "again as soon as a game ends, and score 2 a win (4, 2, 1, 0 at a table of "
                    "four), doubled after two wins in a row. Players make them with POST "
                    "/api/arenas; here the operator does.")
    actions = arenas.add_subparsers(dest="arenas_action", metavar="ACTION")
    arenas.set_defaults(run=lambda args: _usage(arenas))
    create = actions.add_parser(
        "create", help="make an arena; prints its id and page",
        description="Make an arena under a preset, at tables of 2 or 4, for MINUTES, starting "
                    "now or after --starts-in minutes. Its page is /arenas/ID on the server.",
        epilog="example: ratscrew admin arenas create --rules pagat --players 4 --minutes 60 --starts-in 30")
    create.add_argument("--rules", default="classic", choices=ARENA_RULES,
                        help="the preset (default: classic)")
    create.add_argument("--players", type=int, default=2, choices=(2, 4),
                        help="players at each table (default: 2)")
    create.add_argument("--minutes", type=int, default=30, metavar="MINUTES",
                        help=f"how long it runs, {MIN_MINUTES} to {MAX_MINUTES} (default: 30)")
    create.add_argument("--starts-in", type=int, default=0, metavar="MINUTES",
                        help=f"minutes until it starts, 0 to {MAX_STARTS_IN_S // 60} (default: 0, now)")
    _database_options(create)
    create.set_defaults(run=create_arena)
    listing = actions.add_parser(
        "list", help="every arena: id, rules, table, start, end, state, entrants",
        description="List the arenas, the latest to start first: id, rules, table size, start, "
                    "end, state (upcoming, running, finished, cancelled) and, for a finished "
                    "one, how many players its final standings have.")
    _database_options(listing)
    listing.set_defaults(run=list_arenas)
    cancel = actions.add_parser(
        "cancel", help="cancel an arena that has not finished",
        description="Cancel an upcoming or running arena: it is no longer listed, takes no more "
                    "seeks, and no final standings are stored. Games already being played go on "
                    "as ordinary rated games.")
    cancel.add_argument("arena_id", metavar="ID", help="the arena's id (its page is /arenas/ID)")
    _database_options(cancel)
    cancel.set_defaults(run=cancel_arena)


def create_arena(args: argparse.Namespace) -> int:
    """``admin arenas create``."""
    from ratscrew.arenas import MAX_MINUTES, MAX_STARTS_IN_S, MIN_MINUTES
    from ratscrew.server.http.arenas import ArenaService

    if not MIN_MINUTES <= args.minutes <= MAX_MINUTES:
        raise ValueError(f"--minutes must be from {MIN_MINUTES} to {MAX_MINUTES}, not {args.minutes}")
    if not 0 <= args.starts_in * 60 <= MAX_STARTS_IN_S:
        raise ValueError(f"--starts-in must be from 0 to {MAX_STARTS_IN_S // 60} minutes, "
                         f"not {args.starts_in}")
    store = _open(args)
    try:
        arena = ArenaService(store).create(args.rules, args.players, args.minutes,
                                           args.starts_in * 60.0, creator=None)
    finally:
        store.close()
    print(f"arena {arena.arena_id}: {arena.rules_name} at tables of {arena.players}, "
          f"{_when(arena.starts_at)} to {_when(arena.ends_at)}; its page: /arenas/{arena.arena_id}")
    return 0


def list_arenas(args: argparse.Namespace) -> int:
    """``admin arenas list``."""
    import time

    from ratscrew.server.http.arenas import state_of

    store = _open(args)
    try:
        arenas = store.all_arenas()
        entrants = {a.arena_id: len(store.final_standings(a.arena_id)) for a in arenas
                    if a.state == "finished"}
    finally:
        store.close()
    now = time.time()
    print(f"{'ID':<10}{'RULES':<11}{'TABLE':<7}{'STARTS':<27}{'ENDS':<27}{'STATE':<11}PLAYERS")
    for arena in arenas:
        print(f"{arena.arena_id:<10}{arena.rules_name:<11}{arena.players:<7}{_when(arena.starts_at):<27}"
              f"{_when(arena.ends_at):<27}{state_of(arena, now):<11}{entrants.get(arena.arena_id, '')}")
    print(f"{len(arenas)} arena{'s' if len(arenas) != 1 else ''}")
    return 0


def cancel_arena(args: argparse.Namespace) -> int:
    """``admin arenas cancel ID``."""
    store = _open(args)
    try:
        if store.cancel_arena(args.arena_id):
            print(f"arena {args.arena_id} cancelled: no longer listed, no more seeks taken")
            return 0
        arena = store.arena(args.arena_id)
    finally:
        store.close()
    if arena is None:
        raise ValueError(f"there is no arena {args.arena_id!r}")
    raise ValueError(f"arena {args.arena_id} is already {arena.state}: only an upcoming or running "
                     "arena can be cancelled")
