-- ratscrew's sqlite migration 3 as it was written by hand before ratscrew/storage
-- (kept so tests can make a database at each old schema version exactly as shipped)
ALTER TABLE rated_games ADD COLUMN unrated TEXT;     -- why it was not rated (NULL: rated)
    ALTER TABLE rated_games ADD COLUMN quick_resign INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE integrity_flags (       -- one per player: the latest flag, cleared or not
        player_id TEXT PRIMARY KEY,
        rules_name TEXT NOT NULL,        -- the ruleset whose slaps raised it
        since_game INTEGER NOT NULL,     -- the first game of the evidence
        flagged_at REAL NOT NULL,
        reasons TEXT NOT NULL,           -- JSON list of sentences
        checked_slaps INTEGER NOT NULL,
        cleared_at REAL                  -- set when a moderator cleared it
    );
    -- who met whom in rated games (the ranking's different opponents)
    CREATE INDEX rating_updates_by_game ON rating_updates(game_id);
