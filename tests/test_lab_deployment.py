"""The lab behind nginx with two shards on PostgreSQL: a lab job runs in the worker of the shard
that took it, and every poll for it reaches that shard (its id starts with the shard's letter)."""

from __future__ import annotations

import time
from typing import Any

import test_deployment
from serving import ServerProcess
from test_deployment import Nginx

deployment = test_deployment.deployment

SMALL_JOB = {"rules": "classic", "players": 2, "games": 100}


def run_through(proxy: Nginx) -> dict[str, Any]:
    """Start a small lab job through nginx and poll it to the end, every poll through nginx."""
    started = proxy.post("/api/lab", SMALL_JOB)
    assert started.status_code == 202, started.text
    job = started.json()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = proxy.get(job["url"])
        assert answer.status_code == 200, answer.text  # never the other shard's 404
        status: dict[str, Any] = answer.json()
        if status["state"] in ("done", "failed"):
            return status
        time.sleep(0.2)
    raise AssertionError(f"the lab job {job['id']} did not finish")


def test_lab_jobs_on_both_shards_are_polled_on_their_own_shard(
        deployment: tuple[Nginx, dict[str, ServerProcess]]) -> None:
    proxy, _ = deployment
    seen: dict[str, dict[str, Any]] = {}
    for _ in range(8):  # nginx sends new jobs to either shard in turn
        status = run_through(proxy)
        seen[status["id"][0]] = status
        if set(seen) == {"A", "B"}:
            break
    assert set(seen) == {"A", "B"}, f"nginx sent every lab job to one shard: {set(seen)}"
    for status in seen.values():
        assert status["state"] == "done" and status["report"]["compared_to"]["preset"] == "classic"
