"""A throwaway PostgreSQL server for the tests: `PostgresCluster` makes a cluster in a temporary
folder with Debian's ``initdb``/``pg_ctl`` (as the ``postgres`` user when the tests run as root,
which PostgreSQL refuses to run as), listening on 127.0.0.1 on a free port, and stops it by pid.

`postgres_cluster` (a session fixture, made available to every test by ``conftest.py``) starts
one for the whole run; `fresh_database` gives each test a database of its own. Where PostgreSQL
cannot start, a test skips with the reason, except in CI (``CI=true``), where it fails: the CI
machine is set up to have PostgreSQL (``.ci/run``), so a skip there would hide a broken set-up.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

SUPERUSER = "ratscrew"


def in_ci() -> bool:
    """Whether the tests run in CI, where a missing service is a failure, not a skip."""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def unavailable(reason: str) -> None:
    """Skip the test with ``reason``, or fail it in CI."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: this must work in CI; .ci/run installs what it needs)")
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_bindir() -> Path | None:
    """The newest installed PostgreSQL's programs (Debian keeps them out of PATH)."""
    def version(initdb: str) -> int:
        name = Path(initdb).parent.parent.name
        return int(name) if name.isdigit() else 0

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class PostgresCluster:
    """One PostgreSQL server in a temporary folder (see the module docstring)."""

    def __init__(self) -> None:
        bindir = postgres_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install -y postgresql)")
        self.bindir = bindir
        self.user: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("the tests run as root and there is no 'postgres' user to run "
                                   "PostgreSQL as (Debian's postgresql package creates it)") from None
        self.folder = Path(tempfile.mkdtemp(prefix="ratscrew-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.port = free_port()
        self.pid: int | None = None
        self._names = count(1)
        if self.user is not None:
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                  "--no-sync", "--locale=C")

    def _run(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bindir / program), *args]
        if self.user is not None:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=self.folder)
        if result.returncode != 0:
            raise RuntimeError(f"{program} failed: {(result.stderr or result.stdout).strip()[-1500:]}")
        return result

    @property
    def url(self) -> str:
        """The URL of the ``postgres`` maintenance database."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def url_of(self, database: str) -> str:
        """The URL of one database of this server."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Start (or restart) the server and wait until it takes connections."""
        options = (f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off "
                   "-c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.log),
                  "-o", options)
        self.pid = int((self.data / "postmaster.pid").read_text().split()[0])

    def stop(self, how: signal.Signals = signal.SIGINT) -> None:
        """Stop the server, by its pid, as a crash would not: fast shutdown (connections are
        cut; ``how=SIGQUIT`` for an immediate one, with no checkpoint), falling back to SIGKILL."""
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, how)  # SIGINT: PostgreSQL's "fast" shutdown; SIGQUIT: "immediate"
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                os.kill(pid, 0)
                time.sleep(0.05)
            os.kill(pid, signal.SIGKILL)

    def create_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url_of(name)

    def drop_database(self, url: str) -> None:
        """Drop a database `create_database` made, cutting what is still connected to it. The
        run makes one a test, ~8 MB each: kept, they filled gigabytes of disk by the end."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        if self.pid is None:  # stopped by its test: nothing to drop (it is removed with the folder)
            return
        with contextlib.suppress(psycopg.Error), \
                psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def remove(self) -> None:
        """Stop the server at once (its data is thrown away: no checkpoint to write) and delete
        its folder."""
        self.stop(signal.SIGQUIT)
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def running_cluster() -> Iterator[PostgresCluster]:
    """A started PostgreSQL server, removed at the end (skips, or fails in CI, where it cannot
    start)."""
    try:
        cluster = PostgresCluster()
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        unavailable(f"PostgreSQL cannot be set up here: {error}")
        raise AssertionError("unreachable") from None
    try:
        cluster.start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        log = cluster.log.read_text()[-1500:] if cluster.log.exists() else ""
        cluster.remove()
        unavailable(f"PostgreSQL cannot start here: {error} {log}")
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One PostgreSQL server for the whole test run."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def private_cluster() -> Iterator[PostgresCluster]:
    """A PostgreSQL server of one test's own, which it may stop and start."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def fresh_database(postgres_cluster: PostgresCluster) -> Iterator[str]:
    """The URL of an empty database of its own for one test, dropped after it."""
    url = postgres_cluster.create_database()
    yield url
    postgres_cluster.drop_database(url)
