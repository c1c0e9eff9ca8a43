"""The package's import graph: no circles, the package's layers, and no client importing the server.

The layers (docs/GUIDE's engine → protocol → server / clients) hold only if the imports say so:
this reads every module's ``import`` statements (at module level and inside functions alike: a
lazy import is still a dependency) and checks two things. There is no import circle between two
modules of ``ratscrew`` (a package's ``__init__`` importing its own submodules is how packages
work and is not counted), and the clients (``ratscrew.client``, the terminal's online table and
``ratscrew join``) import nothing from ``ratscrew.server``: they speak to it only through
``ratscrew.protocol``. And the layers of docs/architecture.md hold: the game's core below the
bots, the bots below simulation and learning; the protocol below its clients and the server; the
storage below the server; nothing imports the commands but the command line's entry point.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import ratscrew

PACKAGE_ROOT = Path(ratscrew.__file__).parent
CLIENT_MODULES = ("ratscrew.client", "ratscrew.tui", "ratscrew.commands.join")
"""The clients of the online server: these may not import ``ratscrew.server``."""


CORE = ("cards", "patterns", "ruleset", "events", "observation", "engine", "runtime", "errors")
"""The game itself (docs/GUIDE.md's layers from cards to runtime)."""
ABOVE_THE_SERVER = ("server", "storage", "protocol", "client", "tui", "commands", "offline")
LAYERS: dict[tuple[str, ...], tuple[str, ...]] = {
    CORE: ("bots", "sim", "rl", *ABOVE_THE_SERVER),
    ("bots",): ("sim", "rl", *ABOVE_THE_SERVER),
    ("sim", "rl"): ABOVE_THE_SERVER,
    ("protocol",): ("client", "tui", "server", "storage", "commands", "offline"),
    ("client", "tui"): ("server", "storage", "commands"),
    ("storage",): ("server", "client", "tui", "commands", "offline"),
    ("matchmaking", "arenas"): ("bots", "sim", "rl", *ABOVE_THE_SERVER),
}
"""Each group of top-level packages (or modules) of ``ratscrew`` and the ones it may not import:
engine <- bots <- sim/rl; protocol <- client, tui, server; storage <- server; the pure rules of
quick play and arenas (pairing, scoring) <- server."""
ENTRY_POINTS = ("ratscrew.cli",)
"""The only importers of ``ratscrew.commands`` outside it: the command line dispatches to them."""


def _part(module: str) -> str:
    """The top-level package or module of ``ratscrew`` a module is in: ``ratscrew.server.app`` ->
    ``server``."""
    return module.split(".")[1] if module.count(".") else ""


def layer_breaches(graph: dict[str, set[str]]) -> list[str]:
    """Every import the layers forbid, as ``importer imports imported``.

    >>> layer_breaches({"ratscrew.engine": {"ratscrew.bots.agent"}, "ratscrew.bots.agent": set()})
    ['ratscrew.engine imports ratscrew.bots.agent']
    """
    breaches = []
    for module, targets in sorted(graph.items()):
        for group, forbidden in LAYERS.items():
            if _part(module) in group:
                breaches += [f"{module} imports {target}" for target in sorted(targets)
                             if _part(target) in forbidden]
        if _part(module) != "commands" and module not in ENTRY_POINTS:
            breaches += [f"{module} imports {target}" for target in sorted(targets)
                         if _part(target) == "commands"]
    return breaches


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def _resolve(module: str, importer: str, is_package: bool, level: int) -> str:
    if level == 0:
        return module
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The ``ratscrew`` modules that module *name* imports (its nearest known module for each)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target.startswith("ratscrew") and target != name:
            found.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module or "", name, is_package, node.level)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in known else base)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of ``ratscrew`` and the modules of ``ratscrew`` it imports.

    >>> "ratscrew.cards" in import_graph()["ratscrew.engine"]
    True
    """
    return {name: set(imported) for name, imported in _parsed_graph().items()}


@functools.cache
def _parsed_graph() -> dict[str, frozenset[str]]:
    """`import_graph`, parsed once per run (every test of this module reads it: parsing every
    module of ratscrew took a second of CPU each time)."""
    modules = _modules()
    known = set(modules)
    return {name: frozenset(_imports(name, path, known)) for name, path in modules.items()}


def _is_own_package_init(importer: str, imported: str) -> bool:
    return importer.startswith(imported + ".") or imported.startswith(importer + ".")


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected groups of more than one module (Tarjan's algorithm),
    leaving out the edges between a package and its own submodules."""
    edges = {node: {target for target in targets if not _is_own_package_init(node, target)}
             for node, targets in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_the_graph_sees_imports_of_every_kind() -> None:
    graph = import_graph()
    assert "ratscrew.cards" in graph["ratscrew.engine"]  # from ratscrew.cards import ...
    assert graph["ratscrew.server.state"] & {"ratscrew.server.room.room", "ratscrew.server.rooms"}
    assert import_circles({"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": set()}) == [
        ["a.x", "a.y", "a.z"]]


def test_no_import_circle() -> None:
    circles = import_circles(import_graph())
    assert circles == [], "modules that import each other (a circle): " + "; ".join(
        " <-> ".join(group) for group in circles)


def test_no_client_imports_the_server() -> None:
    graph = import_graph()
    offending = sorted(f"{module} imports {target}"
                       for module, targets in graph.items()
                       if module.startswith(CLIENT_MODULES)
                       for target in targets if target.startswith("ratscrew.server"))
    assert offending == [], "clients speak to the server only through ratscrew.protocol: " + (
        "; ".join(offending))


def test_every_layer_imports_only_the_layers_below_it() -> None:
    breaches = layer_breaches(import_graph())
    assert breaches == [], "imports from a lower layer to a higher one (docs/architecture.md): " + (
        "; ".join(breaches))


def test_the_layers_name_real_packages() -> None:
    parts = {_part(module) for module in import_graph()}
    named = {part for group, forbidden in LAYERS.items() for part in (*group, *forbidden)}
    assert named <= parts, f"layers name what ratscrew does not have: {sorted(named - parts)}"
