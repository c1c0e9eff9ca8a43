"""The `Ruleset`: every house rule as data, loadable from and savable to TOML, with named presets.

A ruleset is a frozen dataclass, so a variant is one ``dataclasses.replace`` away:

>>> import dataclasses
>>> classic = Ruleset.preset("classic")
>>> classic.slaps
('double', 'sandwich')
>>> custom = dataclasses.replace(classic, slaps=("double", "marriage"))
>>> Ruleset.from_toml(custom.to_toml()) == custom
True

Settings that mean "never" use 0 (``misslap_out_after = 0``), since TOML has no null.
"""

from __future__ import annotations

import functools
import tomllib
import typing
from dataclasses import dataclass, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from ratscrew.cards import Rank
from ratscrew.patterns import PATTERNS, PatternOptions


class RulesetError(ValueError):
    """A ruleset file or value is not valid; the message names the key and the allowed values."""


FirstPlayer = Literal["left_of_dealer", "highest_bottom_card"]
Collect = Literal["auto", "slap"]
ChallengeOutOfCards = Literal["challenger_wins", "next_player_pays"]
MisslapPenalty = Literal["none", "burn", "penalty_pile", "give_pile", "lockout"]
TiePolicy = Literal["earliest", "void", "random"]
OutOfCards = Literal["out", "slap_in"]
OutOfTurn = Literal["reject", "burn"]


