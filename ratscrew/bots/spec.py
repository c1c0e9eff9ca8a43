"""Bot specifications on the command line: a level name, optionally with parameters changed.

``expert`` is the expert level; ``expert:mu_ms=250`` is an expert reacting 40 ms sooner;
``casual:memory=26,flinch=0`` a casual player who counts and never flinches.

>>> parse_bot_spec("expert:mu_ms=250").mu_ms
250.0
>>> parse_bot_spec("casual:memory=26,flinch=0").name
'casual:memory=26,flinch=0'
>>> is_agent_spec("agent:sure-hand"), is_agent_spec("casual")
(True, False)
>>> parse_bot_spec("grandmaster")
Traceback (most recent call last):
...
ValueError: unknown bot level 'grandmaster'; choose one of beginner, casual, skilled, expert, referee
"""

from __future__ import annotations

from dataclasses import fields

from ratscrew.bots.profile import BotProfile, level

AGENT_PREFIX = "agent:"
"""A seat spec that starts with this names a saved agent (``agent:sure-hand``, ``agent:tabular``,
``agent:path/to/file.npz``: see :mod:`ratscrew.rl.agents`), not a bot level."""


def is_agent_spec(spec: str) -> bool:
    """True for a seat spec that names a saved agent (``agent:NAME``) rather than a bot."""
    return spec.strip().startswith(AGENT_PREFIX)


TUNABLE: dict[str, type] = {f.name: (int if f.type in ("int", int) else float)
                            for f in fields(BotProfile) if f.name != "name"}
"""Every profile parameter a spec or a sweep may change, with its type."""


def coerce_parameter(name: str, text: str) -> int | float:
    """A parameter value from text, checked against the parameter's type and range."""
    if name not in TUNABLE:
        raise ValueError(f"unknown bot parameter {name!r}; choose one of {', '.join(TUNABLE)}")
    kind = TUNABLE[name]
    try:
        value: int | float = int(text) if kind is int else float(text)
    except ValueError:
        raise ValueError(f"bot parameter {name} needs {'a whole number' if kind is int else 'a number'}, "
                         f"got {text!r}") from None
    if value < 0:
        raise ValueError(f"bot parameter {name} cannot be negative, got {text}")
    if name in ("miss", "flinch", "spam") and value > 1:
        raise ValueError(f"bot parameter {name} is a probability (0-1), got {text}")
    return value


def parse_bot_spec(spec: str) -> BotProfile:
    """The profile a spec names (see the module docstring). An ``agent:NAME`` spec names a
    saved agent, not a profile: `ratscrew.rl.agents.seat_profile` reads both."""
    if is_agent_spec(spec):
        raise ValueError(f"{spec.strip()!r} is a saved agent, not a bot level: it takes a seat "
                         "where bots are seated (ratscrew play/sim --bots, an online room)")
    base, _, changes = spec.strip().partition(":")
    profile = level(base)
    if not changes:
        return profile
    values: dict[str, int | float] = {}
    for item in changes.split(","):
        key, equals, text = item.partition("=")
        if not equals:
            raise ValueError(f"bot spec {spec!r}: write changes as name=value, got {item!r}")
        values[key.strip()] = coerce_parameter(key.strip(), text.strip())
    return profile.with_changes(name=spec.strip(), **values)
