"""Key bindings for players sharing one keyboard: a play key and a slap key each.

Keys are named as Textual names them (``a``, ``space``, ``enter``, ``semicolon``, ``left``);
a single character is accepted too and turned into its name (``;`` -> ``semicolon``). A
mapping is checked as a whole before a game starts: a key used twice, or a key the game keeps
for itself (pause, help, settings, bot speed, quit), is a `KeyConfigError` naming the key.

The command-line syntax gives each player's keys, separated by ``;``::

    p1=play:a,slap:s;p2=play:l,slap:k

>>> keys = parse_key_spec("p2=slap:j", humans=2)
>>> [(k.play, k.slap) for k in keys]
[('a', 's'), ('l', 'j')]
>>> parse_key_spec("p1=play:a,slap:a", humans=1)
Traceback (most recent call last):
...
ratscrew.tui.keys.KeyConfigError: key 'a' is mapped twice: Player 1 play and Player 1 slap
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

from textual.keys import KEY_NAME_REPLACEMENTS, REPLACED_KEYS, Keys

MAX_HUMANS = 4
"""Most players sharing one keyboard."""
ACTIONS = ("play", "slap")
"""What a player's keys do: play the top card of their hand, or slap the pile."""


class KeyConfigError(ValueError):
    """A key mapping that cannot be used; the message names the key and what clashes."""


@dataclass(frozen=True)
class SeatKeys:
    """One human player's keys."""

    play: str
    slap: str

    def key_for(self, action: str) -> str:
        """The key bound to ``play`` or ``slap``."""
        return self.play if action == "play" else self.slap


DEFAULT_KEYS: tuple[SeatKeys, ...] = (
    SeatKeys(play="a", slap="s"),
    SeatKeys(play="l", slap="k"),
    SeatKeys(play="z", slap="x"),
    SeatKeys(play="m", slap="n"),
)
"""Player 1 plays with the left hand on ``a``/``s``, player 2 with the right on ``l``/``k``,
players 3 and 4 on the bottom row (``z``/``x`` and ``m``/``n``), far enough apart for four
pairs of hands."""

RESERVED_KEYS: dict[str, str] = {
    "escape": "pause",
    "f1": "help",
    "question_mark": "help",
    "f2": "settings",
    "plus": "faster bots",
    "minus": "slower bots",
    "ctrl+q": "quit",
    "ctrl+c": "quit",
}
"""Keys the game keeps for itself, and what they do."""

_ALIASES = {"return": "enter", "esc": "escape", "spacebar": "space", "del": "delete",
            "pgup": "pageup", "pgdn": "pagedown"}
_NAMED_KEYS = frozenset(
    key.value for key in Keys if not key.value.startswith("<") and "ctrl" not in key.value
) | {"enter", "space", "tab", "backspace"}


def _character_name(character: str) -> str:
    """Textual's name for the key that types ``character``."""
    if character in string.ascii_letters or character in string.digits:
        return character.lower()
    if character == " ":
        return "space"
    name = unicodedata.name(character).lower().replace(" ", "_").replace("-", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)


_CHARACTER_KEYS = frozenset(_character_name(c) for c in string.printable if c not in "\t\n\r\x0b\x0c")


def normalize_key(name: str) -> str:
    """The Textual key name for what a player typed: a single character or a key name.

    >>> normalize_key(";"), normalize_key("A"), normalize_key("Space"), normalize_key("return")
    ('semicolon', 'a', 'space', 'enter')
    >>> normalize_key("banana")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ratscrew.tui.keys.KeyConfigError: unknown key 'banana': give one character (a, 7, ;) or a key name ...
    """
    text = name if name == " " else name.strip()
    if len(text) == 1:
        if text not in string.printable or text in "\t\n\r\x0b\x0c":
            raise KeyConfigError(f"unknown key {name!r}")
        return _character_name(text)
    key = _ALIASES.get(text.lower(), text.lower())
    if key in _NAMED_KEYS or key in _CHARACTER_KEYS:
        return key
    raise KeyConfigError(
        f"unknown key {name!r}: give one character (a, 7, ;) or a key name "
        "(space, enter, tab, left, semicolon, f5)"
    )


