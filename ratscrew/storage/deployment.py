"""One deployment per PostgreSQL database: the claim ``ratscrew serve --workers`` holds.

Each shard holds an advisory lock on its letter, but a PostgreSQL restart frees every lock at
once, and a forgotten second ``serve --workers`` on the same database, whose shards had been
refused and kept retrying, could take some letters over: the real shards then answered 503 until
it was stopped. So the supervisor itself holds a claim, an advisory lock on a connection of its
own named for it (``application_name``: which program, machine, process and ports), for as long
as it runs: a second deployment is refused at start with words that say which one is running,
and a deployment whose claim a database restart freed takes it back (`DeploymentClaim.keep`).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any

import psycopg

from ratscrew.storage.postgres import CONNECT_TIMEOUT_S, LOCK_SPACE
from ratscrew.storage.records import StoreError, StoreInUse

log = logging.getLogger("ratscrew.supervisor")

DEPLOYMENT_LOCK = 3
"""The second key of the deployment's advisory lock (`LOCK_SPACE`, `DEPLOYMENT_LOCK`)."""
KEEP_EVERY_S = 5.0
"""How often a running deployment checks that it still holds its claim."""

HOLDER = ("SELECT a.application_name AS name, a.backend_start AS since FROM pg_locks l "
          "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
          "AND l.classid = %s AND l.objid = %s")


def describe_this_deployment(ports: str) -> str:
    """What a claim's connection is called, for the one a second deployment names.

    >>> describe_this_deployment("8001-8002").startswith("ratscrew serve --workers on ")
    True
    """
    return f"ratscrew serve --workers on {socket.gethostname()} pid {os.getpid()} ports {ports}"[:63]


class DeploymentClaim:
    """The claim of one ``serve --workers`` on a database (see the module docstring)."""

    def __init__(self, url: str, description: str) -> None:
        self.url = url
        self.description = description
        self._conn: psycopg.Connection[Any] | None = None
        self._checked = time.monotonic()
        self.lost = False
        """Another deployment took the claim while this one's was freed (logged once)."""
        self._take()

    def _take(self) -> None:
        """Take the claim, or raise `StoreInUse` naming the deployment that holds it."""
        try:
            conn = psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True,
                                   application_name=self.description)
        except psycopg.Error as error:
            raise StoreError(f"cannot reach the database to claim it: {str(error).splitlines()[0]}") from None
        taken = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_SPACE, DEPLOYMENT_LOCK)).fetchone()
        if not taken or not taken[0]:
            holder = conn.execute(HOLDER, (LOCK_SPACE, DEPLOYMENT_LOCK)).fetchone()
            conn.close()
            who = f"'{holder[0]}' (since {holder[1]:%Y-%m-%d %H:%M:%S %Z})" if holder else "another one"
            raise StoreInUse(f"another ratscrew deployment already serves this database: {who}",
                             "then start this one")
        self._conn = conn

    def keep(self) -> None:
        """Every `KEEP_EVERY_S`: take the claim back if a database restart freed it."""
        now = time.monotonic()
        if now - self._checked < KEEP_EVERY_S:
            return
        self._checked = now
        conn = self._conn
        try:
            if conn is not None and not conn.closed:
                conn.execute("SELECT 1")
                return
        except psycopg.Error:
            pass
        self._conn = None
        try:
            self._take()
        except StoreInUse as error:
            if not self.lost:
                log.error("%s: this deployment's shards cannot hold their rooms", error.holder)
            self.lost = True
        except StoreError:
            return  # the database is still away: try again later
        else:
            if self.lost:
                log.info("this deployment holds the database again")
            self.lost = False

    def close(self) -> None:
        """Give the claim up."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
