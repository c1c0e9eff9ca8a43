"""The server's lab: house-rule simulations in one worker process, so rooms never wait on them.

A `LabService` owns one worker process (a ``spawn``-ed `ProcessPoolExecutor` with one worker)
and the jobs given to it. Two kinds of job run there, one at a time:

- lab jobs (``POST /api/lab``): the full report of :func:`ratscrew.sim.lab.run_lab` for a ruleset,
  seats and bots; the page polls ``GET /api/lab/jobs/ID`` for progress and the report;
- expected lengths: a room's lobby shows the median and 90th percentile minutes of a game under
  its rules, seats and bots (:meth:`LabService.expected_length`), computed once per
  combination with :data:`LENGTH_GAMES` games and cached, in memory and (for a restart and the
  other shards of the machine) on disk (`ratscrew.server.lab.lengths`).

Limits keep it fair and bounded: one address has at most :data:`MAX_OPEN_PER_ADDRESS`
unfinished jobs and :data:`JOBS_PER_HOUR` an hour (``429``), so the queue holds one job per
address, and at most :data:`MAX_WAITING` wait behind the running one (then ``503 busy, try
again``); a job plays at most :data:`MAX_GAMES` games per figure set, and stops (saying so)
once it has played :data:`MAX_JOB_CARDS` cards or taken :data:`MAX_JOB_SECONDS` of the
worker. The worker takes one piece of work at a time, chosen when it is free: lab jobs
first, the address that has started the fewest in the last hour first, and a lobby's estimate
only when no lab job waits (a room has one estimate waiting at most, :data:`MAX_WAITING_LENGTHS`
wait in all, :data:`MAX_LENGTHS_PER_ADDRESS` from one address, the address served least
recently goes first, and :data:`MAX_KNOWN_LENGTHS` are kept). A job not yet taken says ``queued``.
Finished jobs are kept for :data:`KEEP_FINISHED_S`.

The worker imports the compiled kernel itself (numba: about 187 MB); the server process never
does, and a worker idle for :data:`WORKER_IDLE_S` is ended, so that memory is held only while
the lab has work. Numba caches the
compiled kernel beside its source; where that directory is not writable, the worker points
``NUMBA_CACHE_DIR`` at a directory under the system's temporary directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import queue
import secrets
import tempfile
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ratscrew.protocol.http import JobState, LabJobStatus, LabReport
from ratscrew.ruleset import Ruleset
from ratscrew.server.lab.lengths import StoredLengths

log = logging.getLogger("ratscrew.server.lab")

MAX_WAITING = 16
"""Lab jobs that may wait behind the running one (one per address: `MAX_OPEN_PER_ADDRESS`);
one more is refused as busy. At 4, five people's jobs closed the lab to everyone else. Each
job is bounded by `MAX_JOB_CARDS` (10-50 s of the worker on the development machine), so the
last of 16 waits for 16 bounded jobs at most; its ``position`` says how many are ahead."""
MAX_OPEN_PER_ADDRESS = 1
"""Unfinished lab jobs one address may have."""
JOBS_PER_HOUR = 30
"""Lab jobs one address may start in an hour."""
MAX_GAMES = 5_000
"""The most games a lab job may ask for (per figure set: the report plays two to four sets)."""
DEFAULT_GAMES = 2_000
"""Games per figure set when a lab job does not say."""
LENGTH_GAMES = 2_000
"""Games behind a lobby's expected length."""
WORKER_IDLE_S = 60.0
"""A worker with nothing to do for this long is ended: it holds the compiled kernel (numba and
its caches, about 187 MB), which the server process never loads; the next job starts a new one."""
KEEP_FINISHED_S = 600.0
"""How long a finished job's report can still be fetched."""
MAX_JOB_CARDS = 20_000_000
"""The most cards one lab job may play, all its figure sets together; past it the job stops
and says to ask for fewer games (a maximal job took 27-132 s, and held everyone else out
meanwhile). The compiled kernel plays 0.4-1.8 million cards a second on one core of the
development machine (more players, fewer a second), so this is 10-50 s of the worker; a job of
the default 2,000 games is under it for every preset and up to 8 players."""
MAX_JOB_SECONDS = 90.0
"""The most worker time one lab job may take, a backstop behind `MAX_JOB_CARDS` for a machine
much slower or busier than expected (a job stopped by cards always stops at the same point; one
stopped by time depends on the load)."""
MAX_WAITING_LENGTHS = 16
"""Expected-length estimates that may wait for the worker; a room has at most one waiting (its
newest rules replace the one before), and past this many a room shows none for now: it asks
again once an estimate is done (the last :data:`MAX_WAITING_LENGTHS` rooms refused are kept)."""
MAX_LENGTHS_PER_ADDRESS = 2
"""Expected-length estimates one address may have waiting, across all the rooms it configures
(a room counts against the address that last set its rules or seats); past it, that room shows
none for now and asks again once an estimate is done."""
MAX_KNOWN_LENGTHS = 256
"""Expected lengths kept (the least recently shown are forgotten first)."""
DEFAULT_LEVEL = "casual"
"""The bot that stands in for a person (or an open seat) when a lobby's length is estimated."""

