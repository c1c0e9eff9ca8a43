-- ratscrew's postgresql migration 3 as it was written by hand before ratscrew/storage
-- (kept so tests can make a database at each old schema version exactly as shipped)
ALTER TABLE rated_games ADD COLUMN unrated TEXT;
    ALTER TABLE rated_games ADD COLUMN quick_resign INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE integrity_flags (
        player_id TEXT PRIMARY KEY,
        rules_name TEXT NOT NULL,
        since_game BIGINT NOT NULL,
        flagged_at DOUBLE PRECISION NOT NULL,
        reasons TEXT NOT NULL,
        checked_slaps INTEGER NOT NULL,
        cleared_at DOUBLE PRECISION
    );
    -- who met whom in rated games (the ranking's different opponents)
    CREATE INDEX rating_updates_by_game ON rating_updates(game_id);
