"""Every statement the store runs, written once for SQLite and PostgreSQL: SQLAlchemy Core over
the tables of `ratscrew.storage.schema` where it reads plainly, ``text()`` with ``:name`` marks
for the ranking subqueries (portable SQL either way, compiled per dialect by
`ratscrew.storage.sql.Compiler`). Upserts are ``INSERT … ON CONFLICT … DO UPDATE``, which both
databases run the same way: an existing row is updated in place, keeping the columns the
statement does not name.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import bindparam as param
from sqlalchemy import func

from ratscrew.storage.records import BOT_PREFIX
from ratscrew.storage.schema import (
    actions,
    arena_rooms,
    arena_standings,
    arenas,
    games,
    integrity_flags,
    judged,
    kicked,
    members,
    players,
    rated_games,
    rating_updates,
    ratings,
    results,
    rooms,
    seats,
    server_info,
)
from ratscrew.storage.terms import MIN_OPPONENTS


def values(table: sa.Table, *names: str) -> dict[str, sa.BindParameter[object]]:
    """``{column: :column}`` for an insert of those columns."""
    return {name: param(name, type_=table.c[name].type) for name in names}


def upsert(table: sa.Table, keys: str, columns: tuple[str, ...], updated: tuple[str, ...],
           where: str = "") -> sa.TextClause:
    """``INSERT … ON CONFLICT (keys) DO UPDATE SET`` each of ``updated`` to its new value."""
    marks = ", ".join(f":{c}" for c in columns)
    sets = ", ".join(f"{c} = excluded.{c}" for c in updated)
    return sa.text(f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({marks}) "
                   f"ON CONFLICT ({keys}) DO UPDATE SET {sets}{where}")


def insert_ignore(table: sa.Table, columns: tuple[str, ...]) -> sa.TextClause:
    """``INSERT … ON CONFLICT DO NOTHING``."""
    marks = ", ".join(f":{c}" for c in columns)
    return sa.text(f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({marks}) "
                   "ON CONFLICT DO NOTHING")


# ---------------------------------------------------------------------------------- rooms

ROOM_EXISTS = sa.select(sa.literal(1)).select_from(rooms).where(rooms.c.code == param("code"))
ROOM_COLUMNS = ("code", "created_at", "updated_at", "settings", "host_hash", "phase",
                "games_played", "game_id")
SAVE_ROOM = upsert(rooms, "code", ROOM_COLUMNS,
                   ("updated_at", "settings", "host_hash", "phase", "games_played", "game_id"),
                   " WHERE rooms.phase != 'closed'")
"""A closed room saved again (by a server that still held it) stays closed."""
DELETE_SEATS = sa.delete(seats).where(seats.c.code == param("code"))
INSERT_SEAT = sa.insert(seats).values(values(seats, "code", "seat", "kind", "name", "bot",
                                             "token_hash", "player_id"))
ADD_MEMBER = upsert(members, "code, token_hash", ("code", "token_hash", "name"), ("name",))
ADD_KICKED = insert_ignore(kicked, ("code", "token_hash"))
DELETE_MEMBER = sa.delete(members).where(members.c.code == param("code"),
                                         members.c.token_hash == param("token_hash"))
OPEN_ROOMS = sa.select(rooms).where(rooms.c.phase != "closed").order_by(rooms.c.created_at,
                                                                        rooms.c.code)
OPEN_ROOMS_OF_SHARD = (sa.select(rooms)
                       .where(rooms.c.phase != "closed",
                              func.substr(rooms.c.code, 1, 1) == param("shard", type_=sa.Text))
                       .order_by(rooms.c.created_at, rooms.c.code))
ONE_ROOM = sa.select(rooms).where(rooms.c.code == param("code"))
SEATS_OF = (sa.select(seats).where(seats.c.code.in_(param("codes", expanding=True)))
            .order_by(seats.c.code, seats.c.seat))
MEMBERS_OF = sa.select(members).where(members.c.code.in_(param("codes", expanding=True)))
KICKED_OF = sa.select(kicked).where(kicked.c.code.in_(param("codes", expanding=True)))
CLOSE_ROOM = (sa.update(rooms).where(rooms.c.code == param("code"), rooms.c.phase != "closed")
              .values(phase="closed", updated_at=param("now", type_=sa.Double))
              .returning(rooms.c.code))
CLOSED_AMONG = sa.select(rooms.c.code).where(rooms.c.phase == "closed",
                                             rooms.c.code.in_(param("codes", expanding=True)))
LIST_COLUMNS = (rooms.c.code, rooms.c.phase, rooms.c.created_at, rooms.c.updated_at,
                rooms.c.games_played)
LIST_ROOMS = sa.select(*LIST_COLUMNS).where(rooms.c.phase != "closed").order_by(rooms.c.created_at,
                                                                               rooms.c.code)
LIST_ALL_ROOMS = sa.select(*LIST_COLUMNS).order_by(rooms.c.created_at, rooms.c.code)

# ---------------------------------------------------------------------------------- games

START_GAME = (sa.insert(games)
              .values(status="playing", **values(games, "code", "number", "rules_name", "start",
                                                 "clock_start", "started_at"))
              .returning(games.c.id))
START_GAME_WITH_ID = sa.insert(games).values(
    status="playing", **values(games, "id", "code", "number", "rules_name", "start", "clock_start",
                               "started_at"))
RESERVE_GAME_IDS = (  # PostgreSQL only: games' ids taken ahead of time (`reserve_game_ids_async`)
    sa.select(sa.func.nextval(sa.func.pg_get_serial_sequence("games", "id")).label("id"))
    .select_from(sa.func.generate_series(sa.literal_column("1"),
                                         sa.cast(param("count"), sa.Integer))))
GAME_PLAYING = sa.select(games.c.start, games.c.clock_start).where(games.c.id == param("game_id"),
                                                                  games.c.status == "playing")
ACTIONS_OF = (sa.select(actions.c.kind, actions.c.seat, actions.c.at)
              .where(actions.c.game_id == param("game_id")).order_by(actions.c.n))
JUDGED_OF = sa.select(judged.c.entry).where(judged.c.game_id == param("game_id")).order_by(judged.c.n)
FINISH_GAME = (sa.update(games).where(games.c.id == param("game_id"))
               .values(status="over", **values(games, "finished_at", "winner", "reason", "record")))
RESULT_COLUMNS = ("game_id", "seat", "kind", "name", "token_hash", "won", "slaps", "misslaps",
                  "reactions", "player_id", "bot")
"""The columns `finish_game` writes (place and patterns come with the rating)."""
STORE_RESULT = upsert(results, "game_id, seat", RESULT_COLUMNS, RESULT_COLUMNS[2:])
"""A seat's result written again (a game finished twice) keeps its rating's place and patterns
on both databases (SQLite's ``INSERT OR REPLACE`` would delete the row and null them)."""
GAME_RECORD = sa.select(games.c.record).where(games.c.id == param("game_id"), games.c.status == "over")
GAME_COUNT = sa.select(func.count()).select_from(games).where(games.c.status == "over")

# ---------------------------------------------------------------------------------- statistics

_people = (sa.select(results, games.c.finished_at).join(games, games.c.id == results.c.game_id)
           .where(results.c.token_hash.is_not(None), games.c.status == "over")
           .order_by(games.c.finished_at, results.c.game_id, results.c.seat))
PERSON_RESULTS = _people.where(results.c.token_hash == param("token_hash", type_=sa.Text))
"""A person's finished results (by seat token), oldest first."""
PERSON_RESULTS_IN = PERSON_RESULTS.where(games.c.rules_name == param("rules_name", type_=sa.Text))
PLAYERS_RESULTS = (sa.select(results, games.c.finished_at).join(games, games.c.id == results.c.game_id)
                   .where(games.c.status == "over", games.c.rules_name == param("rules_name", type_=sa.Text),
                          results.c.player_id.in_(param("player_ids", expanding=True)))
                   .order_by(games.c.finished_at, results.c.game_id, results.c.seat))
"""The finished results of these keyed players in a ruleset, oldest first."""


def ranked(alias: str) -> str:
    """SQL that is true when the rating row ``alias`` is *ranked* (issues 30 and 46): its player
    has rated games in the ruleset against `ratscrew.storage.terms.MIN_OPPONENTS` different
    *established* opponents (bots, or players with rated games against that many different
    opponents themselves: a farm of keys that only ever met one player establishes nobody) and
    no integrity flag that is not cleared."""
    def opponents_of(who: str, u: str, o: str) -> str:
        return (f"SELECT COUNT(DISTINCT {o}.participant) FROM rating_updates {u} JOIN rating_updates {o} "
                f"ON {o}.game_id = {u}.game_id AND {o}.rules_name = {u}.rules_name "
                f"AND {o}.participant <> {u}.participant "
                f"WHERE {u}.participant = {who}.participant AND {u}.rules_name = {who}.rules_name")

    established = (f"(o.participant LIKE '{BOT_PREFIX}%' OR "
                   f"({opponents_of('o', 'u2', 'o2')}) >= {MIN_OPPONENTS})")
    return (f"({opponents_of(alias, 'u', 'o')} AND {established}) >= {MIN_OPPONENTS} "
            f"AND NOT EXISTS (SELECT 1 FROM integrity_flags f "
            f"WHERE f.player_id = {alias}.participant AND f.cleared_at IS NULL)")


RANKED_PLAYERS = sa.text(
    "SELECT p.id AS player_id, p.name AS name, r.mu AS mu, r.sigma AS sigma, r.games AS rated "
    "FROM ratings r JOIN players p ON p.id = r.participant WHERE r.rules_name = :rules_name "
    f"AND {ranked('r')} "
    "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, p.id LIMIT :limit")
"""The ranked players of a ruleset, best first (mu - 3 sigma; `ratscrew.server.ladder.ranking`
turns them into the leaderboard)."""

# ---------------------------------------------------------------------------------- players

SERVER_ID_INIT = insert_ignore(server_info, ("key", "value"))
SERVER_ID = sa.select(server_info.c.value).where(server_info.c.key == "server_id")
NAME_HOLDER = sa.select(players.c.key_hash).where(players.c.name_folded == param("name_folded"))
ENTER_PLAYER = upsert(players, "key_hash",
                      ("id", "key_hash", "name", "name_folded", "created_at", "seen_at"),
                      ("name", "name_folded", "seen_at"))
PLAYER = sa.select(players.c.id, players.c.name).where(players.c.id == param("id"))
PLAYER_BY_KEY = sa.select(players.c.id, players.c.name).where(players.c.key_hash == param("key_hash"))

# ---------------------------------------------------------------------------------- ratings

IS_RATED = sa.select(sa.literal(1)).select_from(rated_games).where(rated_games.c.game_id == param("game_id"))
FINISHED_GAME = sa.select(games.c.rules_name, games.c.record, games.c.winner).where(
    games.c.id == param("game_id"), games.c.status == "over")
RESULTS_OF = sa.select(results).where(results.c.game_id == param("game_id")).order_by(results.c.seat)
FLAGGED_AMONG = sa.select(integrity_flags.c.player_id).where(
    integrity_flags.c.cleared_at.is_(None),
    integrity_flags.c.player_id.in_(param("player_ids", expanding=True)))
EARLIER_QUICK_RESIGNS = sa.text(
    "SELECT COUNT(*) AS n FROM rated_games q WHERE q.quick_resign = 1 AND q.at > :since "
    "AND (SELECT COUNT(DISTINCT r.player_id) FROM results r WHERE r.game_id = q.game_id "
    "AND r.player_id IN :player_ids) >= 2").bindparams(param("player_ids", expanding=True))
RATINGS_AMONG = sa.select(ratings).where(ratings.c.rules_name == param("rules_name"),
                                         ratings.c.participant.in_(param("participants", expanding=True)))
MARK_RATED = sa.insert(rated_games).values(values(rated_games, "game_id", "at", "participants",
                                                  "unrated", "quick_resign"))
PLACE = (sa.update(results).where(results.c.game_id == param("game_id"), results.c.seat == param("seat"))
         .values(**values(results, "place", "patterns", "unrated")))
OPPONENTS_AMONG = sa.text(
    "SELECT u.participant AS participant, COUNT(DISTINCT o.participant) AS opponents "
    "FROM rating_updates u JOIN rating_updates o ON o.game_id = u.game_id "
    "AND o.rules_name = u.rules_name AND o.participant <> u.participant "
    "WHERE u.rules_name = :rules_name AND u.participant IN :participants GROUP BY u.participant"
).bindparams(param("participants", expanding=True))
"""How many different opponents each of these participants has rated games against in a ruleset
(participants with none are not listed)."""
RATING_NOTES = sa.text(
    "SELECT q.unrated AS unrated, r.seat AS seat, r.unrated AS seat_unrated FROM rated_games q "
    "JOIN results r ON r.game_id = q.game_id WHERE q.game_id = :game_id ORDER BY r.seat")
"""A rated game's verdict and each seat's note (`ratscrew.storage.records.GameRating`)."""
RATING_UPDATE = sa.insert(rating_updates).values(values(
    rating_updates, "participant", "rules_name", "game_id", "mu_before", "sigma_before", "mu_after",
    "sigma_after", "at"))
SET_RATING = upsert(ratings, "participant, rules_name",
                    ("participant", "rules_name", "mu", "sigma", "games", "updated_at"),
                    ("mu", "sigma", "games", "updated_at"))
UNRATED_GAMES = sa.text(
    "SELECT g.id AS id FROM games g LEFT JOIN rated_games r ON r.game_id = g.id "
    "WHERE g.status = 'over' AND r.game_id IS NULL ORDER BY g.finished_at, g.id")
RATINGS_OF = sa.text(
    "SELECT r.rules_name AS rules, r.mu AS mu, r.sigma AS sigma, r.games AS games, "
    "CASE WHEN EXISTS (SELECT 1 FROM players p WHERE p.id = r.participant) "
    f"AND {ranked('r')} THEN "
    "1 + (SELECT COUNT(*) FROM ratings x JOIN players q ON q.id = x.participant "
    "     WHERE x.rules_name = r.rules_name AND x.mu - 3 * x.sigma > r.mu - 3 * r.sigma "
    f"    AND {ranked('x')}) "
    "ELSE NULL END AS rank "
    "FROM ratings r WHERE r.participant = :participant ORDER BY r.games DESC, r.rules_name")
RATING_HISTORY = sa.text(
    "SELECT game_id, at, mu_before, sigma_before, mu_after, sigma_after FROM rating_updates "
    "WHERE participant = :participant AND rules_name = :rules_name ORDER BY at, game_id")
PLAYER_GAMES = sa.text(
    "SELECT g.id AS id, g.rules_name AS rules, g.finished_at AS finished_at, r.place AS place, "
    "r.seat AS seat, (SELECT q.unrated FROM rated_games q WHERE q.game_id = g.id) AS unrated, "
    "r.unrated AS note, "
    "(SELECT COUNT(*) FROM results o WHERE o.game_id = g.id) AS players, r.won AS won, "
    "r.slaps AS slaps, r.misslaps AS misslaps, r.reactions AS reactions, r.patterns AS patterns "
    "FROM results r JOIN games g ON g.id = r.game_id WHERE r.player_id = :player_id "
    "AND g.status = 'over' ORDER BY g.finished_at DESC, g.id DESC LIMIT :limit")
BOT_GAMES_SCANNED = 2000
"""The latest bot results read for the bots' reaction samples."""
BOT_REACTIONS = (sa.select(results.c.bot, results.c.reactions).join(games, games.c.id == results.c.game_id)
                 .where(results.c.bot.is_not(None), games.c.status == "over")
                 .order_by(games.c.finished_at.desc(), games.c.id.desc()).limit(BOT_GAMES_SCANNED))

# ---------------------------------------------------------------------------------- integrity (issue 30)

GAME_PLAYERS = (sa.select(results.c.player_id, games.c.rules_name.label("rules"))
                .join(games, games.c.id == results.c.game_id)
                .where(results.c.game_id == param("game_id"), games.c.status == "over",
                       results.c.kind == "human", results.c.player_id.is_not(None))
                .order_by(results.c.seat))
FLAG = sa.select(integrity_flags.c.rules_name, integrity_flags.c.since_game,
                 integrity_flags.c.flagged_at, integrity_flags.c.reasons,
                 integrity_flags.c.checked_slaps, integrity_flags.c.cleared_at).where(
    integrity_flags.c.player_id == param("player_id"))
FLAG_PLAYER = sa.text(
    "INSERT INTO integrity_flags (player_id, rules_name, since_game, flagged_at, reasons, "
    "checked_slaps, cleared_at) VALUES (:player_id, :rules_name, :since_game, :flagged_at, "
    ":reasons, :checked_slaps, NULL) ON CONFLICT (player_id) DO UPDATE SET "
    "rules_name = excluded.rules_name, since_game = excluded.since_game, "
    "flagged_at = excluded.flagged_at, reasons = excluded.reasons, "
    "checked_slaps = excluded.checked_slaps, cleared_at = NULL")
CLEAR_FLAG = (sa.update(integrity_flags)
              .where(integrity_flags.c.player_id == param("player_id"),
                     integrity_flags.c.cleared_at.is_(None))
              .values(cleared_at=param("now", type_=sa.Double)))
UNRATE = (
    sa.text("DELETE FROM rating_updates WHERE rules_name = :rules_name AND game_id >= :since_game"),
    sa.text("DELETE FROM rated_games WHERE game_id >= :since_game AND game_id IN "
            "(SELECT id FROM games WHERE rules_name = :rules_name)"),
    sa.text("DELETE FROM ratings WHERE rules_name = :rules_name"),
    sa.text("INSERT INTO ratings (participant, rules_name, mu, sigma, games, updated_at) "
            "SELECT u.participant, u.rules_name, u.mu_after, u.sigma_after, "
            "(SELECT COUNT(*) FROM rating_updates c WHERE c.participant = u.participant "
            " AND c.rules_name = u.rules_name), u.at FROM rating_updates u WHERE u.rules_name = :rules_name "
            "AND u.game_id = (SELECT MAX(m.game_id) FROM rating_updates m "
            " WHERE m.participant = u.participant AND m.rules_name = u.rules_name)"),
)
"""Take back the ratings of every game of a ruleset from ``since_game`` on: their updates and
rated marks go, and each participant's rating is again the one their last update left."""

# ---------------------------------------------------------------------------------- arenas (issue 50)

ARENA_COLUMNS = ("id", "rules_name", "players", "starts_at", "ends_at", "created_at", "creator",
                 "state")
INSERT_ARENA = sa.insert(arenas).values(values(arenas, *ARENA_COLUMNS))
ARENA = sa.select(arenas).where(arenas.c.id == param("id"))
ARENAS_LISTED = (sa.select(arenas).where(arenas.c.state != "cancelled",
                                         arenas.c.ends_at > param("since", type_=sa.Double))
                 .order_by(arenas.c.starts_at, arenas.c.id).limit(param("limit", type_=sa.Integer)))
"""Arenas not cancelled that end after ``since``: upcoming, running and recently finished."""
ARENAS_ALL = (sa.select(arenas).order_by(arenas.c.starts_at.desc(), arenas.c.id)
              .limit(param("limit", type_=sa.Integer)))
CANCEL_ARENA = (sa.update(arenas).where(arenas.c.id == param("id"), arenas.c.state == "open")
                .values(state="cancelled", finished_at=param("now", type_=sa.Double))
                .returning(arenas.c.id))
ADD_ARENA_ROOM = insert_ignore(arena_rooms, ("arena_id", "code"))
ARENA_OF_ROOM = sa.select(arena_rooms.c.arena_id).where(arena_rooms.c.code == param("code"))
_arena_games = (sa.select(games.c.id).join(arena_rooms, arena_rooms.c.code == games.c.code)
                .where(arena_rooms.c.arena_id == param("arena_id", type_=sa.Text),
                       games.c.started_at < param("ends_at", type_=sa.Double)))
ARENA_RESULTS = (sa.select(results.c.game_id, results.c.player_id, results.c.name, results.c.place,
                           results.c.won, games.c.finished_at)
                 .join(games, games.c.id == results.c.game_id)
                 .where(results.c.game_id.in_(_arena_games.scalar_subquery()),
                        games.c.status == "over", results.c.player_id.is_not(None))
                 .order_by(games.c.finished_at, games.c.id, results.c.seat))
"""The keyed players' results of an arena's finished games that started before its end, in
the order the games finished."""
ARENA_GAMES_PLAYING = (sa.select(func.count()).select_from(games)
                       .where(games.c.id.in_(_arena_games.scalar_subquery()),
                              games.c.status == "playing"))
ARENAS_ENDED = (sa.select(arenas).where(arenas.c.state == "open",
                                        arenas.c.ends_at <= param("now", type_=sa.Double))
                .order_by(arenas.c.ends_at, arenas.c.id))
FINISH_ARENA = (sa.update(arenas).where(arenas.c.id == param("id"), arenas.c.state == "open")
                .values(state="finished", finished_at=param("now", type_=sa.Double))
                .returning(arenas.c.id))
STANDING_COLUMNS = ("arena_id", "player_id", "rank", "name", "score", "games", "wins", "streak")
INSERT_STANDING = sa.insert(arena_standings).values(values(arena_standings, *STANDING_COLUMNS))
FINAL_STANDINGS = (sa.select(arena_standings).where(arena_standings.c.arena_id == param("arena_id"))
                   .order_by(arena_standings.c.rank, arena_standings.c.player_id))
PLAYER_ARENAS = (sa.select(arena_standings, arenas.c.rules_name, arenas.c.players,
                           arenas.c.starts_at, arenas.c.ends_at,
                           sa.select(func.count()).select_from(arena_standings.alias("o"))
                           .where(sa.literal_column("o.arena_id") == arena_standings.c.arena_id)
                           .scalar_subquery().label("entrants"))
                 .join(arenas, arenas.c.id == arena_standings.c.arena_id)
                 .where(arena_standings.c.player_id == param("player_id"))
                 .order_by(arenas.c.ends_at.desc(), arenas.c.id).limit(param("limit", type_=sa.Integer)))
"""A player's final standings in finished arenas, latest first, with how many took part."""
