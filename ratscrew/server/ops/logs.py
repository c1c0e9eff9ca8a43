"""The server's log lines (``ratscrew serve --log-format text|json``), on stderr.

- ``text`` (the default): ``2026-11-26T12:05:01.123+00:00 INFO shard=A ratscrew.server: room
  AB23CD created ...``: the local time with its offset, the level, the shard (``-`` without
  one) and the logger;
- ``json``: one object a line, for a log shipper: ``time`` (ISO 8601 with offset), ``level``,
  ``logger``, ``shard``, ``room`` (the room a line is about, when it is about one), ``message``
  and, for an error with a traceback, ``exception``.

Every record is one line in both formats: a message that spans lines (psycopg's connection
errors add a hint on a second line) is joined with `` | ``; only a traceback (text format) takes
more lines. A line names its room through ``extra={"room": code}`` or, as the rooms' own lines
do, by saying ``room CODE``.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import sys
from typing import TextIO

FORMATS = ("text", "json")
_ROOM = re.compile(r"\broom ([A-HJ-NP-Z2-9]{6})\b")


def _timestamp(created: float) -> str:
    return datetime.datetime.fromtimestamp(created).astimezone().isoformat(timespec="milliseconds")


def one_line(text: str) -> str:
    """``text`` on one line.

    >>> one_line("connection failed: refused\\n\\tIs the server running?\\n")
    'connection failed: refused | Is the server running?'
    """
    return " | ".join(part.strip() for part in text.strip().splitlines() if part.strip())


def room_of(record: logging.LogRecord, message: str) -> str | None:
    """The room a record is about: its ``room`` extra, else a ``room CODE`` in its message."""
    room = getattr(record, "room", None)
    if isinstance(room, str):
        return room
    found = _ROOM.search(message)
    return found.group(1) if found else None


class TextFormatter(logging.Formatter):
    """``TIME LEVEL shard=S LOGGER: MESSAGE`` (see the module docstring)."""

    def __init__(self, shard: str | None) -> None:
        super().__init__()
        self.shard = shard or "-"

    def format(self, record: logging.LogRecord) -> str:
        """One line (and a traceback under it, if any)."""
        line = (f"{_timestamp(record.created)} {record.levelname} shard={self.shard} {record.name}: "
                f"{one_line(record.getMessage())}")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object a line (see the module docstring)."""

    def __init__(self, shard: str | None) -> None:
        super().__init__()
        self.shard = shard

    def format(self, record: logging.LogRecord) -> str:
        """The record as JSON."""
        message = one_line(record.getMessage())
        entry: dict[str, object] = {"time": _timestamp(record.created), "level": record.levelname,
                                    "logger": record.name, "shard": self.shard,
                                    "room": room_of(record, message), "message": message}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def announce(text: str, log_format: str = "text", shard: str | None = None,
             stream: TextIO | None = None, logger: str = "ratscrew.serve") -> None:
    """A line for whoever started the server (its address, the database, the shards), on
    ``stream`` (stdout): as it is, or under ``--log-format json`` as one JSON object like every
    log line, so that a log shipper reading both streams sees JSON only.

    >>> import io
    >>> out = io.StringIO()
    >>> announce("ratscrew server running", "json", "A", out)
    >>> json.loads(out.getvalue())["message"], json.loads(out.getvalue())["shard"]
    ('ratscrew server running', 'A')
    """
    stream = stream or sys.stdout
    if log_format == "json":
        record = logging.LogRecord(logger, logging.INFO, __file__, 0, "%s", (text,), None)
        print(JsonFormatter(shard).format(record), file=stream, flush=True)
    else:
        print(text, file=stream, flush=True)


def configure_logging(level: str, log_format: str = "text", shard: str | None = None,
                      stream: TextIO | None = None) -> None:
    """Send every log record at ``level`` and above to ``stream`` (stderr) in ``log_format``,
    replacing whatever handlers were there."""
    if log_format not in FORMATS:
        raise ValueError(f"--log-format: {log_format!r}; use one of {', '.join(FORMATS)}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(shard) if log_format == "json" else TextFormatter(shard))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