@dataclass(frozen=True)
class Ruleset:
    """One complete set of house rules. Field comments say what each setting means."""

    name: str = "custom"
    """Short name, e.g. the preset name."""
    summary: str = ""
    """One line on where these rules come from."""

    # --- deck and deal -------------------------------------------------------------------
    jokers: bool = False
    """Play with the two jokers (54 cards)."""
    first_player: FirstPlayer = "left_of_dealer"
    """Who leads: the player left of the dealer (seat 0), or the highest bottom card (aces
    high; ties look at the next cards up from the bottom)."""
    max_players: int = 8
    """Most seats at the table, outsiders included."""

    # --- slaps ---------------------------------------------------------------------------
    slaps: tuple[str, ...] = ("double", "sandwich")
    """Slap patterns, in the order they are reported when several match."""
    run_length: int = 4
    """How many cards make a ``run``."""
    run_wraps: bool = False
    """A ``run`` may go around the corner (K-A-2)."""

    # --- face-card challenges ------------------------------------------------------------
    jack_chances: int = 1
    queen_chances: int = 2
    king_chances: int = 3
    ace_chances: int = 4
    joker_chances: int = 0
    """Chances a joker gives; 0 means a joker is not a face card."""
    collect: Collect = "auto"
    """How the winner of a challenge collects: ``auto`` after ``grace_ms``, or ``slap``: the
    winner slaps to claim, alone for ``claim_window_ms``, after which anyone may claim."""
    grace_ms: int = 1000
    """``auto``: after a challenge is lost, a valid slap can still take the pile this long."""
    claim_window_ms: int = 3000
    """``slap``: how long the winner of a challenge alone may claim the pile."""
    challenge_out_of_cards: ChallengeOutOfCards = "challenger_wins"
    """When the challenged player runs out of cards mid-challenge: the challenger wins the pile,
    or the next player with cards pays the chances that are left."""

    # --- misslaps ------------------------------------------------------------------------
    misslap_penalty: MisslapPenalty = "burn"
    """``burn``: put ``misslap_cards`` cards face up under the pile (dead for patterns);
    ``penalty_pile``: put them in a penalty pile that the next legitimate winner also takes;
    ``give_pile``: the pile goes to whoever played its top card (or the card before, if the
    slapper played the top card); ``lockout``: no slapping until someone else wins a pile."""
    misslap_cards: int = 1
    """Cards paid for a misslap (``burn`` and ``penalty_pile``)."""
    misslap_out_after: int = 0
    """Out of the game (hand burned) after more than this many misslaps in a row; 0: never."""
    slap_in_bar_after: int = 0
    """A player with no cards is barred from slapping in after this many misslaps in a row
    (reset when they slap in and run out again); 0: never."""
    failure_rule: bool = False
    """Losing a joker challenge burns one more card, unless the last card made a slap."""

    # --- simultaneous slaps --------------------------------------------------------------
    tie_window_ms: int = 30
    """Slaps this close together are a tie; a slap this soon after a won slap is just late."""
    too_slow_ms: int = 500
    """A slap less than this long after the pile was taken, with no card played since, is *too
    slow*, not wrong: the slower hand landed on the quicker one, and pays nothing."""
    tie_policy: TiePolicy = "earliest"
    """``earliest``: the first slap wins; ``void``: a tie is as if nobody slapped;
    ``random``: a seeded draw among the tied players."""

    # --- out of cards and the end --------------------------------------------------------
    out_of_cards: OutOfCards = "slap_in"
    """A player with no cards is ``out``, or may ``slap_in`` with a valid slap."""
    outsiders_slap_in: bool = True
    """Seats that start with no cards may slap in."""
    finishing_out: bool = True
    """When only one player has cards, they play the pile out; if it runs dry, nobody wins.
    When false, the last player holding cards wins as soon as the pile shows no slap."""
    last_holder_plays_turn: bool = False
    """Without finishing out: the last player holding cards takes what is left only after
    playing a card of their own, so a player who runs out on an ordinary card is beaten when
    play comes back to them and they cannot play (how the Beggar-my-neighbour records count);
    if that card was also their last, they still take the pile. False: at once."""
    triple_wins_game: bool = False
    """Slapping a ``triple`` wins the whole game."""
    triple_sixes_lose: bool = False
    """Slapping three sixes ends the game with nobody winning."""
    out_of_turn: OutOfTurn = "reject"
    """A card played out of turn is refused, or burned under the pile."""

    # --- obsolete Northwest rules (off by default) ---------------------------------------
    joker_slap_tribute: bool = False
    """Winning a slap on a joker sandwich makes every other player burn a card."""
    resign_bars_slap_in: bool = False
    """A player who resigned may not slap back in."""
    double_burn: bool = False
    """A card played out of turn burns one more card."""

    # ---------------------------------------------------------------------------------------

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def pattern_options(self) -> PatternOptions:
        """The settings the slap patterns need."""
        return PatternOptions(run_length=self.run_length, run_wraps=self.run_wraps)

    def chances(self, rank: Rank) -> int:
        """How many chances a card of this rank gives the next player; 0 for a number card.

        >>> Ruleset.preset("classic").chances(Rank.KING)
        3
        """
        return {
            Rank.JACK: self.jack_chances,
            Rank.QUEEN: self.queen_chances,
            Rank.KING: self.king_chances,
            Rank.ACE: self.ace_chances,
            Rank.JOKER: self.joker_chances,
        }.get(rank, 0)

    @property
    def title(self) -> str:
        """The ruleset's name as a heading: a name that already says "rules" is not said twice.

        >>> Ruleset.preset("classic").title
        'classic rules'
        >>> Ruleset(name="our kitchen rules").title
        'our kitchen rules'
        """
        if self.name.casefold().split()[-1:] in (["rules"], ["rule"]):
            return self.name
        return f"{self.name} rules"

    @property
    def deck_size(self) -> int:
        """52, or 54 with jokers."""
        return 54 if self.jokers else 52

    def with_longer_windows(self, factor: int) -> Ruleset:
        """These rules with every window a slower player acts in (`WINDOW_SETTINGS`: the grace
        after a lost challenge, the winner's claim window, the *too slow* allowance) ``factor``
        times as long, up to its bound: the house rule "longer windows" for a slower table
        (issue 51; docs/accessibility.md). The summary says so. The tie window is left alone:
        it decides who slapped first, not how long anyone has to act. The result is no
        preset's rules, so a game under it is unrated as custom rules are.

        >>> slow = Ruleset.preset("classic").with_longer_windows(3)
        >>> slow.grace_ms, slow.claim_window_ms, slow.too_slow_ms, slow.tie_window_ms
        (3000, 9000, 1500, 30)
        >>> slow.summary.endswith("Longer windows (×3): a house rule for a slower table.")
        True
        >>> Ruleset.preset("classic").with_longer_windows(1) == Ruleset.preset("classic")
        True
        """
        if type(factor) is not int or factor < 1:
            raise RulesetError(f"windows can be made longer by a whole factor of 1 or more, not {factor!r}")
        if factor == 1:
            return self
        longer = {name: min(getattr(self, name) * factor, SETTING_BOUNDS[name][1])
                  for name in WINDOW_SETTINGS}
        note = f"Longer windows (×{factor}): a house rule for a slower table."
        return replace(self, summary=f"{self.summary} {note}".strip(), **longer)

    # --- TOML ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every setting as plain JSON/TOML-able values (tuples become lists)."""
        return {
            f.name: list(value) if isinstance(value := getattr(self, f.name), tuple) else value
            for f in fields(self)
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Build a ruleset from settings; missing keys take the defaults.

        >>> try:
        ...     Ruleset.from_dict({"tie_policy": "fastest"})
        ... except RulesetError as error:
        ...     print(error)
        tie_policy: 'fastest' is not allowed; choose one of earliest, void, random
        """
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known), key=str)  # keys of any type, from anywhere
        if unknown:
            raise RulesetError(
                f"unknown setting {unknown[0]!r}; known settings are: {', '.join(known)}"
            )
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for key, value in data.items():
            values[key] = _coerce(key, value, hints[key])
        return cls(**values)

    def to_toml(self) -> str:
        """The ruleset as TOML text that :meth:`from_toml` reads back to an equal ruleset."""
        lines = []
        for key, value in self.to_dict().items():
            lines.append(f"{key} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, text: str) -> Ruleset:
        """Read a ruleset from TOML text (flat ``key = value`` settings).

        Arrays and inline tables nested deeper than :data:`MAX_TOML_NESTING` are refused before
        the TOML parser sees them (the parser recurses once per level):

        >>> Ruleset.from_toml("a = " + "[" * 50 + "]" * 50)
        Traceback (most recent call last):
        ...
        ratscrew.ruleset.RulesetError: not valid rules: arrays or tables nested more than 8 deep
        """
        if toml_nesting_depth(text) > MAX_TOML_NESTING:
            raise RulesetError(
                f"not valid rules: arrays or tables nested more than {MAX_TOML_NESTING} deep"
            )
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise RulesetError(f"not valid TOML: {error}") from None
        except ValueError:  # an integer of more than 4,300 digits
            raise RulesetError("not valid TOML: a number is far too long") from None
        except RecursionError:  # a nesting the scan above did not see; never a traceback
            raise RulesetError("not valid rules: nested too deep") from None
        return cls.from_dict(data)

    @classmethod
    def from_file(cls, path: str | Path) -> Ruleset:
        """Read a ruleset from a TOML file; a missing or unreadable file is a `RulesetError`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise RulesetError(f"cannot read ruleset file {str(path)!r}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise RulesetError(f"ruleset file {str(path)!r} is not UTF-8 text") from None
        try:
            return cls.from_toml(text)
        except RulesetError as error:
            raise RulesetError(f"{path}: {error}") from None

    # --- presets ---------------------------------------------------------------------------

    @classmethod
    def presets(cls) -> tuple[str, ...]:
        """The names of the shipped presets: one per file of ``ratscrew/presets/``, in the
        order of their numbers (:mod:`ratscrew.presets`).

        >>> Ruleset.presets()
        ('classic', 'northwest', 'pagat', 'ratscrew', 'paranoid', 'bmn')
        """
        return PRESET_NAMES

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        """The preset of that name (see :meth:`presets`)."""
        if name not in PRESET_NAMES:
            raise RulesetError(
                f"unknown preset {name!r}; choose one of {', '.join(PRESET_NAMES)}"
            )
        if cls is Ruleset:
            return _parsed_preset(name)
        return cls.from_toml(_preset_text(name))

    @classmethod
    def load(cls, name_or_path: str) -> Ruleset:
        """A preset by name, or else a TOML file by path: what ``--rules`` accepts."""
        if name_or_path in PRESET_NAMES:
            return cls.preset(name_or_path)
        if name_or_path.endswith(".toml") or Path(name_or_path).exists():
            return cls.from_file(name_or_path)
        raise RulesetError(
            f"unknown rules {name_or_path!r}: give a preset ({', '.join(PRESET_NAMES)}) "
            "or the path of a TOML ruleset file"
        )


PRESET_SUFFIX = ".toml"


def _preset_order(file_name: str) -> tuple[float, str]:
    """Where a preset file sorts: by its ``NN-`` number, then by name (see
    :mod:`ratscrew.presets`).

    >>> sorted(["60-bmn.toml", "mine.toml", "10-classic.toml"], key=_preset_order)
    ['10-classic.toml', '60-bmn.toml', 'mine.toml']
    """
    number, dash, _ = file_name.partition("-")
    return (int(number), file_name) if dash and number.isdigit() else (float("inf"), file_name)


def _preset_name(file_name: str) -> str:
    """The preset a file holds: its name without the ``NN-`` number and ``.toml``.

    >>> _preset_name("10-classic.toml"), _preset_name("mine.toml")
    ('classic', 'mine')
    """
    stem = file_name.removesuffix(PRESET_SUFFIX)
    number, dash, rest = stem.partition("-")
    return rest if dash and number.isdigit() else stem


def _find_presets() -> dict[str, str]:
    """Every preset file of the ``ratscrew/presets`` folder: name -> file name, in order. Read
    from the package folder (not the ``ratscrew.presets`` module), so a copy of the package that
    carries only the TOML files (the offline page's) finds them too."""
    folder = resources.files("ratscrew").joinpath("presets")
    files = sorted((entry.name for entry in folder.iterdir()
                    if entry.name.endswith(PRESET_SUFFIX) and entry.is_file()), key=_preset_order)
    return {_preset_name(file_name): file_name for file_name in files}


_PRESET_FILES = _find_presets()

PRESET_NAMES: tuple[str, ...] = tuple(_PRESET_FILES)
"""The shipped presets' names, in order: one per file of ``ratscrew/presets/``
(:mod:`ratscrew.presets`)."""


def _preset_text(name: str) -> str:
    return resources.files("ratscrew").joinpath("presets", _PRESET_FILES[name]).read_text("utf-8")


@functools.cache
def _parsed_preset(name: str) -> Ruleset:
    """A preset read and checked once per process (some milliseconds: the TOML and every
    setting's type): a ruleset is frozen, so every caller may share the one object."""
    return Ruleset.from_toml(_preset_text(name))

MAX_TOML_NESTING = 8
"""How deep arrays and inline tables may nest in ruleset TOML (every setting needs at most 1)."""


def toml_nesting_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in TOML value text, outside strings and comments.

    A linear scan with no recursion, so it is safe on any input; table headers (``[a]`` at the
    start of a line) count as one level, which no ruleset needs anyway.

    >>> toml_nesting_depth('slaps = ["double", "[[["]  # [[[')
    1
    >>> toml_nesting_depth("a = [[[]]]")
    3
    """
    depth = deepest = 0
    quote = ""
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if quote:
            if quote[0] == '"' and char == "\\":
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = ""
                continue
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, index) else char
            index += len(quote)
            continue
        elif char == "#":
            newline = text.find("\n", index)
            index = length if newline < 0 else newline
            continue
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
        index += 1
    return deepest


WINDOW_SETTINGS: tuple[str, ...] = ("grace_ms", "claim_window_ms", "too_slow_ms")
"""The timed windows a player acts within, which `Ruleset.with_longer_windows` lengthens."""

SETTING_BOUNDS: dict[str, tuple[int, int]] = {
    "max_players": (2, 54),
    "run_length": (2, 13),
    "jack_chances": (0, 54),
    "queen_chances": (0, 54),
    "king_chances": (0, 54),
    "ace_chances": (0, 54),
    "joker_chances": (0, 54),
    "grace_ms": (0, 3_600_000),
    "claim_window_ms": (0, 3_600_000),
    "misslap_cards": (0, 54),
    "misslap_out_after": (0, 1000),
    "slap_in_bar_after": (0, 1000),
    "tie_window_ms": (0, 3_600_000),
    "too_slow_ms": (0, 3_600_000),
}
"""The lowest and highest value of every whole-number setting (docs/rules.md, "Every
setting"). A seat, a chance or a card paid per card of the deck at most, a run no longer than a
suit, times up to an hour: beyond these a setting means nothing more (a table held up for an
hour has stalled), and a room's clock and database need bounded numbers. The bounds are wide so
that a record stored before they existed, with any setting a game could be played with, still
replays."""


def _coerce(key: str, value: Any, hint: Any) -> Any:
    """Check one setting's value against its declared type; tuples may arrive as lists."""
    choices = get_args(hint) if typing.get_origin(hint) is Literal else ()
    if choices:
        if value not in choices:
            raise RulesetError(
                f"{key}: {value!r} is not allowed; choose one of {', '.join(choices)}"
            )
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise RulesetError(f"{key}: expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesetError(f"{key}: expected a whole number, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise RulesetError(f"{key}: expected text, got {value!r}")
        return value
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise RulesetError(f"{key}: expected a list of names, got {value!r}")
    return tuple(value)


def _validate(rules: Ruleset) -> None:
    """Reject impossible combinations with a message that names the setting."""
    for name in rules.slaps:
        if name not in PATTERNS:
            raise RulesetError(
                f"slaps: unknown pattern {name!r}; choose from {', '.join(PATTERNS)}"
            )
    if len(set(rules.slaps)) != len(rules.slaps):
        raise RulesetError("slaps: a pattern is named twice")
    hints = typing.get_type_hints(type(rules))
    for f in fields(rules):
        value = getattr(rules, f.name)
        if hints[f.name] is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise RulesetError(f"{f.name}: expected a whole number, got {value!r}")
        if hints[f.name] is int:
            low, high = SETTING_BOUNDS[f.name]
            if value < 0:
                raise RulesetError(f"{f.name}: must not be negative, got {_short(value)}")
            if not low <= value <= high:
                raise RulesetError(f"{f.name}: must be from {low} to {high}, got {_short(value)}")
        choices = get_args(hints[f.name]) if typing.get_origin(hints[f.name]) is Literal else ()
        if choices and value not in choices:
            raise RulesetError(
                f"{f.name}: {value!r} is not allowed; choose one of {', '.join(choices)}"
            )
    if rules.joker_chances and not rules.jokers:
        raise RulesetError(
            f"joker_chances: the rules play without jokers (jokers = false), so a joker cannot "
            f"give {rules.joker_chances} chances; set jokers = true or joker_chances = 0"
        )
    if rules.misslap_penalty in ("burn", "penalty_pile") and rules.misslap_cards < 1:
        raise RulesetError(
            f"misslap_cards: a {rules.misslap_penalty} penalty needs at least 1 card"
        )


def _short(value: int) -> str:
    """A number for an error message: a huge one is cut short rather than printed in full
    (and Python refuses to print more than 4,300 digits)."""
    if abs(value) < 10**30:
        return str(value)
    digits = f"{len(str(abs(value))):,}" if value.bit_length() < 14_000 else "over 4,000"
    return f"a number of {digits} digits"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


