"""``ratscrew serve --workers 2`` through faults, with a real PostgreSQL and nginx in front: a shard
killed while PostgreSQL is down comes back once it returns (the other shard serving all along),
and a supervisor killed with SIGKILL leaves no shard behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from nginx import NginxProxy, rendered_routing
from postgres import PostgresCluster, free_port, unavailable


def consecutive_free_ports() -> int:
    """A free loopback port whose next one is free too."""
    while True:
        first = free_port()
        with contextlib.suppress(OSError), socket.socket() as probe:
            probe.bind(("127.0.0.1", first + 1))
            return first


def answers(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(url + "/healthz", timeout=2).status_code == 200
    return False


def wait_until(condition: object, timeout: float, what: str) -> None:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout:g} s"
        time.sleep(0.2)


def shard_pids(supervisor: int) -> dict[int, str]:
    """The supervisor's children: pid -> command line (as ``ps`` shows it)."""
    children: dict[int, str] = {}
    for task in Path(f"/proc/{supervisor}/task").iterdir():
        for pid in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                children[int(pid)] = (Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " "))
    return children


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@contextlib.contextmanager
def supervisor(database: str, first: int, log: Path, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "ratscrew", "serve", "--workers", "2",
                                    "--port", str(first), *extra],
                                   env={**os.environ, "RATSCREW_DATABASE_URL": database},
                                   stdout=out, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def test_a_shard_killed_while_postgresql_is_down_comes_back_when_it_returns(
        private_cluster: PostgresCluster, tmp_path: Path) -> None:
    database = private_cluster.create_database()
    first = consecutive_free_ports()
    shards = {"A": f"http://127.0.0.1:{first}", "B": f"http://127.0.0.1:{first + 1}"}
    log = tmp_path / "supervisor.log"
    with supervisor(database, first, log) as process:
        wait_until(lambda: all(answers(url) for url in shards.values()), 60, "both shards answer")
        try:
            proxy = NginxProxy(rendered_routing([first, first + 1]))
        except RuntimeError as error:
            unavailable(str(error))
            raise
        try:
            room_a = httpx.post(shards["A"] + "/api/rooms", json={}, timeout=10).json()["code"]
            private_cluster.stop()
            pid_a = next(pid for pid, line in shard_pids(process.pid).items() if "--shard A" in line)
            os.kill(pid_a, signal.SIGKILL)
            # A is refused at start (PostgreSQL is down) and started again, backing off: wait for
            # the refusal itself (a fixed 8 s was too short at load 12: PostgreSQL came back first)
            wait_until(lambda: "shard A stopped (status 2); starting it again in 2 s" in log.read_text(), 90,
                       "shard A refused while PostgreSQL is down")
            assert process.poll() is None, log.read_text()
            assert answers(shards["B"]), "the healthy shard was stopped for another's failure"
            assert not answers(shards["A"])
            private_cluster.start()
            wait_until(lambda: answers(shards["A"]), 45, "shard A is back once PostgreSQL is")
            page = httpx.get(f"{proxy.url}/api/rooms/{room_a}", timeout=10)
            assert page.status_code == 200, page.text  # its room came back, through nginx
            assert answers(proxy.url)
        finally:
            proxy.remove()
    said = log.read_text()
    assert "shard A stopped (signal 9); starting it again in 1 s" in said
    assert "shard A stopped (status 2); starting it again in 2 s" in said  # refused: backing off
    assert process.returncode == 0, said


def test_a_supervisor_killed_with_sigkill_leaves_no_shard(fresh_database: str, tmp_path: Path) -> None:
    first = consecutive_free_ports()
    with supervisor(fresh_database, first, tmp_path / "supervisor.log") as process:
        wait_until(lambda: answers(f"http://127.0.0.1:{first}") and answers(f"http://127.0.0.1:{first + 1}"),
                   60, "both shards answer")
        children = shard_pids(process.pid)
        assert len(children) == 2, children
        assert not any(fresh_database in line for line in children.values())  # not shown by ps
        process.kill()
        process.wait(timeout=10)
        wait_until(lambda: not any(alive(pid) for pid in children), 15, "every shard stopped")
    for port in (first, first + 1):
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)


