"""Fixtures shared by several test files: a throwaway PostgreSQL server (see ``postgres.py``);
when a test fails, what its fixtures saw (see `DescribesFailure`); and the suite's layers: every
test that needs a browser, PostgreSQL, nginx, a process of its own or a long run is marked here,
in one place, by its module, its fixtures or its name (see `layer_marks` and docs/testing.md),
so that ``make quick`` (``-m "not (browser or postgres or nginx or process or slow)"``) and any
one part (``pytest -m postgres``) run alone, and a new test in a marked module or using a marked
fixture is marked too."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Generator, Iterable
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pytest
from browsing import browser, playwright  # noqa: F401  (fixtures: one Chromium per module)
from postgres import fresh_database, postgres_cluster, private_cluster

__all__ = ["fresh_database", "postgres_cluster", "private_cluster"]

Report = pytest.TestReport

LAYERS = {
    "browser": "drives a real headless Chromium (Playwright)",
    "postgres": "needs a real PostgreSQL server (tests/postgres.py)",
    "nginx": "needs a real nginx (tests/nginx.py)",
    "process": "starts a ratscrew server, supervisor, tmux or installed copy as a process of its own",
    "slow": "a long computation (the kernel against the engine at length); make quick runs a sample",
}
"""The suite's markers (registered in pyproject.toml too) and what each says about a test."""

MODULE_LAYERS: dict[str, tuple[str, ...]] = {
    "test_browser*": ("browser", "process"),
    "test_browser_origin": ("browser", "process", "postgres", "nginx"),
    "test_postgres_*": ("postgres",),
    "test_deployment": ("postgres", "nginx", "process"),
    "test_lab_deployment": ("postgres", "nginx", "process"),
    "test_supervisor": ("postgres", "nginx", "process"),
    "test_deploy_files": ("nginx",),
    "test_hostile_net": ("process",),
    "test_installed": ("process",),
    "test_join": ("browser", "process"),
    "test_logs": ("process",),
    "test_server_hostile_data": ("process",),
    "test_server_process": ("process",),
}
"""Modules whose every test (today's and tomorrow's) is in these layers (`fnmatch` patterns)."""

FIXTURE_LAYERS: dict[str, tuple[str, ...]] = {
    "postgres_cluster": ("postgres",),
    "fresh_database": ("postgres",),
    "private_cluster": ("postgres",),
}
"""A test that uses one of these fixtures, directly or through another, is in these layers."""

TEST_LAYERS: dict[str, tuple[str, ...]] = {
    "test_admin.py::test_db_copy_moves_everything_to_postgresql_and_back_with_counts": ("process",),
    "test_admin.py::test_a_sqlite_backup_made_with_vacuum_into_serves_the_same_leaderboard": ("process",),
    "test_admin.py::test_a_postgresql_backup_restored_with_pg_restore_serves_the_same_leaderboard":
        ("process",),
    "test_ladder.py::test_a_40_ms_slapper_is_flagged_*": ("process",),
    "test_operations.py::test_a_states_version_goes_on_growing_after_a_restart": ("process",),
    "test_operations.py::test_a_shard_behind_a_proxy_prints_*": ("process",),
    "test_play_cli.py::test_the_real_command_*": ("process",),
    "test_room_expiry.py::test_ratscrew_join_says_a_closed_room_has_closed": ("process",),
    "test_room_expiry.py::test_an_idle_time_that_would_close_every_room_at_once_is_refused*": ("process",),
    "test_server_evening.py::test_a_real_server_*": ("process",),
    "test_server_load.py::test_keyed_players_each_join_as_a_new_player_of_their_own": ("process",),
    "test_server_shards.py::test_serve_refuses_an_unreachable_postgresql_*": ("process",),
    "test_kernel_differential.py::test_thousands_of_games_per_preset_are_identical*": ("slow",),
    # the kernel against the engine at length (minutes of CPU, the numba compile included);
    # make quick keeps the kernel differential's sample and the other kernel tests
    "test_kernel_differential.py::test_random_rule_variants_are_identical": ("slow",),
    "test_kernel.py::test_every_action_is_the_engines*": ("slow",),
    "test_lab.py::test_the_kernel_figures_are_the_reference_engines": ("slow",),
    # fifteen whole learning-environment games stepped tick by tick (40 s of one worker)
    "test_rl.py::test_random_play_is_legal_conserves_the_deck_and_pays_the_result": ("slow",),
}
"""Single tests of otherwise quick modules (``file::name`` `fnmatch` patterns; parameters
included, so end a pattern with ``*`` to take every case)."""

DATABASE_PARAMETERS = frozenset({"postgres", "postgresql"})
"""A parametrized case with one of these values (or a tuple starting with one) runs on
PostgreSQL (the store contract's ``opener``, the writer's ``database``)."""


