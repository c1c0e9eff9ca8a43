"""``ratscrew admin``: a moderator's commands on a server's database. Each group is its own
sub-parser under ``admin`` (``players`` here; other groups register theirs beside it).

``ratscrew admin players clear-flag ID`` reviews an integrity flag (docs/fairness.md,
"Integrity"): the flag is cleared, the ratings of the ruleset's games since its evidence are
taken back and rated again with the player in them, and the player is ranked again once they
meet the ladder's rules. With SQLite the server must be stopped first (one process uses a
SQLite database at a time); a PostgreSQL database can be reviewed while the servers run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ratscrew.commands.serve import DEFAULT_DB
from ratscrew.server.store import Store, StoreError, is_database_url, open_store


def register(subparsers: Any) -> None:
    """Add ``admin`` and its groups."""
    parser = subparsers.add_parser(
        "admin", help="moderate a server's database (players' integrity flags)",
        description="Moderator commands on the database a 'ratscrew serve' uses.",
        epilog="example: ratscrew admin players clear-flag AbC123xYz_-Q --db ratscrew.db")
    groups = parser.add_subparsers(dest="admin_group", metavar="GROUP")
    register_players(groups)
    parser.set_defaults(run=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=str(DEFAULT_DB), metavar="FILE|URL",
                        help=f"the server's database: a SQLite file (default {DEFAULT_DB}; stop the "
                             "server first) or a postgresql:// URL")


def open_admin_store(db: str) -> Store:
    """The store at ``db``; a SQLite file must exist (an admin command never creates one)."""
    if not is_database_url(db) and not Path(db).is_file():
        raise ValueError(f"no database at {db}: give the --db the server uses")
    try:
        return open_store(db if is_database_url(db) else Path(db))
    except StoreError as error:
        raise ValueError(str(error)) from None


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
    _db_option(clear)
    clear.set_defaults(run=clear_flag)
    show = actions.add_parser("show-flag", help="show a player's integrity flag",
                              description="Print the player's integrity flag, if any.")
    show.add_argument("player_id", metavar="ID", help="the player's public id")
    _db_option(show)
    show.set_defaults(run=show_flag)
    players.set_defaults(run=lambda args: _usage(players))


def clear_flag(args: argparse.Namespace) -> int:
    """Clear the flag and rate the games it held back; 1 when there was no flag to clear."""
    from ratscrew.server.ratings import catch_up

    store = open_admin_store(args.db)
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
    store = open_admin_store(args.db)
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
