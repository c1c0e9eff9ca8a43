"""Player keys: the one home for what a key looks like and how one is made.

A player key is a secret the client makes once and sends with every ``join``
(`ratscrew.server.ladder.players`). Its form is 20 to 64 URL-safe characters. A key that would make a
*new* player must also look random (`looks_random`): at least `MIN_NEW_KEY_LENGTH` characters
(128 bits or more at 6 bits a character) with at least `MIN_DISTINCT_KEY_CHARACTERS` different
ones and `MIN_DISTINCT_KEY_STEPS` different steps from one character to the next (so not a run
of the alphabet), since anyone who guesses a key is that player. Keys already known to a server keep
working. This module imports nothing heavy, so that ``ratscrew join`` (`ratscrew.client`)
makes its keys here too.

>>> looks_random(new_key()), looks_random("a" * 40), looks_random("ab" * 20)
(True, False, False)
>>> looks_random("abcdefghijklmnopqrstuv")
False
"""

from __future__ import annotations

import itertools
import re
import secrets

KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{20,64}")
"""A player key's form: 20 to 64 URL-safe characters (``secrets.token_urlsafe(32)`` makes 43)."""
MIN_NEW_KEY_LENGTH = 22
"""A new player's key has at least this many characters: 22 of the 64 URL-safe symbols hold
132 bits, at least the 128 a secret needs."""
MIN_DISTINCT_KEY_CHARACTERS = 12
"""...and at least this many different characters. A key of 32 characters drawn at random (the
page's, ``js/identity.js``) has fewer with probability 1.4e-13, one of 43 (``ratscrew join``'s)
8e-22 (both are drawn again if so); ``aaaa…``, ``abab…`` or a word repeated has far fewer."""


MIN_DISTINCT_KEY_STEPS = 8
"""...and at least this many different steps between neighbouring characters (each step the
difference of their places in the URL-safe alphabet, modulo 64), so that a run such as
``abcdefghijklmnopqrstuv`` (one step, repeated) or ``0123456789abcdefghijkl`` (two) is refused.
Random keys have many more: in 100,000 draws the fewest were 12 of 21 steps for 22 characters,
17 of 31 for 32 (the page's) and 21 of 42 for 43 (``ratscrew join``'s)."""
URL_SAFE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
"""The 64 characters of a player key, in base64url order."""


def distinct_steps(key: str) -> int:
    """How many different steps lead from one character of ``key`` to the next.

    >>> distinct_steps("abcdefghijklmnopqrstuv"), distinct_steps("abcabd")
    (1, 3)
    """
    place = {char: index for index, char in enumerate(URL_SAFE_ALPHABET)}
    return len({(place.get(b, 0) - place.get(a, 0)) % 64 for a, b in itertools.pairwise(key)})


def valid_key(key: str) -> bool:
    """Whether ``key`` has the form of a player key.

    >>> valid_key("x" * 19), valid_key("Ab3_-" * 4), valid_key("a b" * 10)
    (False, True, False)
    """
    return KEY_PATTERN.fullmatch(key) is not None


def looks_random(key: str) -> bool:
    """Whether ``key`` may make a new player (see the module docstring)."""
    return (valid_key(key) and len(key) >= MIN_NEW_KEY_LENGTH
            and len(set(key)) >= MIN_DISTINCT_KEY_CHARACTERS
            and distinct_steps(key) >= MIN_DISTINCT_KEY_STEPS)


def new_key() -> str:
    """A fresh player key: 43 random URL-safe characters (drawn again in the rare case that
    they would not look random)."""
    while not looks_random(key := secrets.token_urlsafe(32)):
        pass
    return key
