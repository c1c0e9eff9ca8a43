"""Where numba keeps the compiled simulation kernels, so an installed ratscrew runs anywhere.

numba caches each ``cache=True`` function next to its source (``__pycache__``) or, when that is
not writable, under the user's home; an installed package run by a service user (a container's
``ratscrew`` user, ``nobody``) may have neither, and numba then refuses to compile at all
(``RuntimeError: cannot cache function ...: no locator available``). `configure_cache` runs
before the kernels are decorated and picks a place that works: ``NUMBA_CACHE_DIR`` when the
operator set it, the package's own folder when it is writable, else
``$XDG_CACHE_HOME/ratscrew/numba`` (``~/.cache/ratscrew/numba``), else a folder of this user's
under the temporary directory; when nothing is writable, caching is off (each run compiles
again) and one warning line says so. The server never imports the kernels (the command line
imports them only for the commands that simulate).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
"""The kernels' own folder: numba's first choice (its ``__pycache__``)."""


def _writable(folder: Path) -> bool:
    """Whether files can be created in ``folder`` (created when missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def cache_candidates() -> list[Path]:
    """Where the cache may go when neither ``NUMBA_CACHE_DIR`` nor the package folder will do,
    best first."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    places = [Path(xdg) / "ratscrew" / "numba"] if xdg else []
    home = os.environ.get("HOME")
    if home:
        places.append(Path(home) / ".cache" / "ratscrew" / "numba")
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    places.append(Path(tempfile.gettempdir()) / f"ratscrew-numba-{uid}")
    return places


def configure_cache() -> bool:
    """Point numba's cache at a writable folder (see the module docstring); ``False`` when
    there is none and the kernels must be compiled without caching."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return True
    pycache = PACKAGE_DIR / "__pycache__"
    if _writable(pycache if pycache.exists() else PACKAGE_DIR):
        return True
    for place in cache_candidates():
        if _writable(place):
            os.environ["NUMBA_CACHE_DIR"] = str(place)  # also for the worker processes
            numba_config = sys.modules.get("numba.core.config")
            if numba_config is not None:
                numba_config.CACHE_DIR = str(place)  # type: ignore[attr-defined]
            return True
    print("ratscrew: warning: no writable folder for numba's cache (set NUMBA_CACHE_DIR); "
          "the simulation kernels are compiled again at each run", file=sys.stderr)
    return False


CACHE = configure_cache()
"""Whether the kernels are cached on disk (``cache=`` of their ``njit``)."""