def test_under_log_format_json_every_line_of_the_supervisor_and_its_shards_is_json(
        fresh_database: str, tmp_path: Path) -> None:
    first = consecutive_free_ports()
    log = tmp_path / "supervisor.log"
    with supervisor(fresh_database, first, log, "--log-format", "json",
                    "--nginx-config", str(tmp_path / "routing.conf")) as process:
        wait_until(lambda: answers(f"http://127.0.0.1:{first}") and answers(f"http://127.0.0.1:{first + 1}"),
                   60, "both shards answer")
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    messages = [json.loads(line)["message"] for line in lines]  # fails on a line that is not JSON
    assert any(m.startswith("2 shards (A, B) on 127.0.0.1:") for m in messages)
    assert any("routing.conf" in m for m in messages)
    assert any(m.startswith("stopped 2 shards") for m in messages)


def test_workers_on_sqlite_say_how_to_give_postgresql_without_a_password_in_ps(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "RATSCREW_DATABASE_URL"}
    refused = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--workers", "2", "--db",
                              str(tmp_path / "ratscrew.db")], capture_output=True, text=True,
                             timeout=60, env=environment)
    assert refused.returncode == 2
    assert refused.stderr.startswith("ratscrew: error: --workers needs a shared PostgreSQL "
                                     "database: set RATSCREW_DATABASE_URL="), refused.stderr
    assert "--db-file" in refused.stderr and "Traceback" not in refused.stderr


def test_nginx_config_goes_into_a_folder_made_for_it_or_says_why_it_cannot(tmp_path: Path) -> None:
    environment = {**os.environ, "RATSCREW_DATABASE_URL": "postgresql://ratscrew@127.0.0.1:1/ratscrew"}
    command = [sys.executable, "-m", "ratscrew", "serve", "--workers", "2",
               "--port", str(consecutive_free_ports())]
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    refused = subprocess.run([*command, "--nginx-config", str(blocked / "routing.conf")],
                             capture_output=True, text=True, timeout=60, env=environment)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith(f"ratscrew: error: --nginx-config: cannot write {blocked}"), \
        refused.stderr
    routing = tmp_path / "etc" / "nginx" / "ratscrew" / "routing.conf"  # as in docs/online.md
    supervisor = subprocess.Popen([*command, "--nginx-config", str(routing)], env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: (routing.parent / "routing-server.conf").exists(), 30, "the nginx files")
    finally:
        supervisor.send_signal(signal.SIGTERM)
        supervisor.wait(30)
    assert "ratscrew_B" in routing.read_text()


def test_shards_keep_the_operators_warning_filters_and_quiet_the_lock_tracker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ratscrew.server.ops.supervisor import QUIET_TRACKER, Supervisor

    monkeypatch.setenv("PYTHONWARNINGS", "error::DeprecationWarning")
    supervisor = Supervisor({"A": [sys.executable, "-c", "pass"]}, environment={"X": "1"})
    shown = subprocess.run([sys.executable, "-c", "import os; print(os.environ['PYTHONWARNINGS'])"],
                           env=supervisor._env, capture_output=True, text=True, timeout=30)
    assert shown.stdout.strip() == f"error::DeprecationWarning,{QUIET_TRACKER}"
    monkeypatch.delenv("PYTHONWARNINGS")
    assert Supervisor({"A": ["true"]})._env["PYTHONWARNINGS"] == QUIET_TRACKER


def test_a_second_deployment_on_the_same_database_is_refused_naming_the_first(
        fresh_database: str, tmp_path: Path) -> None:
    first = consecutive_free_ports()
    with supervisor(fresh_database, first, tmp_path / "first.log") as process:
        wait_until(lambda: answers(f"http://127.0.0.1:{first}") and answers(f"http://127.0.0.1:{first + 1}"),
                   60, "both shards answer")
        other = consecutive_free_ports()
        second = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--workers", "2",
                                 "--port", str(other)], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "RATSCREW_DATABASE_URL": fresh_database})
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert "another ratscrew deployment already serves this database" in second.stderr
        assert f"pid {process.pid} ports {first}-{first + 1}" in second.stderr  # which one runs
        assert not answers(f"http://127.0.0.1:{other}")  # none of its shards started


def test_a_deployment_takes_its_claim_back_after_postgresql_restarts(
        private_cluster: PostgresCluster) -> None:
    from ratscrew.storage.deployment import DeploymentClaim
    from ratscrew.storage.records import StoreInUse

    url = private_cluster.create_database()
    running = DeploymentClaim(url, "the running deployment")
    try:
        private_cluster.stop()
        private_cluster.start()  # every advisory lock was freed with the restart
        running._checked = -1e9  # its next step looks at once instead of within KEEP_EVERY_S
        running.keep()
        with pytest.raises(StoreInUse, match="already serves this database: 'the running deployment'"):
            DeploymentClaim(url, "a forgotten second deployment")
    finally:
        running.close()
