"""Fixtures shared by several test files: a throwaway PostgreSQL server (see ``postgres.py``)."""

from postgres import fresh_database, postgres_cluster, private_cluster

__all__ = ["fresh_database", "postgres_cluster", "private_cluster"]
