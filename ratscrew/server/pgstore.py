"""The PostgreSQL store, as the server has always imported it: `ratscrew.storage.postgres`
re-exported (import it only when a ``postgresql://`` database is used: it needs psycopg)."""

from __future__ import annotations

from ratscrew.storage.postgres import PostgresRateCounter, PostgresStore, redact

__all__ = ["PostgresRateCounter", "PostgresStore", "redact"]