def layer_marks(module: str, node: str, fixtures: Iterable[str], parameters: Iterable[object]) -> set[str]:
    """The layers of one test: ``module`` its file's name without ``.py``, ``node`` its
    ``file::name[params]``, ``fixtures`` every fixture it uses, ``parameters`` its cases' values.

    >>> sorted(layer_marks("test_engine", "test_engine.py::test_x", [], []))
    []
    >>> sorted(layer_marks("test_browser_lab", "test_browser_lab.py::test_x", [], []))
    ['browser', 'process']
    >>> sorted(layer_marks("test_store_contract", "x", ["tmp_path"], [("postgresql", 2)]))
    ['postgres']
    >>> sorted(layer_marks("test_store_contract", "x", ["fresh_database"], []))
    ['postgres']
    """
    marks: set[str] = set()
    for pattern, layers in MODULE_LAYERS.items():
        if fnmatch(module, pattern):
            marks.update(layers)
    for fixture in fixtures:
        marks.update(FIXTURE_LAYERS.get(fixture, ()))
    for pattern, layers in TEST_LAYERS.items():
        if fnmatch(node, pattern):
            marks.update(layers)
    for value in parameters:
        first = value[0] if isinstance(value, tuple) and value else value
        if isinstance(first, str) and first in DATABASE_PARAMETERS:
            marks.add("postgres")
    return marks


UNITS_OF_THEIR_OWN = (
    "test_ladder.py::test_a_40_ms_slapper_is_flagged_*",
    "test_browser_offline.py::*",
    "test_browser_table.py::test_play_slap_and_the_deck_stay_put_over_a_minute_*",
)
"""Tests that mostly wait (real games at bot pace, a minute of a browser's play) for a minute or
more, each handed to `make test`'s workers on its own (``file::name`` `fnmatch` patterns, each
case its own unit), so that they wait beside other work instead of one after another. Every other
test goes with its file (`work_unit`), so that a module-scoped server starts once. Long tests
that compute are not split: the kernel differential's presets each use a pool of two processes,
so on this 2-core machine one of them at a time already takes both cores (split, three ran at
once on three workers and each took 110-176 s instead of 13-40 s, at load 12)."""

LONGEST_FIRST = (
    "test_ladder.py::test_a_40_ms_slapper_is_flagged_*",
    "test_kernel_differential.py::*",
    "test_browser_offline.py::test_a_whole_game_read_through_the_live_regions",
    "test_properties.py::*",
    "test_browser_offline.py::test_after_one_visit_a_whole_game_plays_offline*",
    "test_hostile_net.py::*", "test_server_process.py::*", "test_deployment.py::*",
    "test_browser_table.py::test_play_slap_and_the_deck_stay_put_over_a_minute_*",
    "test_browser_friends.py::*", "test_supervisor.py::*", "test_kernel.py::*",
    "test_browser_lab.py::*", "test_browser_table.py::*", "test_browser_players.py::*", "test_join.py::*",
    "test_server_hostile_data.py::*", "test_bench.py::*", "test_browser.py::*", "test_server_shards.py::*",
    "test_browser_slower_table.py::*", "test_browser_offline.py::*", "test_lab.py::*",
    "test_admin.py::*", "test_browser_origin.py::*", "test_installed.py::*", "test_lab_deployment.py::*",
    "test_rl.py::*",
)
"""The work units that take longest (`pytest --durations`, docs/testing.md), longest first:
`make test` hands them out in this order, so that none of them starts last and runs alone while
the other workers idle. Patterns as in `UNITS_OF_THEIR_OWN`; a unit ranks by the first pattern
its first test matches."""


def work_unit(node_id: str) -> str:
    """The work unit of a test under ``make test``'s workers, from its node id: the test itself
    when it matches `UNITS_OF_THEIR_OWN`, else its file.

    >>> work_unit("tests/test_browser_offline.py::test_after_one_visit_a_whole_game_plays_offline[phone]")
    'tests/test_browser_offline.py::test_after_one_visit_a_whole_game_plays_offline[phone]'
    >>> work_unit("tests/test_kernel.py::test_every_action_is_the_engines[classic]")
    'tests/test_kernel.py'
    """
    path, _, name = node_id.partition("::")
    if any(fnmatch(f"{Path(path).name}::{name}", pattern) for pattern in UNITS_OF_THEIR_OWN):
        return node_id
    return path


