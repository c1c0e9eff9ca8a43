"""``ratscrew serve``'s log lines, from a real server process: ``--log-format json`` is one object
a line with time, level, shard and room; text lines carry the time zone and the shard; a
shutdown is one line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from serving import ServerProcess

from ratscrew.server.ops.supervisor import PARENT_ENV

TIME_WITH_ZONE = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d"


def test_json_logs_are_one_object_a_line_with_shard_and_room(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "ratscrew.db", "--shard", "A", "--log-format", "json",
                           log=tmp_path / "server.log").start()
    try:
        code = server.new_room()
    finally:
        server.kill(signal.SIGTERM)
    lines = server.log.read_text().splitlines()
    entries = [json.loads(line) for line in lines]  # every line is an object
    assert entries and all(e["shard"] == "A" and re.fullmatch(TIME_WITH_ZONE, e["time"]) for e in entries)
    created = [e for e in entries if e["room"] == code]
    assert created and created[0]["level"] == "INFO" and "created" in created[0]["message"]
    shutdowns = [e for e in entries if e["message"].startswith("shut down")]
    assert len(shutdowns) == 1 and "1 rooms kept" in shutdowns[0]["message"]


def test_text_logs_carry_the_time_zone_and_the_shard(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "ratscrew.db", "--shard", "B", log=tmp_path / "server.log").start()
    try:
        code = server.new_room()
    finally:
        server.kill(signal.SIGTERM)
    lines = server.log.read_text().splitlines()
    assert lines and all(re.match(TIME_WITH_ZONE + r" [A-Z]+ shard=B \S+: ", line) for line in lines), lines
    assert any(f"room {code} created" in line for line in lines)
    assert sum("shut down" in line for line in lines) == 1


def test_a_supervised_shard_that_cannot_start_says_why_in_the_log_format() -> None:
    unreachable = "postgresql://ratscrew@127.0.0.1:1/ratscrew"
    command = [sys.executable, "-m", "ratscrew", "serve", "--shard", "A", "--port", "0",
               "--log-format", "json"]
    as_shard = subprocess.run(command, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "RATSCREW_DATABASE_URL": unreachable,
                                   PARENT_ENV: str(os.getpid())})
    assert as_shard.returncode == 2  # what the supervisor retries after its back-off
    entries = [json.loads(line) for line in as_shard.stderr.splitlines()]  # a log shipper's view
    assert [(e["level"], e["shard"]) for e in entries] == [("ERROR", "A")]
    assert entries[0]["message"].startswith("cannot start: cannot use the PostgreSQL database "
                                            "postgresql://ratscrew@127.0.0.1:1/ratscrew")
    typed = subprocess.run(command, capture_output=True, text=True, timeout=60,
                           env={**os.environ, "RATSCREW_DATABASE_URL": unreachable})
    assert typed.returncode == 2  # typed by a person: one plain line
    assert typed.stderr.startswith("ratscrew: error: cannot use the PostgreSQL database")
