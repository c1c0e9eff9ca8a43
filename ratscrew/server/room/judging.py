"""Judging actions that come over the network: at what table time each one happened.

The room judges every action as if everyone sat at one table and saw each state at the same
moment (see ``docs/fairness.md``). Two modes:

- ``fair`` (the default). A client reports how long after it *showed* a state the player acted
  (``reaction_ms``) and which state that was (``version``). The action's table time is the room
  time at which the server sent that state to this client plus the reaction, so neither the
  delay in seeing the state nor the delay in sending the action counts against the player. The
  server bounds this by what it measured itself: the table time is never earlier than the
  arrival minus the connection's round trip and a jitter allowance (a client can claim no more
  credit than its link explains), never later than the arrival, and never earlier than what the
  room has already handed to the engine (the settling window's cap). The round trip is the one
  the link's own evidence supports (`judge_on_link`): the lower of its pongs' minimum and the
  least round trip its recent stamped actions imply, so answering pings late buys a client
  nothing its own actions contradict (the lag cheat).
- ``first-packet``: the table time is the arrival, as every other online ERS game judges.

Actions are then held for the settling window (`settle_window_ms`) and handed to the engine in
table-time order, so a slap that came first in table time is judged first even if its packet
came second.

>>> verdict = judge_action("fair", arrived_at=1330.0, shown_at=1000.0, reaction_ms=120.0,
...                        rtt_ms=2.0, allowance_ms=5.0, horizon=1000.0)
>>> verdict.judged_at, verdict.clamped      # a lying client on a 2 ms link gains nothing
(1323.0, 'link')
>>> judge_action("fair", arrived_at=1330.0, shown_at=1000.0, reaction_ms=212.0,
...              rtt_ms=150.0, allowance_ms=10.0, horizon=1050.0).judged_at
1212.0
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS
from ratscrew.protocol.client_messages import Judging
from ratscrew.server.ws.link import LinkEstimate

SETTLE_CAP_MS = 300.0
"""The longest the room holds actions before judging them: enough for a 250 ms round trip
plus a 50 ms jitter allowance. A link slower than that is compensated only up to the cap."""
ALLOWANCE_FLOOR_MS = 5.0
"""The smallest jitter allowance: scheduling noise on a perfect link."""
ALLOWANCE_CAP_MS = 50.0
"""The largest jitter allowance, whatever the link's jitter: the most a client lying about its
reaction can gain beyond what its measured round trip explains."""
UNMEASURED_SETTLE_MS = 150.0
"""The settling window while a connected player's link has not been measured yet."""


@dataclass(frozen=True)
class Verdict:
    """When an action is judged to have happened, and why.

    ``link_ms`` is how much earlier than its arrival it was judged (the compensation applied);
    ``reaction_ms`` is the judged time minus when the state it answered was shown (``None``
    when the client sent no stamp); ``clamped`` names the bound that applied, if any:
    ``link`` (claimed more credit than the link explains), ``arrival`` (claimed a time after
    it arrived), ``settle`` (older than the settling window allows), ``unstamped`` (no
    reaction stamp: judged at the arrival minus half the round trip).
    """

    judged_at: float
    link_ms: float
    reaction_ms: float | None
    clamped: str | None

    @property
    def anticipation(self) -> bool:
        """A reaction below the human floor: the player acted before they could have seen the
        state (judged at the time claimed like any other action, but not a reaction time)."""
        return self.reaction_ms is not None and self.reaction_ms < ANTICIPATION_FLOOR_MS


def allowance_ms(link: LinkEstimate) -> float:
    """The jitter allowance for one link: its measured jitter, between the floor and the cap.

    >>> link = LinkEstimate()
    >>> allowance_ms(link)
    5.0
    >>> for rtt in (40, 80, 41, 42, 43): link.add(rtt)
    >>> allowance_ms(link)
    40.0
    """
    return float(min(ALLOWANCE_CAP_MS, max(ALLOWANCE_FLOOR_MS, link.jitter_ms)))


def link_window_ms(link: LinkEstimate) -> float:
    """How long after its table time an honest action from this link may arrive: the round
    trip plus the jitter allowance (capped by `SETTLE_CAP_MS`); kept on the link until its
    next sample."""
    window = link.window_ms
    if window is None:
        rtt = link.rtt_ms
        window = UNMEASURED_SETTLE_MS if rtt is None else min(SETTLE_CAP_MS, rtt + allowance_ms(link))
        link.window_ms = window
    return window