_progress: Any = None  # the worker's end of the progress queue


class JobTooLong(Exception):
    """A lab job played past its `MAX_JOB_CARDS` or ran past its `MAX_JOB_SECONDS`; raised in
    the worker, so the job ends. The message says which share it used up ("30 s of the lab's
    time", "20,000,000 cards")."""


class LabBusy(Exception):
    """The lab's queue is full (503) or this address has too many jobs (429); the message says
    which, in words for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------- in the worker


def _writable_numba_cache() -> None:
    """Point numba's cache at a writable directory when the package's is not."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    sim_dir = Path(__file__).resolve().parents[2] / "sim"
    if not os.access(sim_dir, os.W_OK):
        cache = Path(tempfile.gettempdir()) / "ratscrew-numba-cache"
        cache.mkdir(parents=True, exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = str(cache)


def _start_worker(progress: Any, server_pid: int) -> None:
    """The worker process's initializer: a writable numba cache, the progress queue, and a
    watch that ends the worker when the server is gone (even killed with SIGKILL)."""
    global _progress
    _writable_numba_cache()
    _progress = progress
    threading.Thread(target=_exit_with_server, args=(server_pid,), daemon=True).start()


def _exit_with_server(server_pid: int) -> None:
    while os.getppid() == server_pid:
        time.sleep(1.0)
    os._exit(0)


class JobBudget:
    """In the worker: a lab job's share of it, checked after every batch of (at most 100) games.

    `games` reports progress to the server and checks the time, counted from the end of the
    first batch (which may include loading or compiling the kernel); `cards` adds up the cards
    played. Either raises `JobTooLong` once the job is past its share."""

    def __init__(self, job_id: str, seconds: float = MAX_JOB_SECONDS,
                 max_cards: int = MAX_JOB_CARDS) -> None:
        self.job_id = job_id
        self.seconds = seconds
        self.max_cards = max_cards
        self.played = 0
        self.deadline: float | None = None

    def games(self, done: int) -> None:
        """A batch of ``done`` games finished."""
        if _progress is not None:
            _progress.put((self.job_id, done))
        if self.deadline is None:
            self.deadline = time.monotonic() + self.seconds
        elif time.monotonic() > self.deadline:
            raise JobTooLong(f"{self.seconds:g} s of the lab's time")

    def cards(self, played: int) -> None:
        """That batch played ``played`` cards."""
        self.played += played
        if self.played > self.max_cards:
            raise JobTooLong(f"{self.max_cards:,} cards")


def _lab_run(rules_toml: str, bots: Sequence[str], games: int, seed: int) -> Any:
    from ratscrew.bots.profile import level
    from ratscrew.sim.lab import LabRun

    return LabRun(Ruleset.from_toml(rules_toml), tuple(level(name) for name in bots), games, seed,
                  workers=1)


def run_lab_job(job_id: str, rules_toml: str, bots: Sequence[str], games: int,
                seed: int, seconds: float = MAX_JOB_SECONDS,
                max_cards: int = MAX_JOB_CARDS) -> dict[str, Any]:
    """In the worker: the lab report for these rules and bots (`JobTooLong` past ``max_cards``
    cards played or ``seconds`` of worker time)."""
    from ratscrew.sim.lab import run_lab

    budget = JobBudget(job_id, seconds, max_cards)
    report: dict[str, Any] = run_lab(_lab_run(rules_toml, bots, games, seed), budget.games,
                                     budget.cards)
    return report


def run_length_job(rules_toml: str, bots: Sequence[str], games: int) -> dict[str, float]:
    """In the worker: the median and 90th percentile minutes of a game."""
    from ratscrew.sim.lab import length_only

    length = length_only(_lab_run(rules_toml, bots, games, 1))
    return {"median_minutes": round(length["median_minutes"]["value"], 1),
            "p90_minutes": round(length["p90_minutes"]["value"], 1)}


# ---------------------------------------------------------------------------- in the server


@dataclass
class LabJob:
    """One lab job as the server tracks it."""

    id: str
    address: str
    rules: str
    players: int
    total: int
    future: Future[dict[str, Any]] | None = None
    """Set when the worker takes the job; until then it waits in the service's queue."""
    done: int = 0
    finished_at: float | None = None
    games: int = 0
    seed: int = 1
    toml: str = ""
    bots: tuple[str, ...] = ()
    queued_at: float = 0.0

    def state(self, first: bool = True) -> JobState:
        """``queued``, ``running``, ``done`` or ``failed`` (``first`` is kept for callers; a
        job is running only once the worker has taken it)."""
        if self.future is None:
            return "queued"
        if not self.future.done():
            return "running"
        return "failed" if self.future.cancelled() or self.future.exception() is not None else "done"

    def to_json(self, position: int) -> LabJobStatus:
        """The ``GET /api/lab/jobs/ID`` answer; ``position``: unfinished lab jobs before it."""
        state = self.state(position == 0)
        answer: LabJobStatus = {"id": self.id, "state": state, "done": self.done,
                                "total": self.total, "rules": self.rules,
                                "players": self.players}
        if state == "queued":
            answer["position"] = position
        elif state == "done" and self.future is not None:
            # run_lab's report: the simulation sits below the protocol and cannot name its type;
            # tests/test_protocol_http.py holds a real report to LabReport
            answer["report"] = cast(LabReport, self.future.result())
        elif state == "failed":
            error = (self.future.exception()
                     if self.future is not None and not self.future.cancelled() else None)
            answer["error"] = (f"the simulation was stopped after {error}, so that others get "
                               "their turn; ask for fewer games"
                               if isinstance(error, JobTooLong) else
                               "the simulation failed; try again with other settings")
        return answer


LengthKey = tuple[str, tuple[str, ...]]
"""An expected length's rules (TOML) and sorted bot levels."""


@dataclass
class LabService:
    """The worker process, its jobs and its limits (see the module docstring).

    The worker is given one piece of work at a time, chosen here when it is free: a waiting lab
    job first (from the address that has started the fewest jobs in the last hour, then the
    earliest), an expected-length estimate only when no lab job waits."""

    max_waiting: int = MAX_WAITING
    max_open_per_address: int = MAX_OPEN_PER_ADDRESS
    jobs_per_hour: int = JOBS_PER_HOUR
    max_games: int = MAX_GAMES
    length_games: int = LENGTH_GAMES
    max_job_seconds: float = MAX_JOB_SECONDS
    max_job_cards: int = MAX_JOB_CARDS
    max_waiting_lengths: int = MAX_WAITING_LENGTHS
    max_lengths_per_address: int = MAX_LENGTHS_PER_ADDRESS
    max_known_lengths: int = MAX_KNOWN_LENGTHS
    worker_idle_s: float = WORKER_IDLE_S
    jobs: dict[str, LabJob] = field(default_factory=dict)
    lengths: OrderedDict[LengthKey, dict[str, float]] = field(default_factory=OrderedDict)
    """Known expected lengths, least recently shown first."""
    stored_lengths: StoredLengths | None = None
    """Where estimates are kept on disk for a restart and the other shards of the machine
    (`ratscrew.server.lab.lengths`); ``None``: only in memory."""
    _pool: ProcessPoolExecutor | None = None
    _progress: Any = None
    _length_waiters: dict[LengthKey, list[Callable[[], None]]] = field(default_factory=dict)
    _waiting_lengths: OrderedDict[LengthKey, tuple[Any, str | None]] = field(
        default_factory=OrderedDict)
    """Estimates waiting for the worker, each with the room (its ``on_ready``) and the address
    that asked."""
    _lengths_served: OrderedDict[str | None, None] = field(default_factory=OrderedDict)
    """Addresses whose estimates the worker took, the least recently served first."""
    _refused_lengths: OrderedDict[Callable[[], None], None] = field(default_factory=OrderedDict)
    """Rooms (their ``on_ready``) refused an estimate by a cap, to ask again once one is done."""
    _busy: Future[Any] | None = None
    """What the worker is doing now."""
    _running_length: LengthKey | None = None
    _busy_generation: int = 0
    _idle_timer_for: int = -1
    """Pieces of work the worker was given: an idle timer ends it only if none came since."""
    _loop: asyncio.AbstractEventLoop | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _started: dict[str, deque[float]] = field(default_factory=dict)
    _stopping: bool = False

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is not None and getattr(self._pool, "_broken", False):
            log.warning("the lab's worker process died; starting a new one")
            self._end_worker()
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._progress = context.Queue()
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=context,
                                             initializer=_start_worker,
                                             initargs=(self._progress, os.getpid()))
        return self._pool

    def shutdown(self) -> None:
        """Stop the worker at once: jobs still waiting are dropped and a running simulation is
        ended (the server is stopping; nobody will read its report)."""
        self._stopping = True
        self._waiting_lengths.clear()
        self._end_worker()

    def _end_worker(self) -> None:
        if self._pool is None:
            return
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(5)
        self._pool = None
        if self._progress is not None:
            self._progress.close()
            self._progress = None

    # ------------------------------------------------------------------ the one worker

    def _remember_loop(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()

    def _next_job(self) -> LabJob | None:
        waiting = [job for job in self.jobs.values() if job.future is None]
        if not waiting:
            return None
        return min(waiting, key=lambda job: (len(self._started.get(job.address, ())),
                                             job.queued_at))

    def _pump(self) -> None:
        """Give the worker its next piece of work, if it is free (see the class docstring)."""
        with self._lock:
            if self._stopping or (self._busy is not None and not self._busy.done()):
                return
            self._busy, self._running_length = None, None
            job = self._next_job()
            try:
                if job is not None:
                    future: Future[Any] = self._executor().submit(
                        run_lab_job, job.id, job.toml, job.bots, job.games, job.seed,
                        self.max_job_seconds, self.max_job_cards)
                    job.future = future
                elif self._waiting_lengths:
                    key = self._next_length()
                    future = self._executor().submit(run_length_job, key[0], key[1],
                                                     self.length_games)
                    self._running_length = key
                    future.add_done_callback(self._length_done(key))
                else:
                    self._end_when_idle()
                    return
            except (BrokenExecutor, RuntimeError, OSError):
                log.exception("could not start the lab's worker")
                if job is not None:
                    failed: Future[dict[str, Any]] = Future()
                    failed.set_exception(RuntimeError("no worker"))
                    job.future = failed
                return
            self._busy = future
            self._busy_generation += 1
        future.add_done_callback(self._worker_free)

    def _next_length(self) -> LengthKey:
        """Take the waiting estimate to run next: the oldest of the address whose estimates the
        worker took least recently (one that never had one first)."""
        served = {address: n for n, address in enumerate(self._lengths_served)}
        key = min(self._waiting_lengths,
                  key=lambda waiting: served.get(self._waiting_lengths[waiting][1], -1))
        _, address = self._waiting_lengths.pop(key)
        self._lengths_served.pop(address, None)
        self._lengths_served[address] = None
        while len(self._lengths_served) > self.max_known_lengths:
            self._lengths_served.popitem(last=False)
        return key

    def _end_when_idle(self) -> None:
        """With nothing to do, end the worker once it has stayed idle `worker_idle_s`."""
        if (self._pool is None or self._loop is None or self._loop.is_closed()
                or self._idle_timer_for == self._busy_generation):
            return
        idle_since = self._idle_timer_for = self._busy_generation

        def end_if_still_idle() -> None:
            with self._lock:
                if (self._busy_generation == idle_since and self._busy is None
                        and not self._stopping and self._pool is not None):
                    log.info("the lab's worker was idle %.0f s: ended", self.worker_idle_s)
                    self._end_worker()

        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._loop.call_later, self.worker_idle_s,
                                            end_if_still_idle)

    def _worker_free(self, _: Future[Any]) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._pump)
                return
            except RuntimeError:  # the loop closed meanwhile
                pass
        self._pump()

    # ------------------------------------------------------------------ lab jobs

    def _unfinished(self) -> list[LabJob]:
        return [job for job in self.jobs.values() if job.finished_at is None
                and (job.future is None or not job.future.done())]

    def _forget_old(self, now: float) -> None:
        for job in list(self.jobs.values()):
            if job.future is not None and job.future.done() and job.finished_at is None:
                job.finished_at = now
            if job.finished_at is not None and now - job.finished_at > KEEP_FINISHED_S:
                del self.jobs[job.id]

    def submit(self, address: str, rules: Ruleset, bots: Sequence[str], games: int,
               seed: int = 1, shard: str | None = None) -> LabJob:
        """Queue a lab job; `LabBusy` when the queue is full or the address has too many. On a
        shard the job's id starts with the shard's letter, so a proxy sends the polls for it to
        the process whose worker runs it (`ratscrew.server.ops.nginx`)."""
        if not 1 <= games <= self.max_games:
            raise ValueError(f"games must be from 1 to {self.max_games}, not {games}")
        self._remember_loop()
        now = time.monotonic()
        self._forget_old(now)
        unfinished = self._unfinished()
        if sum(1 for job in unfinished if job.address == address) >= self.max_open_per_address:
            raise LabBusy(429, "you already have a simulation running: wait for it to finish")
        started = self._started.setdefault(address, deque())
        while started and started[0] <= now - 3600:
            started.popleft()
        if len(started) >= self.jobs_per_hour:
            raise LabBusy(429, f"at most {self.jobs_per_hour} simulations an hour from one "
                               "address; try again later")
        if len(unfinished) > self.max_waiting:
            raise LabBusy(503, "the lab is busy with other simulations; try again in a minute")
        from ratscrew.sim.lab import LabRun  # no kernel: only the plan of the run

        plan = LabRun(rules, (), games)
        job_id = (shard or "").upper() + secrets.token_urlsafe(9)
        job = LabJob(job_id, address, rules.name, len(bots), plan.total_games, games=games,
                     seed=seed, toml=rules.to_toml(), bots=tuple(bots), queued_at=now)
        self.jobs[job.id] = job
        started.append(now)
        self._pump()
        return job

    def status(self, job_id: str) -> dict[str, Any] | None:
        """A job's state, progress and (when done) report; ``None`` for an unknown job (as a
        plain dict; `job_status` is the same answer as its protocol type)."""
        answer = self.job_status(job_id)
        return None if answer is None else dict(answer)

    def job_status(self, job_id: str) -> LabJobStatus | None:
        """The ``GET /api/lab/jobs/ID`` answer for a job; ``None`` for an unknown job."""
        self._drain_progress()
        self._pump()
        self._forget_old(time.monotonic())
        job = self.jobs.get(job_id)
        if job is None:
            return None
        waiting = sorted((j for j in self.jobs.values() if j.future is None),
                         key=lambda j: (len(self._started.get(j.address, ())), j.queued_at))
        position = next((n + 1 for n, j in enumerate(waiting) if j.id == job_id), 0)
        return job.to_json(position)

    def _drain_progress(self) -> None:
        if self._progress is None:
            return
        for _ in itertools.repeat(None, 10_000):
            try:
                job_id, done = self._progress.get_nowait()
            except (queue.Empty, OSError, ValueError):
                return
            job = self.jobs.get(job_id)
            if job is not None:
                job.done = min(job.total, job.done + done)

    # ------------------------------------------------------------------ lobbies

    def expected_length(self, rules: Ruleset, seat_bots: Sequence[str | None],
                        on_ready: Callable[[], None] | None = None,
                        address: str | None = None) -> dict[str, float] | None:
        """``{median_minutes, p90_minutes}`` for these rules and seats (a bot level per seat,
        ``None`` for a person or an open seat, played as a casual bot), or ``None`` while it is
        being computed; ``on_ready`` is called (in the event loop) once it is known.

        ``on_ready`` also stands for the room that asks, and ``address`` for the client that
        set its rules or seats (``None``, e.g. for a room restored at start, is not counted per
        address): a room has at most one estimate waiting (a newer one replaces
        it), an address at most :data:`MAX_LENGTHS_PER_ADDRESS` across its rooms, at most
        :data:`MAX_WAITING_LENGTHS` wait in all, and they run only when no lab job waits (the
        address served least recently first)."""
        key = (rules.to_toml(), tuple(sorted(level or DEFAULT_LEVEL for level in seat_bots)))
        known = self.lengths.get(key)
        if known is not None:
            self.lengths.move_to_end(key)
            return known
        if self._stopping or len(key[1]) < 2:
            return None
        self._remember_loop()
        if key in self._waiting_lengths or key == self._running_length:
            if on_ready is not None:
                self._wait_for(key, on_ready)
            return None
        stored = (None if self.stored_lengths is None
                  else self.stored_lengths.get(key[0], key[1], self.length_games))
        if stored is not None:  # computed before this start, or by another shard
            self._remember_length(key, stored)
            return stored
        if on_ready is not None:  # this room's older estimate, not started yet, is not needed
            for older, (asker, _) in list(self._waiting_lengths.items()):
                if asker == on_ready:
                    del self._waiting_lengths[older]
                    self._drop_waiter(older, on_ready)
        from_address = sum(1 for _, asker in self._waiting_lengths.values()
                           if address is not None and asker == address)
        if (len(self._waiting_lengths) >= self.max_waiting_lengths
                or from_address >= self.max_lengths_per_address):
            if on_ready is not None:  # it asks again once an estimate is done
                self._refused_lengths.pop(on_ready, None)
                self._refused_lengths[on_ready] = None
                while len(self._refused_lengths) > self.max_waiting_lengths:
                    self._refused_lengths.popitem(last=False)
            return None
        if on_ready is not None:
            self._refused_lengths.pop(on_ready, None)
        self._waiting_lengths[key] = (on_ready, address)
        if on_ready is not None:
            self._wait_for(key, on_ready)
        self._pump()
        return None

    def _remember_length(self, key: LengthKey, length: dict[str, float]) -> None:
        self.lengths[key] = length
        self.lengths.move_to_end(key)
        while len(self.lengths) > self.max_known_lengths:
            self.lengths.popitem(last=False)

    def _drop_waiter(self, key: LengthKey, on_ready: Callable[[], None]) -> None:
        waiters = self._length_waiters.get(key, [])
        if on_ready in waiters:
            waiters.remove(on_ready)
        if not waiters:
            self._length_waiters.pop(key, None)

    def _wait_for(self, key: LengthKey, on_ready: Callable[[], None]) -> None:
        waiters = self._length_waiters.setdefault(key, [])
        if on_ready not in waiters:
            waiters.append(on_ready)

    def _length_done(self, key: LengthKey) -> Callable[[Future[dict[str, float]]], None]:
        loop = self._loop

        def finished(done: Future[dict[str, float]]) -> None:
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._length_known, key, done)
        return finished

    def _length_known(self, key: LengthKey, done: Future[dict[str, float]]) -> None:
        if self._stopping:  # the worker was ended on purpose: nobody waits for the length
            return
        if done.cancelled() or done.exception() is not None:
            log.warning("could not estimate a game's length: %s",
                        "cancelled" if done.cancelled() else done.exception())
            self._length_waiters.pop(key, None)
        else:
            self._remember_length(key, done.result())
            if self.stored_lengths is not None:
                self.stored_lengths.put(key[0], key[1], self.length_games, done.result())
            self._call(self._length_waiters.pop(key, []))
        # a place is free: the rooms a cap refused ask again (and may be refused again)
        refused, self._refused_lengths = list(self._refused_lengths), OrderedDict()
        self._call(refused)

    @staticmethod
    def _call(rooms: list[Callable[[], None]]) -> None:
        for callback in rooms:
            try:
                callback()
            except Exception:  # a room that went away must not stop the others
                log.exception("a room could not show its expected length")