def longest_first_rank(node: str) -> int:
    """Where a test's unit comes in `LONGEST_FIRST` (after all of them when in none).

    >>> longest_first_rank("test_ladder.py::test_a_40_ms_slapper_is_flagged_within_30_slaps")
    0
    >>> longest_first_rank("test_engine.py::test_x") == len(LONGEST_FIRST)
    True
    """
    return next((rank for rank, pattern in enumerate(LONGEST_FIRST) if fnmatch(node, pattern)),
                len(LONGEST_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every collected test with its layers (`layer_marks`), and put the units of
    `LONGEST_FIRST` first (the same order on every worker: a stable sort)."""
    for item in items:
        path = item.path
        callspec = getattr(item, "callspec", None)
        parameters = list(callspec.params.values()) if callspec is not None else []
        node = f"{path.name}::{item.name}"
        for mark in sorted(layer_marks(path.stem, node, getattr(item, "fixturenames", ()), parameters)):
            item.add_marker(mark)
    items.sort(key=lambda item: longest_first_rank(f"{item.path.name}::{item.name}"))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``make test``'s ``--dist loadgroup``: a worker takes a whole `work_unit` at a time (a
    file, so that its module-scoped servers start once, or a long test of its own), in the
    collected order (`LONGEST_FIRST` first) rather than pytest-xdist's biggest-file-first.
    (pytest-xdist's own ``xdist_group`` marks do nothing under pytest 9: the group rides on a
    node id that pytest 9 no longer lets a plugin change.) Any other ``--dist`` is xdist's."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class WorkUnitScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """pytest-xdist's scope scheduling, a scope being a `work_unit`."""

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    config.option.loadscopereorder = False
    return WorkUnitScheduling(config, log)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist starts its workers (its hook is trylast)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under ``make test``'s workers: compile the simulation kernel (or load it from numba's
    disk cache) here, once, before any worker starts. In a fresh clone every process that
    runs it first would compile it for itself, at the same time: the kernel tests, and each
    server process's lab worker (a room's lobby simulates its expected length), a minute of
    CPU apiece on this 2-core machine; one compile, cached on disk, serves them all."""
    config = session.config
    if not hasattr(config, "workerinput"):
        share_lobby_estimates(config)
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from ratscrew.sim.kernel import warm_up

        warm_up()


def share_lobby_estimates(config: pytest.Config) -> None:
    """One folder of lobby estimates (`ratscrew.server.lab.lengths`) for the whole run, set
    before the workers start so that they, every server process they start and every app they
    build in-process (its default place) use it: a combination of rules and bots is simulated
    once per run, not by each server's lab worker (about a second of CPU apiece, two hundred
    servers), and nothing is written to the home folder's cache. The tests of the lab worker
    itself give their server a folder of its own or none (tests/test_lab_server.py)."""
    from ratscrew.server.lab.lengths import LAB_CACHE_ENV

    if os.environ.get(LAB_CACHE_ENV):
        return  # the caller chose one
    folder = tempfile.mkdtemp(prefix="ratscrew-test-lengths-")
    os.environ[LAB_CACHE_ENV] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


@runtime_checkable
class DescribesFailure(Protocol):
    """A fixture that can say what it saw when its test failed: a browser's pages, a server's
    log. A flaky failure on CI is then read from the log instead of guessed at."""

    def describe_failure(self) -> str:
        """What to show under the failure (kept short: the last lines that matter)."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, Report, Report]:
    """Add each fixture's `DescribesFailure.describe_failure` to a failed test's report, while
    the fixtures are still alive (their teardown's output would not be shown)."""
    report = yield
    if report.when == "call" and report.failed:
        for name, value in getattr(item, "funcargs", {}).items():
            if not isinstance(value, DescribesFailure):
                continue
            try:
                text = value.describe_failure()
            except Exception as error:  # the diagnosis must never hide the failure
                text = f"(could not describe {name}: {error})"
            report.sections.append((f"what the fixture {name!r} saw", text))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Print a failure as soon as it happens, with the end of its traceback: a CI run that is
    stopped from outside (its time limit) then still shows what failed and why, which the
    summary at the end of the run never got to print."""
    if not report.failed:
        return
    reporter = _terminal_reporter
    if reporter is None:
        return
    text = str(report.longrepr or "")
    lines = text.splitlines()[-40:]
    reporter.write_line("")
    reporter.write_line(f"FAILED AT ONCE {report.nodeid} ({report.when}, {report.duration:.1f} s)",
                        red=True)
    for line in lines:
        reporter.write_line(f"    {line[:300]}")


_terminal_reporter: pytest.TerminalReporter | None = None


@pytest.hookimpl(trylast=True)  # after the terminal reporter is registered
def pytest_configure(config: pytest.Config) -> None:
    """Keep the terminal reporter for `pytest_runtest_logreport` (absent under xdist's workers,
    whose failures the controller reports)."""
    global _terminal_reporter
    plugin = config.pluginmanager.get_plugin("terminalreporter")
    _terminal_reporter = plugin if isinstance(plugin, pytest.TerminalReporter) else None
