"""The server's lab: jobs in a worker process behind a bounded queue and per-address limits, and
a lobby's expected game length from the same simulation code."""

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ratscrew.bots.profile import LEVELS
from ratscrew.ruleset import Ruleset
from ratscrew.server.app import create_app
from ratscrew.server.lab.jobs import LabService
from ratscrew.server.lab.lengths import StoredLengths, code_fingerprint, default_folder, folder_from
from ratscrew.sim.lab import LabRun, length_only
from ratscrew.storage.sqlite import SqliteStore

LONG_JOB = {"rules": "classic", "players": 4, "games": 5000}
"""A job that takes many seconds even on a quiet machine: it keeps the worker busy."""


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A server whose lab computes everything itself: no estimate kept on disk from elsewhere."""
    with TestClient(create_app(SqliteStore(":memory:"), lab_cache="off")) as test_client:
        yield test_client


def lab(client: TestClient) -> LabService:
    service: LabService = client.app.state.lab  # type: ignore[attr-defined]
    return service


def wait_for(client: TestClient, path: str, done: Any, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        answer: dict[str, Any] = client.get(path).json()
        if done(answer) or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


def test_a_lab_job_reports_progress_and_its_report(client: TestClient) -> None:
    started = client.post("/api/lab", json={"rules": "pagat", "players": 2, "games": 300})
    assert started.status_code == 202
    job = started.json()
    assert job["total"] == 2 * 300  # pagat's own games and its memory games; the preset is pagat
    answer = wait_for(client, job["url"], lambda a: a["state"] in ("done", "failed"))
    assert answer["state"] == "done" and answer["done"] == answer["total"]
    report = answer["report"]
    assert set(report) == {"win_share", "length", "slaps_per_game", "misslaps_per_game",
                           "memory_vs_speed", "compared_to"}
    assert report["compared_to"]["preset"] == "pagat"
    assert sum(row["share"] for row in report["win_share"]) == pytest.approx(1, abs=1e-3)


def test_one_address_runs_one_job_at_a_time(client: TestClient) -> None:
    assert client.post("/api/lab", json=LONG_JOB).status_code == 202
    second = client.post("/api/lab", json=LONG_JOB)
    assert second.status_code == 429
    assert "already have a simulation running" in second.json()["error"]


def test_an_hourly_cap_per_address(client: TestClient) -> None:
    service = lab(client)
    service.jobs_per_hour, service.max_open_per_address = 2, 10
    assert client.post("/api/lab", json=LONG_JOB).status_code == 202
    assert client.post("/api/lab", json=LONG_JOB).status_code == 202
    third = client.post("/api/lab", json=LONG_JOB)
    assert third.status_code == 429 and "an hour" in third.json()["error"]


def test_a_full_queue_is_busy_try_again(client: TestClient) -> None:
    service = lab(client)
    service.max_waiting, service.max_open_per_address = 1, 10
    first = client.post("/api/lab", json=LONG_JOB).json()
    second = client.post("/api/lab", json=LONG_JOB).json()
    busy = client.post("/api/lab", json=LONG_JOB)
    assert busy.status_code == 503 and "busy" in busy.json()["error"]
    assert busy.headers["retry-after"] == "30"
    assert client.get(second["url"]).json()["state"] == "queued"
    assert client.get(second["url"]).json()["position"] == 1
    assert client.get(first["url"]).json()["state"] in ("queued", "running")


@pytest.mark.parametrize("body, message", [
    ({"games": 10**6}, "games must be a whole number from 1 to 5000"),
    ({"rules": "tie_policy = 'fastest'"}, "tie_policy"),
    ({"bots": ["casual", "expert"], "players": 3}, "one bot for every seat"),
    ({"bots": ["robot"]}, "bots must be a list of bot levels"),
    ({"players": 9}, "players must be a whole number from 2 to"),
])
def test_bad_lab_requests_say_what_is_wrong(client: TestClient, body: dict[str, Any],
                                            message: str) -> None:
    answer = client.post("/api/lab", json=body)
    assert answer.status_code == 400 and message in answer.json()["error"]


def test_an_unknown_job_is_404(client: TestClient) -> None:
    assert client.get("/api/lab/jobs/nosuch").status_code == 404


def test_the_lobby_shows_the_expected_length_from_the_lab(client: TestClient) -> None:
    code = client.post("/api/rooms", json={"rules": "classic", "seats": 3,
                                           "bots": ["casual", "casual"]}).json()["code"]
    assert client.get(f"/api/rooms/{code}").json()["expected_length"] is None  # computing
    answer = wait_for(client, f"/api/rooms/{code}", lambda a: a["expected_length"] is not None)
    shown = answer["expected_length"]
    # a person is estimated as a casual bot: three casual bots, as the lab computes it
    length = length_only(LabRun(Ruleset.preset("classic"), (LEVELS["casual"],) * 3,
                                lab(client).length_games, 1, workers=1))
    assert shown == {"median_minutes": round(length["median_minutes"]["value"], 1),
                     "p90_minutes": round(length["p90_minutes"]["value"], 1)}
    assert 0 < shown["median_minutes"] < shown["p90_minutes"]


def test_a_worker_that_dies_fails_its_job_and_is_replaced(client: TestClient) -> None:
    service = lab(client)
    service.max_open_per_address = 10
    doomed = client.post("/api/lab", json=LONG_JOB).json()
    deadline = time.monotonic() + 60
    while not getattr(service._pool, "_processes", None) and time.monotonic() < deadline:
        time.sleep(0.1)
    for process in list(service._pool._processes.values()):  # type: ignore[union-attr]
        process.kill()  # as the kernel of the machine would kill a worker out of memory
    answer = wait_for(client, doomed["url"], lambda a: a["state"] in ("done", "failed"))
    assert answer["state"] == "failed" and "try again" in answer["error"]
    again = client.post("/api/lab", json={"rules": "classic", "players": 2, "games": 100})
    assert again.status_code == 202
    assert wait_for(client, again.json()["url"], lambda a: a["state"] in ("done", "failed"))[
        "state"] == "done"


def test_a_server_stopping_mid_estimate_logs_nothing_about_it(caplog: pytest.LogCaptureFixture) -> None:
    import asyncio
    import logging

    async def stop_while_estimating() -> None:
        service = LabService()
        seats = ("casual", "expert", None)
        assert service.expected_length(Ruleset.preset("classic"), seats) is None  # computing
        service.shutdown()  # the worker is ended mid-estimate, as when the server stops
        await asyncio.sleep(1.0)  # the ended estimate's callback runs in the loop
        assert service.expected_length(Ruleset.preset("pagat"), seats) is None  # none started

    with caplog.at_level(logging.INFO, logger="ratscrew.server.lab"):
        asyncio.run(stop_while_estimating())
    assert [record.getMessage() for record in caplog.records] == []


# ---------------------------------------------------------------- issue 47: a fair, bounded worker


def test_jobs_wait_queued_and_the_address_that_used_the_lab_least_goes_first() -> None:
    import asyncio

    async def queue_up() -> list[dict[str, Any]]:
        service = LabService(max_open_per_address=3)
        try:
            rules = Ruleset.preset("classic")
            first = service.submit("10.0.0.1", rules, ("casual",) * 4, 5000)  # the worker's
            again = [service.submit("10.0.0.1", rules, ("casual",) * 2, 10) for _ in range(2)]
            other = service.submit("10.0.0.2", rules, ("casual",) * 2, 10)
            return [service.status(job.id) or {} for job in (first, *again, other)]
        finally:
            service.shutdown()

    first, again, third, other = asyncio.run(queue_up())
    assert first["state"] == "running"
    assert (other["state"], other["position"]) == ("queued", 1)  # it has started one job, not two
    assert [(a["state"], a["position"]) for a in (again, third)] == [("queued", 2), ("queued", 3)]


def test_a_job_past_its_time_stops_and_says_to_ask_for_fewer_games(client: TestClient) -> None:
    lab(client).max_job_seconds = 0.01
    job = client.post("/api/lab", json=LONG_JOB).json()
    answer = wait_for(client, job["url"], lambda a: a["state"] in ("done", "failed"))
    assert answer["state"] == "failed"
    assert "stopped after 0.01 s" in answer["error"] and "fewer games" in answer["error"]
    assert answer["done"] < answer["total"]


def test_a_job_past_its_cards_stops_and_says_so(client: TestClient) -> None:
    lab(client).max_job_cards = 5_000  # a few games of classic among four bots
    job = client.post("/api/lab", json=LONG_JOB).json()
    answer = wait_for(client, job["url"], lambda a: a["state"] in ("done", "failed"))
    assert answer["state"] == "failed"
    assert "stopped after 5,000 cards" in answer["error"] and "fewer games" in answer["error"]
    assert 0 < answer["done"] < answer["total"]


def test_a_job_within_its_cards_is_done() -> None:
    from ratscrew.server.lab.jobs import JobBudget, JobTooLong

    budget = JobBudget("job", seconds=3600, max_cards=1000)
    budget.cards(600)
    budget.cards(400)  # exactly the budget: still within it
    with pytest.raises(JobTooLong, match="1,000 cards"):
        budget.cards(1)


def test_a_sixth_address_gets_a_place_in_the_queue_one_job_per_address() -> None:
    import asyncio

    from ratscrew.server.lab.jobs import LabBusy

    async def six_addresses() -> tuple[list[dict[str, Any]], LabBusy]:
        service = LabService()
        try:
            rules = Ruleset.preset("classic")
            jobs = [service.submit(f"10.0.1.{n}", rules, ("casual",) * 4, 5000) for n in range(6)]
            with pytest.raises(LabBusy) as again:  # an address has one job in the lab at most
                service.submit("10.0.1.3", rules, ("casual",) * 2, 10)
            return [service.status(job.id) or {} for job in jobs], again.value
        finally:
            service.shutdown()

    answers, refusal = asyncio.run(six_addresses())
    assert answers[0]["state"] == "running"
    # the sixth address was not refused because five others had queued (before: 503 busy)
    assert [(a["state"], a["position"]) for a in answers[1:]] == [
        ("queued", n) for n in range(1, 6)]
    assert refusal.status == 429 and "already have a simulation running" in str(refusal)


def test_estimates_wait_behind_lab_jobs_one_per_room_and_are_capped() -> None:
    import asyncio

    from ratscrew.server.lab.jobs import LabJob

    shown: list[tuple[int, bool]] = []  # (room, whether the lab job was done when it showed)
    jobs: list[LabJob] = []
    seats = ("casual", "casual")
    rules_of: dict[int, Ruleset] = {}

    def room(service: LabService, n: int) -> Any:
        """A room as the server's: when called it asks again, and shows the length if known."""
        def update() -> None:
            if service.expected_length(rules_of[n], seats, on_ready=update) is not None:
                shown.append((n, bool(jobs and jobs[0].future and jobs[0].future.done())))
        return update

    async def flood() -> tuple[int, int, str, str]:
        service = LabService(max_waiting_lengths=4)
        try:
            rooms = [room(service, n) for n in range(10)]
            base = Ruleset.preset("classic")
            for grace in range(30):  # one host configuring again and again
                rules_of[0] = Ruleset.from_dict({**base.to_dict(), "grace_ms": 1000 + grace})
                service.expected_length(rules_of[0], seats, on_ready=rooms[0])
            one_room = len(service._waiting_lengths)
            for n, other in enumerate(rooms[1:], start=1):
                rules_of[n] = Ruleset.from_dict({**base.to_dict(), "grace_ms": 5000 + n})
                service.expected_length(rules_of[n], seats, on_ready=other)
            all_rooms = len(service._waiting_lengths)
            jobs.append(service.submit("10.0.0.3", base, ("casual",) * 2, 20))
            queued = (service.status(jobs[0].id) or {})["state"]
            while (service.status(jobs[0].id) or {})["state"] in ("queued", "running"):
                await asyncio.sleep(0.2)  # the loop runs the worker's callbacks meanwhile
            while not any(n != 0 for n, _ in shown):  # an estimate that was waiting shows
                await asyncio.sleep(0.2)
            return one_room, all_rooms, queued, (service.status(jobs[0].id) or {})["state"]
        finally:
            service.shutdown()

    one_room, all_rooms, queued, state = asyncio.run(flood())
    assert one_room == 1  # the first went to the worker; of the rest only the newest waits
    assert all_rooms == 4  # the cap on waiting estimates
    assert queued == "queued"  # behind the estimate the worker had already taken
    assert state == "done"
    assert all(job_done for n, job_done in shown if n != 0)  # none ran before the job


