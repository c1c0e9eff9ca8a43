-- ratscrew's sqlite migration 1 as it was written by hand before ratscrew/storage
-- (kept so tests can make a database at each old schema version exactly as shipped)
CREATE TABLE rooms (
        code TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        settings TEXT NOT NULL,          -- JSON: rules (TOML), seats, seed, pace, timeout, judging
        host_hash TEXT,
        phase TEXT NOT NULL,             -- lobby | playing | over | closed
        games_played INTEGER NOT NULL DEFAULT 0,
        game_id INTEGER                  -- the current or last game
    );
    CREATE TABLE seats (
        code TEXT NOT NULL REFERENCES rooms(code),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,              -- open | human | bot
        name TEXT,
        bot TEXT,
        token_hash TEXT,
        PRIMARY KEY (code, seat)
    );
    CREATE TABLE members (               -- tokens of people without a seat (a host who watches)
        code TEXT NOT NULL REFERENCES rooms(code),
        token_hash TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (code, token_hash)
    );
    CREATE TABLE kicked (
        code TEXT NOT NULL REFERENCES rooms(code),
        token_hash TEXT NOT NULL,
        PRIMARY KEY (code, token_hash)
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        code TEXT NOT NULL REFERENCES rooms(code),
        number INTEGER NOT NULL,
        rules_name TEXT NOT NULL,
        start TEXT NOT NULL,             -- JSON: rules, hands, leader, seed, names, room
        clock_start REAL NOT NULL,       -- room time at which the game started
        started_at REAL NOT NULL,
        finished_at REAL,
        status TEXT NOT NULL,            -- playing | over
        winner INTEGER,
        reason TEXT,
        record TEXT
    );
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER,
        at INTEGER NOT NULL,
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE judged (
        game_id INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        entry TEXT NOT NULL,             -- JSON, see docs/protocol.md ("judging")
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        token_hash TEXT,
        won INTEGER NOT NULL,
        slaps INTEGER NOT NULL,
        misslaps INTEGER NOT NULL,
        reactions TEXT NOT NULL,         -- JSON list of ms
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX results_by_player ON results(token_hash);
    CREATE INDEX games_by_rules ON games(rules_name, status);
