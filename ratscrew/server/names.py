"""Player names, as the server has always imported them: a re-export of
:mod:`ratscrew.protocol.names` (the name rules' one home, below the server and both clients)."""

from __future__ import annotations

from ratscrew.protocol.names import (
    BLANK_LOOK_ALIKES,
    DEFAULT_IGNORABLE,
    MAX_MARKS_IN_A_ROW,
    MAX_NAME_LENGTH,
    REFUSED_CATEGORIES,
    NameRefused,
    bot_name,
    clean,
    is_bot_name,
    name_key,
    prototypes,
    same_name_as,
    skeleton,
)

__all__ = ["BLANK_LOOK_ALIKES", "DEFAULT_IGNORABLE", "MAX_MARKS_IN_A_ROW", "MAX_NAME_LENGTH",
           "REFUSED_CATEGORIES", "NameRefused", "bot_name", "clean", "is_bot_name", "name_key",
           "prototypes", "same_name_as", "skeleton"]