def test_known_lengths_are_bounded_least_recently_shown_first() -> None:
    from concurrent.futures import Future

    service = LabService(max_known_lengths=2)
    for n in range(3):
        done: Future[dict[str, float]] = Future()
        done.set_result({"median_minutes": float(n), "p90_minutes": float(n + 1)})
        service._length_known((f"rules {n}", ("casual", "casual")), done)
    assert list(service.lengths) == [("rules 1", ("casual", "casual")),
                                     ("rules 2", ("casual", "casual"))]


def test_an_idle_worker_is_ended_and_the_next_job_starts_another() -> None:
    import asyncio

    async def two_jobs_apart() -> str:
        service = LabService(worker_idle_s=0.5, max_open_per_address=2)
        try:
            rules = Ruleset.preset("pagat")
            job = service.submit("10.0.0.4", rules, ("casual",) * 2, 20)
            while (service.status(job.id) or {})["state"] != "done":
                await asyncio.sleep(0.2)
            while service._pool is not None:  # ended once idle (numba's memory goes with it)
                await asyncio.sleep(0.2)
            again = service.submit("10.0.0.4", rules, ("casual",) * 2, 20)
            while (service.status(again.id) or {})["state"] in ("queued", "running"):
                await asyncio.sleep(0.2)
            return str((service.status(again.id) or {})["state"])
        finally:
            service.shutdown()

    assert asyncio.run(asyncio.wait_for(two_jobs_apart(), 120)) == "done"


