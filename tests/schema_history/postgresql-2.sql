-- ratscrew's postgresql migration 2 as it was written by hand before ratscrew/storage
-- (kept so tests can make a database at each old schema version exactly as shipped)
CREATE TABLE server_info (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE players (
        id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        name_folded TEXT NOT NULL UNIQUE,
        created_at DOUBLE PRECISION NOT NULL,
        seen_at DOUBLE PRECISION NOT NULL
    );
    ALTER TABLE seats ADD COLUMN player_id TEXT;
    ALTER TABLE results ADD COLUMN player_id TEXT;
    ALTER TABLE results ADD COLUMN bot TEXT;
    ALTER TABLE results ADD COLUMN place INTEGER;
    ALTER TABLE results ADD COLUMN patterns TEXT;
    CREATE INDEX results_by_player_id ON results(player_id);
    CREATE TABLE ratings (
        participant TEXT NOT NULL,
        rules_name TEXT NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (participant, rules_name)
    );
    CREATE TABLE rating_updates (
        participant TEXT NOT NULL,
        rules_name TEXT NOT NULL,
        game_id BIGINT NOT NULL REFERENCES games(id),
        mu_before DOUBLE PRECISION NOT NULL,
        sigma_before DOUBLE PRECISION NOT NULL,
        mu_after DOUBLE PRECISION NOT NULL,
        sigma_after DOUBLE PRECISION NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (participant, rules_name, game_id)
    );
    CREATE TABLE rated_games (
        game_id BIGINT PRIMARY KEY REFERENCES games(id),
        at DOUBLE PRECISION NOT NULL,
        participants INTEGER NOT NULL
    );
    INSERT INTO rated_games SELECT id, finished_at, 0 FROM games WHERE status = 'over';
