-- ratscrew's sqlite migration 2 as it was written by hand before ratscrew/storage
-- (kept so tests can make a database at each old schema version exactly as shipped)
CREATE TABLE server_info (
        key TEXT PRIMARY KEY,            -- server_id: this server's random identity
        value TEXT NOT NULL
    );
    CREATE TABLE players (
        id TEXT PRIMARY KEY,             -- the public id: random, never derived from the key
        key_hash TEXT NOT NULL UNIQUE,   -- SHA-256 of the player key, never the key
        name TEXT NOT NULL,              -- the latest name chosen with this key
        name_folded TEXT NOT NULL UNIQUE, -- the name casefolded: two keys never hold one name
        created_at REAL NOT NULL,
        seen_at REAL NOT NULL
    );
    ALTER TABLE seats ADD COLUMN player_id TEXT;
    ALTER TABLE results ADD COLUMN player_id TEXT;
    ALTER TABLE results ADD COLUMN bot TEXT;
    ALTER TABLE results ADD COLUMN place INTEGER;        -- set when the game is rated
    ALTER TABLE results ADD COLUMN patterns TEXT;        -- JSON, set when the game is rated
    CREATE INDEX results_by_player_id ON results(player_id);
    CREATE TABLE ratings (
        participant TEXT NOT NULL,       -- a player id, or bot:LEVEL
        rules_name TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (participant, rules_name)
    );
    CREATE TABLE rating_updates (
        participant TEXT NOT NULL,
        rules_name TEXT NOT NULL,
        game_id INTEGER NOT NULL REFERENCES games(id),
        mu_before REAL NOT NULL,
        sigma_before REAL NOT NULL,
        mu_after REAL NOT NULL,
        sigma_after REAL NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (participant, rules_name, game_id)
    );
    CREATE TABLE rated_games (           -- a game is rated once: this row and its updates are
        game_id INTEGER PRIMARY KEY REFERENCES games(id), -- written in one transaction
        at REAL NOT NULL,
        participants INTEGER NOT NULL    -- how many were rated (0: no keyed person played)
    );
    INSERT INTO rated_games SELECT id, finished_at, 0 FROM games WHERE status = 'over';
