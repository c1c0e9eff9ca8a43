"""A stand-in for ``orjson`` where it cannot be installed (Pyodide's core, in the offline table's
worker): the two functions and the one option the protocol's codec uses, on the standard
library's ``json``, writing the same compact text.

>>> dumps({"type": "state", "lines": ["Ann plays 7♥"]}, option=OPT_NON_STR_KEYS).decode()
'{"type":"state","lines":["Ann plays 7♥"]}'
>>> loads('{"type": "slap"}')
{'type': 'slap'}
"""

from __future__ import annotations

import json
import math
from typing import Any

OPT_NON_STR_KEYS = 1 << 10
"""Accepted and ignored: ``json`` writes int keys as strings already, as orjson does with it."""


def dumps(value: Any, option: int = 0) -> bytes:
    """``value`` as compact JSON bytes, non-ASCII characters as they are."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def loads(text: str | bytes) -> Any:
    """Strict JSON (no NaN or Infinity), as orjson reads it."""
    value = json.loads(text, parse_constant=_no_constant)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite")
    return value


def install() -> None:
    """Use this module as ``orjson`` from now on, if orjson itself cannot be imported."""
    import sys

    try:
        import orjson  # noqa: F401
    except ImportError:
        sys.modules["orjson"] = sys.modules[__name__]