def test_estimates_count_against_the_address_across_its_rooms() -> None:
    import asyncio

    shown: list[str] = []
    seats = ("casual", "casual")
    base = Ruleset.preset("classic")

    def room(service: LabService, name: str, grace: int, address: str) -> Any:
        """A room as the server's: when called it asks again, and shows the length if known."""
        rules = Ruleset.from_dict({**base.to_dict(), "grace_ms": grace})

        def update() -> Any:
            known = service.expected_length(rules, seats, on_ready=update, address=address)
            if known is not None:
                shown.append(name)
            return known
        return update

    async def one_host_many_rooms() -> tuple[list[Any], int, int]:
        service = LabService(length_games=20, max_lengths_per_address=2)
        try:
            host = [room(service, f"host {n}", 1000 + n, "10.0.0.5")()
                    for n in range(5)]  # five rooms, each configured by the same host
            waiting_from_host = len(service._waiting_lengths)
            other = room(service, "other", 9000, "10.0.0.6")()
            while len(shown) < 6:  # every room's, the refused ones asking again in turn
                await asyncio.sleep(0.2)
            return [*host, other], waiting_from_host, len(service._waiting_lengths)
        finally:
            service.shutdown()

    answers, waiting_from_host, left = asyncio.run(asyncio.wait_for(one_host_many_rooms(), 120))
    assert answers == [None] * 6  # all computing (none known yet)
    assert waiting_from_host == 2  # the first went to the worker; two more wait, two refused
    # the other address was not refused, and went before the host's second and third; the
    # host's fourth and fifth rooms, refused, asked again as places came free
    assert shown == ["host 0", "other", "host 1", "host 2", "host 3", "host 4"] and left == 0