def key_label(key: str) -> str:
    """How a key is shown to players: the character it types, or its name.

    >>> [key_label(k) for k in ("semicolon", "a", "plus", "minus", "space", "f5", "escape", "ctrl+q")]
    [';', 'a', '+', '-', 'space', 'F5', 'Esc', 'Ctrl+Q']
    """
    if len(key) == 1:
        return key
    if key == "escape":
        return "Esc"
    if key.startswith("ctrl+"):
        return "Ctrl+" + key_label(key.removeprefix("ctrl+")).upper()
    if key[0] == "f" and key[1:].isdigit():
        return key.upper()
    name = REPLACED_KEYS.get(key, key).upper()
    spellings = (name.replace("_", " "), name.replace("_", "-"), name.replace("_", "-", 1).replace("_", " "))
    for spelling in spellings:
        try:
            character = unicodedata.lookup(spelling)
        except KeyError:
            continue
        return character if character.isprintable() and not character.isspace() else key
    return key


def default_keys(humans: int) -> list[SeatKeys]:
    """The default keys for ``humans`` players (1 to :data:`MAX_HUMANS`)."""
    if not 1 <= humans <= MAX_HUMANS:
        raise KeyConfigError(f"between 1 and {MAX_HUMANS} players can share one keyboard, not {humans}")
    return list(DEFAULT_KEYS[:humans])


def check_keys(keys: Sequence[SeatKeys], names: Sequence[str] | None = None) -> None:
    """Raise `KeyConfigError` if a key is bound twice or is one the game keeps for itself."""
    names = names or [f"Player {seat + 1}" for seat in range(len(keys))]
    owner: dict[str, str] = {}
    for seat, seat_keys in enumerate(keys):
        for action in ACTIONS:
            key = seat_keys.key_for(action)
            who = f"{names[seat]} {action}"
            if key in RESERVED_KEYS:
                raise KeyConfigError(
                    f"key {key_label(key)!r} for {who} is kept for {RESERVED_KEYS[key]}; "
                    "choose another key")
            if key in owner:
                raise KeyConfigError(f"key {key_label(key)!r} is mapped twice: {owner[key]} and {who}")
            owner[key] = who


def parse_key_spec(spec: str | None, humans: int) -> list[SeatKeys]:
    """The keys of ``humans`` players: the defaults, changed as ``spec`` says, then checked.

    ``spec`` is ``p1=play:KEY,slap:KEY;p2=...``; a player or an action left out keeps its
    default key; ``p`` before the number is optional.

    >>> [(k.play, k.slap) for k in parse_key_spec("1=play:space", humans=1)]
    [('space', 's')]
    """
    keys = default_keys(humans)
    for part in (spec or "").split(";"):
        if not part.strip():
            continue
        seat_text, sep, bindings = part.partition("=")
        seat_name = seat_text.strip().lower().removeprefix("p")
        if not sep or not seat_name.isdigit():
            raise KeyConfigError(
                f"cannot read {part.strip()!r}: write each player as p1=play:KEY,slap:KEY, "
                "players separated by ';'")
        seat = int(seat_name) - 1
        if not 0 <= seat < humans:
            raise KeyConfigError(
                f"keys given for player {seat + 1}, but {humans} player(s) share the keyboard")
        for binding in bindings.split(","):
            action, sep, key = binding.partition(":")
            action = action.strip().lower()
            if not sep or action not in ACTIONS:
                raise KeyConfigError(
                    f"cannot read {binding.strip()!r} for player {seat + 1}: write play:KEY or slap:KEY")
            keys[seat] = replace(keys[seat], **{action: normalize_key(key)})
    check_keys(keys)
    return keys


def format_key_spec(keys: Sequence[SeatKeys]) -> str:
    """The ``--keys`` text that gives these keys back.

    >>> format_key_spec(default_keys(2))
    'p1=play:a,slap:s;p2=play:l,slap:k'
    """
    return ";".join(f"p{seat + 1}=play:{k.play},slap:{k.slap}" for seat, k in enumerate(keys))
