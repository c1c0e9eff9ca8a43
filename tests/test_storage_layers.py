"""The storage sits below the server: ``ratscrew/storage`` imports nothing of the server (the
ladder's numbers its queries count by are its own, `ratscrew.storage.terms`; names compared by
look come from ``ratscrew.protocol.names``; the import graph's layers hold it too:
tests/test_import_graph.py), and the server's old re-exporting store modules are gone."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import ratscrew
from ratscrew.storage.opening import open_store
from ratscrew.storage.records import StoreError

PACKAGE = Path(ratscrew.__file__).parent


def imported(path: Path) -> set[str]:
    """The ratscrew modules a file imports (at any level of the file)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ratscrew"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("ratscrew")}
    return names


def test_the_storage_imports_nothing_of_the_server() -> None:
    for path in sorted((PACKAGE / "storage").glob("*.py")):
        from_server = {name for name in imported(path) if name.startswith("ratscrew.server")}
        assert from_server == set(), f"{path.name} imports {from_server}"


def test_the_old_store_modules_are_gone() -> None:
    for shim in ("store", "pgstore", "protocol", "keys", "names"):
        assert not (PACKAGE / "server" / f"{shim}.py").exists()


def test_a_missing_postgresql_driver_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "ratscrew.storage.postgres", raising=False)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` fails as if not installed
    with pytest.raises(StoreError, match=r"needs the PostgreSQL driver: pip install 'ratscrew\[postgres\]'"):
        open_store("postgresql://ratscrew@localhost/ratscrew")


def test_a_broken_import_of_our_own_is_not_called_a_missing_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "ratscrew.storage.postgres", raising=False)
    monkeypatch.setitem(sys.modules, "ratscrew.storage.postgres_steps", None)
    with pytest.raises(ModuleNotFoundError) as error:
        open_store("postgresql://ratscrew@localhost/ratscrew")
    assert error.value.name == "ratscrew.storage.postgres_steps"
