"""Link measurement: each connection's round trip, from the server's own pings.

The server sends ``{"type": "ping", "id": N}`` and the client answers ``pong`` with the same id
at once; the time between is one round-trip sample. `LinkEstimate` keeps a sliding window of
samples and estimates the link robustly:

- the **round trip** is the window's *minimum* (queueing and scheduling only ever add delay, so
  the smallest sample is the closest to the link itself and a few slow samples do not move it);
- the **jitter** is how far the 90th percentile of the latest `JITTER_WINDOW` samples lies above
  that minimum: how much later than the minimum an ordinary message may arrive *now*. It reads
  fewer samples than the minimum does so that a busy spell of the server's, which slows every
  link's pongs at once, stops widening the rooms' settling windows about 20 s after it ends
  instead of a minute.

Pongs are the client's to answer, so a client can make its link look slower than it is by
answering late (the lag cheat, docs/fairness.md). The link's other evidence is the client's own
stamped actions: each implies a round trip, its arrival minus when the state it answered was
sent minus the reaction it reports, which for an honest client is never less than the link's
round trip (it adds the client's render and event delays). `LinkEstimate.evidence_rtt_ms` is the
lower of the two, the most round trip the link's own evidence supports; judging compensates an
action by that, not by the pongs alone.

>>> link = LinkEstimate()
>>> for rtt in (42.0, 40.0, 55.0, 41.0, 48.0):
...     link.add(rtt)
>>> link.rtt_ms, link.jitter_ms, link.median_ms
(40.0, 15.0, 42.0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from itertools import islice

WINDOW = 30
"""Round-trip samples kept per connection (about a minute of pings): the round trip is their
minimum and the ping shown their median."""
JITTER_WINDOW = 10
"""The latest samples the jitter is read from (about 20 s of pings), so that a busy spell of the
server's stops widening the rooms' settling windows about 20 s after it ends instead of a
minute. Chosen by replaying every sample of five 500-room runs through nginx through estimators
that read the latest 8, 10, 15, 20 or 30 (docs/online.md, "Jitter read from the latest
samples")."""
PING_EVERY_MS = 2000
"""How often the server pings a connection, once the first burst is done."""
FIRST_PINGS = 5
"""Pings sent quickly on connect, so the link is measured before the first card."""
FIRST_PING_GAP_MS = 150
"""The gap between those first pings."""
MAX_OUTSTANDING = 16
"""Unanswered pings remembered; older ones are forgotten (their pongs are ignored)."""
NOTICEABLE_MS = 5
"""A shown figure (a seat's ping, the room's settling window) that moves by less than this and
by less than `NOTICEABLE_SHARE` of itself is not news: no ``room`` message goes out for it alone."""
NOTICEABLE_SHARE = 0.25
"""See `NOTICEABLE_MS`."""


def noticeably_changed(shown: Sequence[int | None], now: Sequence[int | None]) -> bool:
    """Whether figures shown to players in ms (``None``: not measured yet) have moved enough
    since they were ``shown`` to be worth telling: by at least `NOTICEABLE_MS` and at least
    `NOTICEABLE_SHARE` of the shown figure, or from or to "not measured".

    >>> noticeably_changed([40, 12], [43, 12])   # 3 ms on 40: nobody acts on that
    False
    >>> noticeably_changed([40, 12], [52, 12])
    True
    >>> noticeably_changed([2, 2], [6, 2]), noticeably_changed([2, 2], [7, 2])
    (False, True)
    >>> noticeably_changed([None, 12], [3, 12]), noticeably_changed([12], [12, 30])
    (True, True)
    """
    if len(shown) != len(now):
        return True
    for before, after in zip(shown, now, strict=True):
        if before is None or after is None:
            if before != after:
                return True
        elif abs(after - before) >= max(NOTICEABLE_MS, NOTICEABLE_SHARE * before):
            return True
    return False


class ChangeCount:
    """A count that moves whenever something it watches changes, so that what is worked out
    from those things can be kept until it moves (one count for the whole process: asking
    ``count`` is cheaper than looking at what changed).

    >>> changes = ChangeCount()
    >>> seen = changes.count
    >>> changes.bump()
    >>> changes.count != seen
    True
    """

    def __init__(self) -> None:
        self.count = 0

    def bump(self) -> None:
        """Something watched changed."""
        self.count += 1


SETTLING_INPUTS = ChangeCount()
"""Moves whenever a seat's kind or connection or a room's list of seats changes
(`ratscrew.server.room.lobby`), and when the round trip or jitter of a link that is in no room yet
does (`LinkEstimate.add`; a room's own links move the room's own count, `LinkEstimate.inputs`).
A room keeps its window until either moves (`Room.settle_ms`): the window was worked out from
every seated link on each of the several looks a step takes. (One count for every link made
each pong anywhere in the process throw away every room's window: 2.8% of a 500-room server's
busy samples went into working windows out again.)"""


class LinkEstimate:
    """A sliding window of round-trip samples and the estimates drawn from it.

    The estimates are read on every step of a room (the settling window) and after every pong
    (the ping shown) but change only when a pong adds a sample, so they are worked out once per
    sample, from a sort of the window (and one of its latest samples), and kept until the next one.

    >>> link = LinkEstimate()
    >>> for rtt in (40, 38, 90, 41):
    ...     link.add(rtt)
    >>> link.rtt_ms, link.jitter_ms, link.median_ms
    (38, 52, 40.5)
    """

    def __init__(self, window: int = WINDOW) -> None:
        self._samples: deque[float] = deque(maxlen=window)
        self._implied: deque[float] = deque(maxlen=window)
        self._implied_min: float | None = None
        self._rtt: float | None = None
        self._median: float | None = None
        self._jitter = 0.0
        self.window_ms: float | None = None
        """`ratscrew.server.room.judging.link_window_ms` of this link (worked out from its round trip
        and jitter), kept there until a sample moves either."""
        self.inputs = SETTLING_INPUTS
        """What a sample that moves the round trip or the jitter bumps: the count of the room
        the link's connection is in (`Room.connect`), or the process's until then."""

    def add(self, rtt_ms: float) -> None:
        """Add one round-trip sample (ms)."""
        before = (self._rtt, self._jitter)
        self._samples.append(max(0.0, rtt_ms))
        ordered = sorted(self._samples)
        self._rtt = ordered[0]
        middle = len(ordered) // 2
        self._median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        recent = ordered
        if len(ordered) > JITTER_WINDOW:
            recent = sorted(islice(self._samples, len(ordered) - JITTER_WINDOW, None))
        if len(recent) < 2:
            self._jitter = 0.0
        else:
            p90 = recent[min(len(recent) - 1, round(0.9 * (len(recent) - 1)))]
            self._jitter = p90 - ordered[0]
        if (self._rtt, self._jitter) != before:  # what the settling window is worked out from
            self.window_ms = None
            self.inputs.bump()

    def add_implied(self, rtt_ms: float) -> None:
        """Add the round trip one stamped action implies (ms): its arrival minus when the state
        it answered was sent minus the reaction it reports. The latest ``window`` are kept. A
        negative one is no evidence of the link (a claim later than its arrival, which gains
        nothing, or a state sent before the room's clock restarted for a new game) and is left
        out.

        >>> link = LinkEstimate()
        >>> for pong in (260, 262, 270): link.add(pong)   # pongs answered 200 ms late
        >>> link.add_implied(75.0); link.add_implied(-3.0)
        >>> link.rtt_ms, link.evidence_rtt_ms
        (260, 75.0)
        """
        if rtt_ms < 0:
            return
        self._implied.append(rtt_ms)
        self._implied_min = min(self._implied)

    @property
    def evidence_rtt_ms(self) -> float | None:
        """The most round trip the link's own evidence supports: the lower of the pongs' minimum
        (`rtt_ms`) and the least round trip the connection's recent stamped actions imply
        (`add_implied`); ``None`` before the first pong (judged as no round trip). An honest
        client's actions imply at least its round trip, so this is its `rtt_ms`; a client that
        answers pings late but claims quick reactions shows a smaller one here.

        >>> link = LinkEstimate()
        >>> link.add_implied(95.0); link.evidence_rtt_ms is None
        True
        >>> link.add(40.0); link.add_implied(95.0)
        >>> link.evidence_rtt_ms
        40.0
        """
        rtt, implied = self._rtt, self._implied_min
        if rtt is None or implied is None:
            return rtt
        return min(rtt, implied)

    @property
    def samples(self) -> int:
        """How many samples the window holds."""
        return len(self._samples)

    @property
    def rtt_ms(self) -> float | None:
        """The minimum-filtered round trip, or ``None`` before the first sample."""
        return self._rtt

    @property
    def jitter_ms(self) -> float:
        """The 90th percentile of the latest `JITTER_WINDOW` samples minus the round trip (0 with
        fewer than two samples)."""
        return self._jitter

    @property
    def median_ms(self) -> float | None:
        """The median round trip: the "ping" shown to players."""
        return self._median


class Pinger:
    """Issues ping ids, remembers when each was sent, and turns pongs into samples.

    >>> pinger = Pinger()
    >>> pinger.ping(now=1000.0)
    1
    >>> pinger.pong(1, now=1035.0), pinger.pong(1, now=1040.0), pinger.link.rtt_ms
    (35.0, None, 35.0)
    """

    def __init__(self) -> None:
        self.link = LinkEstimate()
        self._next_id = 1
        self._sent: dict[int, float] = {}
        self.pings_sent = 0

    def ping(self, now: float) -> int:
        """A new ping id, sent at ``now``."""
        ping_id = self._next_id
        self._next_id += 1
        self._sent[ping_id] = now
        self.pings_sent += 1
        if len(self._sent) > MAX_OUTSTANDING:
            del self._sent[min(self._sent)]
        return ping_id

    def sent(self, ping_id: int, now: float) -> None:
        """The ping actually left at ``now`` (it may wait in a send queue after :meth:`ping`)."""
        if ping_id in self._sent:
            self._sent[ping_id] = now

    def pong(self, ping_id: int, now: float) -> float | None:
        """Record the answer to ``ping_id``; returns the sample, or ``None`` for an id that was
        never sent, already answered or forgotten."""
        sent = self._sent.pop(ping_id, None)
        if sent is None:
            return None
        rtt = now - sent
        self.link.add(rtt)
        return rtt

    @property
    def measuring_the_link(self) -> bool:
        """Whether the first quick pings are still being sent (each goes at once; later ones
        may wait a moment for a state to go out with)."""
        return self.pings_sent < FIRST_PINGS

    def next_ping_in_ms(self) -> float:
        """How long to wait before the next ping: a quick burst first, then every 2 s."""
        return FIRST_PING_GAP_MS if self.measuring_the_link else PING_EVERY_MS
