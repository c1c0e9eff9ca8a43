"""Observations as fixed numeric vectors: what `ratscrew.engine.Game.observe` shows one seat,
and nothing more, in a float32 array of values from 0 to 1.

Seats are written *relative to the observer*: position 0 is the observer, 1 the next seat
clockwise, and so on, so a policy learned in one seat plays in any other. The layout, field by
field (``n`` is the number of seats), is :data:`FIELD_DOCS`; `ObservationEncoder.fields` gives
each field's slice for a table.

>>> from ratscrew.ruleset import Ruleset
>>> encoder = ObservationEncoder(Ruleset.preset("classic"), players=4)
>>> encoder.size, [name for name, _ in encoder.fields][:3]
(120, ['top_cards', 'bottom_card', 'pile_counts'])
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ratscrew.cards import Rank, standard_deck
from ratscrew.observation import SEAT_STATUSES, Observation
from ratscrew.ruleset import Ruleset

RANK_SLOTS = 14
"""Ranks one-hot: 2 to ace (13 slots), then the joker."""
TOP_CARDS = 4
"""How many of the pile's top cards are shown rank by rank (enough for every pattern but
``top_bottom``, which also needs the bottom card, shown on its own)."""
STATUSES = SEAT_STATUSES
CLOCK_SCALE_MS = 5000.0
"""Times are in units of this many ms, cut at 1."""

FIELD_DOCS: tuple[tuple[str, str, str], ...] = (
    ("top_cards", "4 x 14", "rank one-hot of the pile's top four live cards, top card first "
     "(2..A, then joker); all zero where the pile is shorter"),
    ("bottom_card", "14", "rank one-hot of the pile's bottom live card (the top-bottom slap)"),
    ("pile_counts", "3", "live pile, burned cards under it, penalty pile: each / cards in play"),
    ("hand_sizes", "n", "cards in each seat's hand / cards in play, observer first"),
    ("statuses", "6n", "each seat's status one-hot (in, locked, out, barred, eliminated, "
     "watching), observer first"),
    ("turn", "n + 1", "whose turn it is, observer first; the last slot: nobody's (a pile waits "
     "to be collected, or the game is over)"),
    ("challenge", "4", "a challenge is on; the observer must answer it; the observer made it; "
     "chances left / the most any card gives"),
    ("collection", "4", "a won challenge's pile waits; the observer won it; anyone may claim "
     "it now; time until it is collected or the winner's claim window ends"),
    ("tie_window", "1", "a tie window for simultaneous slaps is open"),
    ("slap_pattern", "len(rules.slaps)", "one-hot of the pattern the face-up pile shows under "
     "these rules, in the ruleset's order; all zero: not slappable (only with pattern_hint)"),
    ("since_card", "1", "time since the top card appeared (or the pile was taken)"),
    ("in_flight", "2", "the observer's own play / slap is on its way (its reaction delay)"),
)
"""Every field of the vector, in order: name, size, meaning. Times are in units of
:data:`CLOCK_SCALE_MS` cut at 1."""

_RANK_INDEX: dict[str, int] = {str(card): (RANK_SLOTS - 1 if card.rank == Rank.JOKER
                                           else int(card.rank) - 2)
                               for card in standard_deck(jokers=True)}


class ObservationEncoder:
    """Writes one seat's view into a preallocated vector; see the module docstring."""

    def __init__(self, rules: Ruleset, players: int, pattern_hint: bool = True) -> None:
        self.players = players
        self.pattern_hint = pattern_hint
        self.patterns = {name: index for index, name in enumerate(rules.slaps)} if pattern_hint else {}
        self.max_chances = max(1, max(rules.chances(rank) for rank in Rank))
        sizes = {
            "top_cards": TOP_CARDS * RANK_SLOTS, "bottom_card": RANK_SLOTS, "pile_counts": 3,
            "hand_sizes": players, "statuses": len(STATUSES) * players, "turn": players + 1,
            "challenge": 4, "collection": 4, "tie_window": 1, "slap_pattern": len(self.patterns),
            "since_card": 1, "in_flight": 2,
        }
        self.fields: list[tuple[str, slice]] = []
        start = 0
        for name, _, _ in FIELD_DOCS:
            self.fields.append((name, slice(start, start + sizes[name])))
            start += sizes[name]
        self.size = start
        offsets = {name: part.start for name, part in self.fields}
        self._top = offsets["top_cards"]
        self._bottom = offsets["bottom_card"]
        self._counts = offsets["pile_counts"]
        self._hands = offsets["hand_sizes"]
        self._status = offsets["statuses"]
        self._turn = offsets["turn"]
        self._challenge = offsets["challenge"]
        self._collection = offsets["collection"]
        self._tie = offsets["tie_window"]
        self._pattern = offsets["slap_pattern"]
        self._since = offsets["since_card"]
        self._flight = offsets["in_flight"]
        self._status_index = {status: index for index, status in enumerate(STATUSES)}

    def encode(self, view: Observation, seat: int, now: int, card_at: int, pattern: str | None,
               in_flight: list[str], total_cards: int,
               out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        """Write ``seat``'s ``view`` (a `Game.observe` dict) at table time ``now`` into ``out``
        (a new vector if ``None``) and return it. ``card_at`` is when the top card appeared,
        ``pattern`` the slap the pile shows, ``in_flight`` the seat's actions on their way."""
        vec = np.zeros(self.size, dtype=np.float32) if out is None else out
        if out is not None:
            vec.fill(0.0)
        n = self.players
        pile = view["pile"]
        ranks = _RANK_INDEX
        for depth in range(min(TOP_CARDS, len(pile))):
            vec[self._top + depth * RANK_SLOTS + ranks[pile[-1 - depth]]] = 1.0
        if pile:
            vec[self._bottom + ranks[pile[0]]] = 1.0
        total = float(total_cards)
        vec[self._counts] = len(pile) / total
        vec[self._counts + 1] = len(view["burned"]) / total
        vec[self._counts + 2] = view["penalty_pile"] / total
        hands = view["hand_sizes"]
        statuses = view["status"]
        status_index = self._status_index
        for other in range(n):
            rel = (other - seat) % n
            vec[self._hands + rel] = hands[other] / total
            vec[self._status + rel * len(STATUSES) + status_index[statuses[other]]] = 1.0
        turn = view["turn"]
        vec[self._turn + (n if turn is None else (turn - seat) % n)] = 1.0
        challenge = view["challenge"]
        if challenge is not None:
            vec[self._challenge] = 1.0
            vec[self._challenge + 1] = challenge["target"] == seat
            vec[self._challenge + 2] = challenge["challenger"] == seat
            vec[self._challenge + 3] = min(1.0, challenge["chances_left"] / self.max_chances)
        collection = view["collection"]
        if collection is not None:
            vec[self._collection] = 1.0
            vec[self._collection + 1] = collection["winner"] == seat
            vec[self._collection + 2] = bool(collection["open_to_all"])
        vec[self._tie] = view["tie_window_until"] is not None
        if pattern is not None and pattern in self.patterns:
            vec[self._pattern + self.patterns[pattern]] = 1.0
        self.update_in_flight(vec, in_flight)
        self.update_clocks(vec, view, now, card_at)
        return vec

    def update_in_flight(self, vec: npt.NDArray[np.float32], in_flight: list[str]) -> None:
        """Write which of the seat's actions are on their way (``"play"``, ``"slap"``)."""
        flight = self._flight
        vec[flight] = vec[flight + 1] = 0.0
        for kind in in_flight:
            vec[flight + (kind == "slap")] = 1.0

    def update_clocks(self, vec: npt.NDArray[np.float32], view: Observation, now: int,
                      card_at: int) -> None:
        """Move the vector's clocks to ``now`` (all that changes in a tick without events)."""
        since = (now - card_at) / CLOCK_SCALE_MS
        vec[self._since] = since if since < 1.0 else 1.0  # min(1.0, since), without the call
        collection = view["collection"]
        if collection is not None:
            due = collection["collect_at"]
            if due is None and not collection["open_to_all"]:
                due = collection["exclusive_until"]
            vec[self._collection + 3] = 0.0 if due is None else min(
                1.0, max(0.0, (due - now) / CLOCK_SCALE_MS))

    def describe(self, vec: npt.NDArray[np.float32]) -> dict[str, list[float]]:
        """The vector cut into its named fields (for reading and debugging)."""
        return {name: [float(x) for x in vec[part]] for name, part in self.fields}
