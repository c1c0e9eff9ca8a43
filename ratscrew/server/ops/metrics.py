"""``GET /metrics``: the server's numbers in the Prometheus text format (``prometheus_client``).

What is exported (every one with a ``shard`` label when the process is a shard, ``--shard`` or
``--workers``; docs/online.md, "Operating it", has the list for operators):

- ``ratscrew_rooms{phase}``: rooms in memory, by phase (``lobby``, ``playing``, ``over``);
- ``ratscrew_connections``: open websockets;
- ``ratscrew_messages_in_total`` / ``ratscrew_messages_out_total``: websocket messages read/sent;
- ``ratscrew_actions_total``: players' game actions taken by rooms (plays and slaps);
- ``ratscrew_store_seconds``: a histogram of the time of each store call;
- ``ratscrew_publish_wait_seconds``: a histogram of how long what a room sends waited for its
  step (or other write) to be stored first (persist before publish, `ratscrew.server.room.writer`):
  the store's share of the delay players see;
- ``ratscrew_room_pauses_total``: rooms paused because the database went away;
- ``ratscrew_games_finished_total``: games played to their end;
- ``ratscrew_rooms_closed_total``: idle rooms closed (`ratscrew.server.ops.expiry`);
- the ``process_*`` metrics of ``prometheus_client`` (memory, CPU, open files).

The hot path stays cheap: counting is ``TALLY.messages_in += 1`` on a slotted object (no lock, no
label lookup: the event loop is one thread), and the numbers become metric families only when
someone scrapes (`ServerCollector`).

Who may read it: loopback addresses and the proxies named by ``--forwarded-allow-ips`` (not
``*``); anyone else gets 403. Behind a proxy the address seen is the player's (uvicorn takes it
from ``X-Forwarded-For``), so the public cannot scrape through the proxy.
"""

from __future__ import annotations