def test_a_room_counts_its_estimates_against_the_address_that_configured_it() -> None:
    from online import FakeConnection, make_room

    from ratscrew.protocol.client_messages import Configure, SetSeat
    from ratscrew.protocol.codec import ProtocolError

    class Asked:
        def __init__(self) -> None:
            self.by: list[str | None] = []

        def expected_length(self, rules: object, bots: object, on_ready: object,
                            address: str | None = None) -> None:
            self.by.append(address)

    room, _ = make_room(seats=3)
    asked = Asked()
    room.expected_lengths = asked  # type: ignore[assignment]
    host = FakeConnection(room, address="10.0.0.7")
    host.join("Ann")
    host.do(Configure(pace="fast"))
    assert asked.by[-1] == "10.0.0.7"
    other = FakeConnection(room, address="10.0.0.8")
    room.estimates_for = "10.0.0.9"  # as the server sets it for the room's creator
    other.join("Bob")
    assert asked.by[-1] == "10.0.0.9"  # a joiner's updates count against the one who set it
    host.do(SetSeat(2, "expert"))
    assert asked.by[-1] == "10.0.0.7"
    room.estimates_for = "10.0.0.9"
    with pytest.raises(ProtocolError):
        host.do(Configure(seats=9))  # refused: it changes nothing, the address included
    assert room.estimates_for == "10.0.0.9"


