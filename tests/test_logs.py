"""``ratscrew serve``'s log lines, from a real server process: ``--log-format json`` is one object
a line with time, level, shard and room; text lines carry the time zone and the shard; a
shutdown is one line."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

from serving import ServerProcess

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
