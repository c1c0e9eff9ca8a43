"""The server's records in SQLite or PostgreSQL (``ratscrew serve --db``), written once for
both databases.

- `ratscrew.storage.records`: the values stored and returned, and the store's errors;
- `ratscrew.storage.roles`: what may be asked of the store, by role (rooms, archive, players,
  ratings), and `Store`, their union;
- `ratscrew.storage.schema`: the tables and indexes (SQLAlchemy Core), and the migrations
  derived from them for each dialect;
- `ratscrew.storage.queries`: every statement, once; `ratscrew.storage.sql` compiles each
  once per dialect and hands it to the driver;
- `ratscrew.storage.store`: `SqlStore`, every method once; `ratscrew.storage.sqlite` and
  `ratscrew.storage.postgres` add how each database is opened, locked and reached;
- `ratscrew.storage.opening`: `open_store` for ``--db``;
- `ratscrew.storage.terms`: the ladder's plain numbers the queries count by.

Ranking maths (figures, leaderboard ranks and ties) is above the storage, in
`ratscrew.server.ladder.ranking`. Nothing here imports the server (`tests/test_import_graph.py`).
"""
