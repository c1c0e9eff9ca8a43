"""The storage sits below the server: ``ratscrew/storage`` imports none of the server's rooms,
routes or stores (only one module of plain facts: the rating thresholds; names compared by look
come from ``ratscrew.protocol.names``), and the old store modules are re-exports with no import
circle between them."""

from __future__ import annotations

import ast
from pathlib import Path

import ratscrew

PACKAGE = Path(ratscrew.__file__).parent
ALLOWED_FROM_SERVER = {"ratscrew.server.rated"}


def imported(path: Path) -> set[str]:
    """The ratscrew modules a file imports (at any level of the file)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ratscrew"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("ratscrew")}
    return names


def test_the_storage_imports_nothing_of_the_server_but_plain_facts() -> None:
    for path in sorted((PACKAGE / "storage").glob("*.py")):
        from_server = {name for name in imported(path) if name.startswith("ratscrew.server")}
        assert from_server <= ALLOWED_FROM_SERVER, f"{path.name} imports {from_server - ALLOWED_FROM_SERVER}"


def test_the_allowed_server_modules_do_not_import_the_storage_back() -> None:
    for module in ALLOWED_FROM_SERVER:
        path = PACKAGE / "server" / (module.rsplit(".", 1)[1] + ".py")
        assert not any(name.startswith(("ratscrew.storage", "ratscrew.server.store",
                                        "ratscrew.server.pgstore")) for name in imported(path))


def test_store_and_pgstore_no_longer_import_each_other() -> None:
    assert "ratscrew.server.pgstore" not in imported(PACKAGE / "server" / "store.py")
    assert "ratscrew.server.store" not in imported(PACKAGE / "server" / "pgstore.py")