import bisect
import functools
import inspect
import ipaddress
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Upper bounds (seconds) of the ``ratscrew_store_seconds`` buckets."""
PUBLISH_WAIT_BUCKETS = (0.0005, 0.001, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03,
                        0.05, 0.1, 0.25, 1.0, 5.0)
"""Upper bounds (seconds) of the ``ratscrew_publish_wait_seconds`` buckets: finer than the store
calls' below 5 ms, where SQLite's spacing of its transactions (3 ms) and a PostgreSQL round trip
both fall, so that a p99 read from them tells the two apart."""
PHASES = ("lobby", "playing", "over")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Timings:
    """Durations counted into buckets (a Prometheus histogram's numbers, kept without a lock).

    >>> timings = Timings((0.001, 0.01))
    >>> timings.add(0.0004); timings.add(0.003); timings.add(2.0)
    >>> timings.buckets, timings.count, round(timings.sum, 4)
    ([1, 1, 1], 3, 2.0034)
    >>> timings.cumulative()
    [('0.001', 1), ('0.01', 2), ('+Inf', 3)]
    """

    __slots__ = ("bounds", "buckets", "count", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        """Each bucket's upper bound (seconds), rising; one more bucket takes the rest."""
        self.buckets = [0] * (len(bounds) + 1)
        self.count = 0
        self.sum = 0.0

    def add(self, seconds: float) -> None:
        """Count one duration."""
        self.buckets[bisect.bisect_left(self.bounds, seconds)] += 1
        self.count += 1
        self.sum += seconds

    def cumulative(self) -> list[tuple[str, int]]:
        """The buckets as a histogram states them: each bound with the count at or below it."""
        total, rows = 0, []
        for bound, count in zip((*self.bounds, float("inf")), self.buckets, strict=True):
            total += count
            rows.append(("+Inf" if bound == float("inf") else repr(bound), total))
        return rows


class Tally:
    """This process's counters (one per process: `TALLY`)."""

    __slots__ = ("actions", "games_finished", "messages_in", "messages_out", "publish_waits",
                 "room_pauses", "rooms_closed", "store_calls")

    def __init__(self) -> None:
        self.messages_in = 0
        self.messages_out = 0
        self.actions = 0
        self.room_pauses = 0
        self.games_finished = 0
        self.rooms_closed = 0
        self.store_calls = Timings(STORE_BUCKETS)
        """The time of each store call (``ratscrew_store_seconds``)."""
        self.publish_waits = Timings(PUBLISH_WAIT_BUCKETS)
        """How long each write held back what its room sends (``ratscrew_publish_wait_seconds``)."""

    def store_call(self, seconds: float) -> None:
        """Count one store call that took ``seconds``.

        >>> tally = Tally()
        >>> tally.store_call(0.003); tally.store_call(20.0)
        >>> calls = tally.store_calls
        >>> calls.count, calls.buckets[STORE_BUCKETS.index(0.005)], calls.buckets[-1]
        (2, 1, 1)
        """
        self.store_calls.add(seconds)


TALLY = Tally()
"""The counters the server increments."""


TIMED_BY_THE_CALLER = frozenset({"start_steps"})
"""Store methods `instrument_store` does not time: `start_steps` returns once a batch is sent,
and the step writer counts its round trip when the answer comes (`ratscrew.server.room.writer`)."""


def instrument_store(store: Any, tally: Tally = TALLY) -> Any:
    """Time every public method of ``store`` into ``tally`` (wrapping them on the instance,
    once: a store shared by several apps is not timed twice), but `TIMED_BY_THE_CALLER`;
    returns ``store``."""
    if getattr(store, "_ratscrew_timed", False):
        return store
    store._ratscrew_timed = True
    for name in dir(type(store)):
        if (name.startswith("_") or name in TIMED_BY_THE_CALLER
                or isinstance(getattr(type(store), name), property)):
            continue
        method = getattr(store, name)
        if callable(method):
            setattr(store, name, _timed(method, tally))
    return store


def _timed(method: Callable[..., Any], tally: Tally) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(method):  # timed until it is done, not until it is made
        @functools.wraps(method)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await method(*args, **kwargs)
            finally:
                tally.store_call(time.perf_counter() - started)

        return timed_async

    @functools.wraps(method)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            tally.store_call(time.perf_counter() - started)

    return timed


class ServerCollector:
    """The metric families of one server (a `ratscrew.server.state.Server`), made at scrape time."""

    def __init__(self, server: Any, tally: Tally = TALLY) -> None:
        self.server = server
        self.tally = tally

    def collect(self) -> Iterator[Metric]:
        """Every ``ratscrew_*`` family (see the module docstring)."""
        shard = self.server.shard
        names = ["shard"] if shard else []
        values = [shard] if shard else []
        tally = self.tally
        phases = Counter(room.phase for room in list(self.server.rooms.values()))
        rooms = GaugeMetricFamily("ratscrew_rooms", "Rooms in memory, by phase.", labels=[*names, "phase"])
        for phase in sorted(set(PHASES) | set(phases)):
            rooms.add_metric([*values, phase], phases.get(phase, 0))
        yield rooms
        connections = GaugeMetricFamily("ratscrew_connections", "Open websockets.", labels=names)
        connections.add_metric(values, len(self.server.connections))
        yield connections
        for name, text, value in (
                ("ratscrew_messages_in", "Websocket messages read.", tally.messages_in),
                ("ratscrew_messages_out", "Websocket messages sent.", tally.messages_out),
                ("ratscrew_actions", "Players' game actions taken by rooms.", tally.actions),
                ("ratscrew_room_pauses", "Rooms paused because the database went away.", tally.room_pauses),
                ("ratscrew_games_finished", "Games played to their end.", tally.games_finished),
                ("ratscrew_rooms_closed", "Idle rooms closed.", tally.rooms_closed)):
            counter = CounterMetricFamily(name, text, labels=names)
            counter.add_metric(values, value)
            yield counter
        for name, text, timings in (
                ("ratscrew_store_seconds", "Time of each store (database) call.", tally.store_calls),
                ("ratscrew_publish_wait_seconds", "How long what a room sends waited for its write "
                 "to be stored first (persist before publish).", tally.publish_waits)):
            histogram = HistogramMetricFamily(name, text, labels=names)
            histogram.add_metric(values, timings.cumulative(), timings.sum)
            yield histogram


def parse_trusted(forwarded_allow_ips: str | None) -> tuple[Network, ...]:
    """The networks of ``--forwarded-allow-ips`` that may read ``/metrics`` (``*`` and names
    that are not addresses trust no one more).

    >>> [str(n) for n in parse_trusted("10.0.0.5, 192.168.1.0/24,*,proxy")]
    ['10.0.0.5/32', '192.168.1.0/24']
    """
    networks: list[Network] = []
    for item in (forwarded_allow_ips or "").split(","):
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            continue
    return tuple(networks)


def may_read(address: str, trusted: Iterable[Network]) -> bool:
    """Whether a client at ``address`` may read ``/metrics``.

    >>> may_read("127.0.0.1", ()), may_read("::1", ()), may_read("203.0.113.9", ())
    (True, True, False)
    >>> may_read("10.0.0.5", parse_trusted("10.0.0.5"))
    True
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.is_loopback or any(ip in network for network in trusted)


class ShardProcessCollector:
    """prometheus_client's ``process_*`` families (memory, CPU, open files), with the ``shard``
    label every ``ratscrew_*`` family has, so one query can tell a shard's process apart from
    another's on the same machine."""

    def __init__(self, shard: str | None) -> None:
        self.shard = shard
        self.process = ProcessCollector(registry=None)

    def collect(self) -> Iterator[Metric]:
        """The process's families, each sample labelled with the shard (when there is one)."""
        for family in self.process.collect():
            if not self.shard:
                yield family
                continue
            labelled = Metric(family.name, family.documentation, family.type, family.unit)
            for sample in family.samples:
                labelled.add_sample(sample.name, {**sample.labels, "shard": self.shard}, sample.value,
                                    sample.timestamp, sample.exemplar)
            yield labelled


def registry_for(server: Any) -> CollectorRegistry:
    """A registry with ``server``'s families and the process's."""
    registry = CollectorRegistry(auto_describe=True)
    registry.register(ServerCollector(server))
    registry.register(ShardProcessCollector(server.shard))
    return registry


async def metrics(request: Request) -> Response:
    """``GET /metrics`` (see the module docstring)."""
    state = request.app.state
    address = request.client.host if request.client else ""
    if not may_read(address, getattr(state, "trusted_proxies", ())):
        return JSONResponse({"error": "metrics are readable from this machine and the trusted proxy "
                                      "only"}, status_code=403)
    registry = getattr(state, "metrics_registry", None)
    if registry is None:
        registry = state.metrics_registry = registry_for(state.server)
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