def test_a_kept_estimate_shows_at_once_after_a_restart_and_starts_no_worker(tmp_path: Path) -> None:
    """Kept on disk (`ratscrew.server.lab.lengths`): the next server on the folder, a restart or
    another shard of the machine, shows the lobby's length at once and plays no game for it."""
    room = {"rules": "classic", "seats": 3, "bots": ["casual", "casual"]}
    with TestClient(create_app(SqliteStore(":memory:"), lab_cache=tmp_path)) as first:
        code = first.post("/api/rooms", json=room).json()["code"]
        assert first.get(f"/api/rooms/{code}").json()["expected_length"] is None  # computing
        computed = wait_for(first, f"/api/rooms/{code}",
                            lambda a: a["expected_length"] is not None)["expected_length"]
    assert computed is not None and [path.suffix for path in tmp_path.iterdir()] == [".json"]
    with TestClient(create_app(SqliteStore(":memory:"), lab_cache=tmp_path)) as restarted:
        code = restarted.post("/api/rooms", json=room).json()["code"]
        assert restarted.get(f"/api/rooms/{code}").json()["expected_length"] == computed
        assert lab(restarted)._pool is None  # no worker was started for it
    with TestClient(create_app(SqliteStore(":memory:"), lab_cache=tmp_path)) as other_rules:
        code = other_rules.post("/api/rooms", json={**room, "rules": "pagat"}).json()["code"]
        assert other_rules.get(f"/api/rooms/{code}").json()["expected_length"] is None  # its own
    with TestClient(create_app(SqliteStore(":memory:"), lab_cache="off")) as memory_only:
        assert lab(memory_only).stored_lengths is None


SEATS = ("casual", "casual")
LENGTH = {"median_minutes": 4.4, "p90_minutes": 11.6}


def test_a_changed_simulation_code_never_shows_an_old_estimate(tmp_path: Path) -> None:
    StoredLengths(tmp_path, fingerprint="before").put("rules", SEATS, 2000, LENGTH)
    assert StoredLengths(tmp_path, fingerprint="before").get("rules", SEATS, 2000) == LENGTH
    assert StoredLengths(tmp_path, fingerprint="after").get("rules", SEATS, 2000) is None
    assert StoredLengths(tmp_path).fingerprint == code_fingerprint() != "before"


@pytest.mark.parametrize("text", ["", "{\"median_minutes\": 4.4", "[1, 2]",
                                  "{\"median_minutes\": \"soon\", \"p90_minutes\": 1}",
                                  "{\"median_minutes\": 4.4}"])
def test_a_damaged_estimate_file_is_computed_again(tmp_path: Path, text: str) -> None:
    stored = StoredLengths(tmp_path)
    stored.path("rules", SEATS, 2000).write_text(text)
    assert stored.get("rules", SEATS, 2000) is None  # as if not kept: the worker computes it
    stored.put("rules", SEATS, 2000, LENGTH)
    assert stored.get("rules", SEATS, 2000) == LENGTH


def test_a_folder_that_cannot_be_written_is_warned_about_once(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    stored = StoredLengths(blocked / "lengths")
    for n in range(3):
        stored.put(f"rules {n}", SEATS, 2000, LENGTH)
    assert stored.get("rules 0", SEATS, 2000) is None
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "--lab-cache" in warnings[0] and "a file" in warnings[0]


def test_kept_estimates_are_bounded_oldest_written_first(tmp_path: Path) -> None:
    import os

    stored = StoredLengths(tmp_path, max_files=3)
    for n in range(5):
        stored.put(f"rules {n}", SEATS, 2000, {"median_minutes": float(n), "p90_minutes": 9.0})
        os.utime(stored.path(f"rules {n}", SEATS, 2000), (1_000_000 + n, 1_000_000 + n))
    stored.put("rules 5", SEATS, 2000, LENGTH)
    kept = [n for n in range(6) if stored.get(f"rules {n}", SEATS, 2000) is not None]
    assert kept == [3, 4, 5] and len(list(tmp_path.iterdir())) == 3


def test_the_server_command_keeps_estimates_where_it_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATSCREW_LAB_CACHE", "/srv/ratscrew/lengths")
    assert default_folder() == Path("/srv/ratscrew/lengths")
    assert folder_from("off") is None and folder_from("~/lengths") == Path.home() / "lengths"
    monkeypatch.delenv("RATSCREW_LAB_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/home/ann")
    assert default_folder() == Path("/home/ann/.cache/ratscrew/lengths")