def settle_window_ms(judging: Judging, links: Iterable[LinkEstimate]) -> float:
    """How long the room holds actions before handing them to the engine: long enough for the
    slowest connected player's honest actions to arrive, capped at `SETTLE_CAP_MS`; 0 under
    first-packet judging or with nobody connected.

    >>> fast, slow = LinkEstimate(), LinkEstimate()
    >>> fast.add(2); slow.add(180)
    >>> settle_window_ms("fair", [fast, slow]), settle_window_ms("first-packet", [fast, slow])
    (185.0, 0.0)
    """
    if judging == "first-packet":
        return 0.0
    return max((link_window_ms(link) for link in links), default=0.0)


def judge_action(judging: Judging, *, arrived_at: float, shown_at: float | None,
                 reaction_ms: float | None, rtt_ms: float | None, allowance_ms: float,
                 horizon: float) -> Verdict:
    """The table time of one human action (see the module docstring).

    ``arrived_at``: room time the message arrived; ``shown_at``: room time the server sent the
    state the client says it answered (``None`` if unknown); ``reaction_ms``: the client's
    reported reaction; ``rtt_ms``/``allowance_ms``: the link's measured round trip and jitter
    allowance; ``horizon``: the latest table time already handed to the engine.
    """
    if judging == "first-packet":
        judged = max(arrived_at, horizon)
        reaction = None if shown_at is None else judged - shown_at
        return Verdict(judged, 0.0, reaction, "settle" if judged > arrived_at else None)
    rtt = rtt_ms if rtt_ms is not None else 0.0
    clamped: str | None = None
    if shown_at is None or reaction_ms is None:
        claimed = arrived_at - rtt / 2
        clamped = "unstamped"
    else:
        claimed = shown_at + reaction_ms
    judged = claimed
    earliest = arrived_at - rtt - allowance_ms
    if judged < earliest:
        judged, clamped = earliest, "link"
    if judged > arrived_at:
        judged, clamped = arrived_at, "arrival"
    if judged < horizon:
        judged, clamped = horizon, "settle"
    reaction = None if shown_at is None or reaction_ms is None else judged - shown_at
    return Verdict(judged, arrived_at - judged, reaction, clamped)


def judge_on_link(judging: Judging, link: LinkEstimate, *, arrived_at: float,
                  shown_at: float | None, reaction_ms: float | None, horizon: float) -> Verdict:
    """`judge_action` for an action that came over ``link``, bounded by the round trip the
    link's own evidence supports (`LinkEstimate.evidence_rtt_ms`: the lower of its pongs'
    minimum and what its earlier stamped actions imply); then the round trip this action
    implies is added to that evidence for the actions after it. When the actions contradict
    the pongs (they imply a round trip shorter than the pongs' by more than the pongs' jitter
    allowance), the pongs were held back and their jitter is no evidence either: the allowance
    is then the floor, `ALLOWANCE_FLOOR_MS`.

    The lag cheat: a client 30 ms away each way answers pings 200 ms late (its pongs say 260 ms)
    and claims 300 ms for a slap it made 450 ms after the double. Its earlier play, stamped
    as it happened, implied the link's real 60 ms, so the slap is judged as its link explains:

    >>> link = LinkEstimate()
    >>> for pong in (260, 262, 265, 261, 270): link.add(pong)
    >>> play = judge_on_link("fair", link, arrived_at=1680.0, shown_at=1000.0,
    ...                      reaction_ms=620.0, horizon=0.0)   # a play, stamped honestly
    >>> slap = judge_on_link("fair", link, arrived_at=3510.0, shown_at=3000.0,
    ...                      reaction_ms=300.0, horizon=0.0)
    >>> slap.judged_at, slap.clamped      # 3450 - the allowance, not the 3300 claimed
    (3445.0, 'link')
    """
    allowance = allowance_ms(link)
    rtt, evidence = link.rtt_ms, link.evidence_rtt_ms
    if rtt is not None and evidence is not None and evidence < rtt - allowance:
        allowance = ALLOWANCE_FLOOR_MS  # the pongs were held back: so was their jitter
    verdict = judge_action(judging, arrived_at=arrived_at, shown_at=shown_at,
                           reaction_ms=reaction_ms, rtt_ms=evidence, allowance_ms=allowance,
                           horizon=horizon)
    if shown_at is not None and reaction_ms is not None:
        link.add_implied(arrived_at - shown_at - reaction_ms)
    return verdict
