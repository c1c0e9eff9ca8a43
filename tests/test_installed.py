"""The installed wheel, run as a service runs it: an unprivileged user whose home does not exist,
with the install directory read-only (deploy/Dockerfile's situation, without Docker).

The wheel is built from this tree (``pip wheel --no-deps``) and installed without its
dependencies into a fresh venv whose ``.pth`` points at this interpreter's site-packages (where
the dependencies already are), so the whole test takes seconds and needs no network beyond the
build backend. The server then runs as ``nobody`` (uid 65534) through ``setpriv``; where the
interpreter lives under a folder ``nobody`` may not read (``/root/.pyenv``), the process keeps
``CAP_DAC_READ_SEARCH`` only: it may read and search every folder, and still write nowhere it
does not own, which is what this test is about.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from postgres import unavailable

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def as_nobody(command: list[str], env: dict[str, str]) -> list[str]:
    """``command`` run as uid/gid 65534 with no supplementary groups (see the module docstring)."""
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "--",
            "env", "-i", *(f"{name}={value}" for name, value in env.items()), *command]


@pytest.fixture(scope="module")
def installed() -> Iterator[Path]:
    """A read-only venv with the wheel built from this tree installed; its ``bin`` folder."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        unavailable("running as another user needs root and setpriv (util-linux)")
    top = Path(tempfile.mkdtemp(prefix="ratscrew-installed-"))
    top.chmod(0o755)
    try:
        source = top / "source"
        for name in ("pyproject.toml", "README.md"):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, source / name)
        shutil.copytree(ROOT / "ratscrew", source / "ratscrew",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(top / "dist"),
                        str(source)], check=True, capture_output=True)
        venv = top / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                       "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                      check=True, capture_output=True, text=True).stdout.strip())
        (purelib / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        wheel = next((top / "dist").glob("ratscrew-*.whl"))
        subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                        "--no-deps", "--no-index", "-q", str(wheel)], check=True, capture_output=True)
        for path in [venv, *venv.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
        yield venv / "bin"
    finally:
        for path in top.rglob("*"):
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)
        shutil.rmtree(top, ignore_errors=True)


def test_the_installed_server_starts_as_nobody_with_no_writable_home(installed: Path) -> None:
    data = Path(tempfile.mkdtemp(prefix="ratscrew-data-"))
    os.chown(data, NOBODY, NOBODY)
    env = {"HOME": "/nonexistent", "PATH": f"{installed}:/usr/bin:/bin", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(as_nobody([str(installed / "ratscrew"), "serve", "--port", "0",
                                          "--db", str(data / "ratscrew.db")], env),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stderr is not None
        address = None
        deadline = time.monotonic() + 30
        while address is None and time.monotonic() < deadline and process.poll() is None:
            if select.select([process.stdout], [], [], 0.5)[0]:
                found = re.search(r"(http://127\.0\.0\.1:\d+)/", process.stdout.readline())
                address = found.group(1) if found else None
        said = process.stderr.read() if process.poll() is not None else ""
        assert address is not None, f"the server did not start: {said}"
        answer = httpx.get(address + "/healthz", timeout=10)
        assert answer.status_code == 200
        assert answer.json()["ok"] is True
        # issue 51: the installed package serves the app's shell and the offline table's files
        worker = httpx.get(address + "/sw.js", timeout=10)
        assert worker.status_code == 200 and worker.text.startswith("const VERSION = ")
        for path in ("/manifest.webmanifest", "/play", "/static/js/offline/worker.js",
                     "/static/icons/maskable-512.png", "/offline/ratscrew.zip"):
            assert httpx.get(address + path, timeout=10).status_code == 200, path
    finally:
        process.terminate()
        process.wait(timeout=15)
        shutil.rmtree(data, ignore_errors=True)


def test_the_kernels_find_a_writable_cache_when_the_install_and_home_are_not(installed: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="ratscrew-tmp-"))
    scratch.chmod(0o1777)
    env = {"HOME": "/nonexistent", "PATH": f"{installed}:/usr/bin:/bin", "TMPDIR": str(scratch)}
    probe = ("import os, ratscrew.sim.bmn_kernel, ratscrew.sim.kernel_compiled as k; "
             "from ratscrew.sim.numba_cache import CACHE; print(CACHE, os.environ['NUMBA_CACHE_DIR'])")
    try:
        answer = subprocess.run(as_nobody([str(installed / "python"), "-c", probe], env),
                                capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert answer.returncode == 0, answer.stderr[-2000:]
    cached, folder = answer.stdout.split()
    assert cached == "True"
    assert folder == str(scratch / f"ratscrew-numba-{NOBODY}")


def test_with_no_writable_folder_at_all_the_kernels_are_not_cached_and_one_line_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from ratscrew.sim import numba_cache

    nowhere = Path("/dev/null/ratscrew")  # not even root can make a folder under a device file
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba_cache, "PACKAGE_DIR", nowhere / "sim")
    monkeypatch.setattr(numba_cache, "cache_candidates", lambda: [nowhere / "cache"])
    assert numba_cache.configure_cache() is False
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "no writable folder for numba's cache" in said[0]
