"""``ratscrew serve --workers N``'s supervisor: keeps one process per shard running, for as long
as it runs itself, and takes them all with it when it goes.

- A shard that stops, for whatever reason (a crash, ``kill -9``, a start refused because
  PostgreSQL is down or its old process still holds the shard), is started again after a
  back-off (`Backoff`: 1 s, doubling to 30 s, back to 1 s once a shard has run for a stable
  minute). The supervisor never gives up on a shard and never stops the healthy ones because
  another failed.
- Its shards die with it, even on ``kill -9`` of the supervisor: on Linux each one asks the
  kernel for SIGTERM when its parent dies (``prctl(PR_SET_PDEATHSIG)``, set between ``fork`` and
  ``exec``), and each shard also watches its parent's pid (`watch_parent`, named by
  ``RATSCREW_SUPERVISOR_PID``) as a fallback where that is not available.
- SIGTERM or SIGINT stops every shard (SIGTERM, then SIGKILL after 10 s) and prints one line.

Every line it prints carries the time (`say`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

log = logging.getLogger("ratscrew.server")
supervisor_log = logging.getLogger("ratscrew.supervisor")

PARENT_ENV = "RATSCREW_SUPERVISOR_PID"
"""The environment variable through which a shard learns its supervisor's pid."""

QUIET_TRACKER = "ignore:resource_tracker:UserWarning"
"""A warnings filter for the shards: after a shard is killed (``kill -9``, the OOM killer), the
helper process Python started for its lab worker's locks frees them and would print a two-line
"leaked semaphore objects" warning, outside the log format, about what it just cleaned up."""
PR_SET_PDEATHSIG = 1
STOP_TIMEOUT_S = 10.0


def say(message: str, stream: TextIO | None = None, level: int = logging.INFO) -> None:
    """One supervisor line: logged (`ratscrew.server.ops.logs`: timestamped, text or JSON), or
    printed on ``stream`` with the local time and its time zone."""
    if stream is None:
        supervisor_log.log(level, "%s", message)
        return
    now = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    print(f"{now} ratscrew: {message}", file=stream, flush=True)


@dataclass
class Backoff:
    """How long a shard that stopped waits before it is started again.

    >>> backoff = Backoff()
    >>> [backoff.after_exit(ran_for_s=0.5) for _ in range(7)]
    [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    >>> backoff.after_exit(ran_for_s=120.0)  # it had run for a stable while: start over
    1.0
    """

    first_s: float = 1.0
    max_s: float = 30.0
    stable_s: float = 60.0
    """A shard that ran at least this long before stopping starts again from `first_s`."""
    _next_s: float = field(default=0.0, init=False)

    def after_exit(self, ran_for_s: float) -> float:
        """The wait before the next start, for a process that stopped after ``ran_for_s``."""
        if self._next_s == 0.0 or ran_for_s >= self.stable_s:
            self._next_s = self.first_s
        delay = self._next_s
        self._next_s = min(self.max_s, self._next_s * 2)
        return delay


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGTERM when ``parent`` dies (Linux), or
    ``None`` where prctl is not available."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def setup() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died between fork and prctl
            os._exit(1)

    return setup


def watch_parent(parent: int, every_s: float = 1.0) -> threading.Thread:
    """In a shard: stop this process (SIGTERM, so it shuts down cleanly) once ``parent``, its
    supervisor, is gone; a daemon thread looking every ``every_s`` seconds."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        log.warning("the supervisor (pid %d) is gone; stopping this shard", parent)
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=watch, name="watch-supervisor", daemon=True)
    thread.start()
    return thread


def watch_parent_from_environment() -> None:
    """`watch_parent` when this process was started by a supervisor (``RATSCREW_SUPERVISOR_PID``)."""
    value = os.environ.get(PARENT_ENV, "")
    if value.isdigit():
        watch_parent(int(value))


@dataclass
class Shard:
    """One supervised process."""

    letter: str
    command: Sequence[str]
    backoff: Backoff
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    start_at: float | None = 0.0
    """When to start it (``time.monotonic``), or ``None`` while it runs."""


class Supervisor:
    """Runs ``commands`` (one per shard letter) until `stop`; see the module docstring."""

    def __init__(self, commands: Mapping[str, Sequence[str]], *,
                 backoff: Callable[[], Backoff] = Backoff, poll_s: float = 0.2,
                 environment: Mapping[str, str] | None = None,
                 each_step: Callable[[], None] | None = None) -> None:
        """``environment``: added to this process's for the shards (the database URL goes
        there, never on their command lines); ``each_step``: called at every step (the
        deployment's claim on the database, `ratscrew.storage.deployment`)."""
        self.shards = [Shard(letter, command, backoff()) for letter, command in commands.items()]
        self.each_step = each_step
        self.poll_s = poll_s
        self.stopping = False
        self._pid = os.getpid()
        self._env = {**os.environ, **(environment or {}), PARENT_ENV: str(self._pid),
                     "PYTHONWARNINGS": ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"),
                                                              QUIET_TRACKER]))}

    def _start(self, shard: Shard) -> None:
        try:
            shard.process = subprocess.Popen(list(shard.command), env=self._env,
                                             preexec_fn=_die_with_parent(self._pid))
        except OSError as error:
            delay = shard.backoff.after_exit(0.0)
            say(f"shard {shard.letter} could not be started ({error.strerror}); trying again in {delay:g} s",
                level=logging.ERROR)
            shard.start_at = time.monotonic() + delay
            return
        shard.started_at, shard.start_at = time.monotonic(), None

    def stop(self, signum: int = 0, frame: Any = None) -> None:
        """Ask the loop in `run` to stop every shard and return (a signal handler)."""
        self.stopping = True

    def step(self) -> None:
        """One look at every shard: start the ones due, note the ones that stopped."""
        now = time.monotonic()
        for shard in self.shards:
            if shard.start_at is not None:
                if now >= shard.start_at:
                    self._start(shard)
                continue
            assert shard.process is not None
            code = shard.process.poll()
            if code is None:
                continue
            delay = shard.backoff.after_exit(now - shard.started_at)
            reason = f"signal {-code}" if code < 0 else f"status {code}"
            say(f"shard {shard.letter} stopped ({reason}); starting it again in {delay:g} s",
                level=logging.WARNING)
            shard.start_at = now + delay

    def run(self) -> int:
        """Supervise until SIGTERM or SIGINT; then stop every shard. The exit status: 0."""
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        try:
            while not self.stopping:
                self.step()
                if self.each_step is not None:
                    self.each_step()
                time.sleep(self.poll_s)
        finally:
            self.stop_all()
        return 0

    def stop_all(self) -> None:
        """SIGTERM every running shard, SIGKILL the ones still there after `STOP_TIMEOUT_S`."""
        running = [s.process for s in self.shards if s.process is not None and s.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        killed = 0
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                killed += 1
        say(f"stopped {len(running)} shard{'s' if len(running) != 1 else ''}"
            + (f" ({killed} did not stop within {STOP_TIMEOUT_S:g} s and were killed)" if killed else ""))
