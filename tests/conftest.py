"""Fixtures shared by several test files: a throwaway PostgreSQL server (see ``postgres.py``);
and, when a test fails, what its fixtures saw (see `DescribesFailure`)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Protocol, runtime_checkable

import pytest
from postgres import fresh_database, postgres_cluster, private_cluster

__all__ = ["fresh_database", "postgres_cluster", "private_cluster"]

Report = pytest.TestReport


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
