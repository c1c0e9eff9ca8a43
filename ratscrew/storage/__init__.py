"""The server's records in SQLite or PostgreSQL (``ratscrew serve --db``): rooms, games and
their actions, results, players and ratings. `ratscrew.storage.records` holds the values the
store takes and returns; ranking maths lives above it, in `ratscrew.server.ranking`."""
