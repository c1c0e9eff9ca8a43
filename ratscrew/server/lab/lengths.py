"""Lobby estimates kept on disk, so that a restarted server, or the other shards of one machine,
show a lobby's expected game length at once instead of playing the same 2,000 games again.

An estimate depends only on the rules, the seats' bots, the number of games and the code that
plays them (the lab plays with a fixed seed), so it can be kept: one small JSON file per
estimate in a folder (``ratscrew serve --lab-cache DIR``; by default ``$RATSCREW_LAB_CACHE``,
else ``$XDG_CACHE_HOME/ratscrew/lengths`` or ``~/.cache/ratscrew/lengths``). A file's name is a
hash of all four, the code as a fingerprint of the package's rules, bots and simulation sources
(:func:`code_fingerprint`): a changed kernel or bot never shows an old figure. Files are written
whole (a temporary file, then a rename), so shards sharing the folder never read half of one;
past :data:`MAX_STORED_LENGTHS` files the oldest written are removed. The folder only saves
work: one that cannot be written leaves the lab computing every estimate, with one warning.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

log = logging.getLogger("ratscrew.server.lab")

LAB_CACHE_ENV = "RATSCREW_LAB_CACHE"
"""The environment variable naming the folder (``off``: keep nothing on disk)."""
MAX_STORED_LENGTHS = 2_000
"""Estimate files kept (about 100 bytes each); past it the oldest written are removed."""
PACKAGE_DIR = Path(__file__).resolve().parents[2]
"""The ``ratscrew`` package, whose sources the fingerprint reads."""
FINGERPRINTED = ("*.py", "sim/*.py", "bots/*.py", "presets/*.toml", "server/lab/jobs.py")
"""The sources an estimate depends on (relative to the package): the engine and rules, the bots,
the simulation kernel and the lab's job."""


@functools.cache
def code_fingerprint() -> str:
    """A hash of the sources that play an estimate's games (:data:`FINGERPRINTED`), read once.

    >>> len(code_fingerprint()), code_fingerprint() == code_fingerprint()
    (16, True)
    """
    digest = hashlib.sha256()
    for pattern in FINGERPRINTED:
        for path in sorted(PACKAGE_DIR.glob(pattern)):
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_folder(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where estimates are kept when ``--lab-cache`` is not given (see the module docstring);
    ``None`` for ``off``.

    >>> default_folder({"RATSCREW_LAB_CACHE": "/srv/cache"}), default_folder({"RATSCREW_LAB_CACHE": "off"})
    (PosixPath('/srv/cache'), None)
    >>> default_folder({"XDG_CACHE_HOME": "/var/cache/me"})
    PosixPath('/var/cache/me/ratscrew/lengths')
    """
    env = os.environ if environ is None else environ
    return folder_from(env.get(LAB_CACHE_ENV) or None, env)


def folder_from(value: str | None, environ: Mapping[str, str] | None = None) -> Path | None:
    """The folder ``--lab-cache VALUE`` names: ``off`` is none, nothing is the default place.

    >>> folder_from("off"), folder_from("/tmp/lengths")
    (None, PosixPath('/tmp/lengths'))
    """
    if value is not None:
        return None if value.strip().lower() == "off" else Path(value).expanduser()
    env = os.environ if environ is None else environ
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "ratscrew" / "lengths"
    home = env.get("HOME")
    return Path(home) / ".cache" / "ratscrew" / "lengths" if home else None


def stored_lengths(where: Path | str | None) -> StoredLengths | None:
    """The estimates kept where ``--lab-cache`` says (a folder, ``off``, or nothing: the default
    place, :func:`default_folder`); ``None`` when none are kept on disk.

    >>> stored_lengths("off") is None, stored_lengths("/srv/lengths").folder
    (True, PosixPath('/srv/lengths'))
    """
    folder = default_folder() if where is None else folder_from(str(where))
    return None if folder is None else StoredLengths(folder)


class StoredLengths:
    """The estimates in one folder (see the module docstring).

    >>> import tempfile
    >>> stored = StoredLengths(Path(tempfile.mkdtemp()))
    >>> stored.get("classic rules", ("casual", "casual"), 2000) is None
    True
    >>> stored.put("classic rules", ("casual", "casual"), 2000, {"median_minutes": 4.4, "p90_minutes": 11.6})
    >>> stored.get("classic rules", ("casual", "casual"), 2000)
    {'median_minutes': 4.4, 'p90_minutes': 11.6}
    >>> stored.get("classic rules", ("casual", "casual"), 500) is None  # other games: another estimate
    True
    """

    def __init__(self, folder: Path, fingerprint: str | None = None,
                 max_files: int = MAX_STORED_LENGTHS) -> None:
        self.folder = folder
        self.fingerprint = code_fingerprint() if fingerprint is None else fingerprint
        self.max_files = max_files
        self.writable = True

    def path(self, rules_toml: str, bots: tuple[str, ...], games: int) -> Path:
        """The file of one estimate: a hash of the code, the rules, the bots and the games."""
        key = json.dumps([self.fingerprint, rules_toml, list(bots), games])
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def get(self, rules_toml: str, bots: tuple[str, ...], games: int) -> dict[str, float] | None:
        """The kept estimate, or ``None`` (none kept, or a file that does not read as one)."""
        try:
            value = json.loads(self.path(rules_toml, bots, games).read_text())
        except (OSError, ValueError):
            return None
        if (not isinstance(value, dict) or set(value) != {"median_minutes", "p90_minutes"}
                or not all(isinstance(v, (int, float)) for v in value.values())):
            return None
        return {name: float(v) for name, v in value.items()}

    def put(self, rules_toml: str, bots: tuple[str, ...], games: int,
            length: dict[str, float]) -> None:
        """Keep an estimate (whole or not at all); a folder that cannot be written is warned
        about once and then left alone."""
        if not self.writable:
            return
        target = self.path(rules_toml, bots, games)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".writing-", suffix=".json")
            try:
                with os.fdopen(handle, "w") as file:
                    json.dump(length, file)
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except OSError as error:
            self.writable = False
            log.warning("lobby estimates are not kept on disk: cannot write to %s (%s); "
                        "set --lab-cache to a writable folder, or off", self.folder,
                        error.strerror or error)

    def _prune(self) -> None:
        """Remove the oldest written files past `max_files` (another shard may remove them
        first: a missing file is fine)."""
        files = [path for path in self.folder.glob("*.json") if not path.name.startswith(".")]
        if len(files) <= self.max_files:
            return
        for old in sorted(files, key=_written_at)[:len(files) - self.max_files]:
            old.unlink(missing_ok=True)


def _written_at(path: Path) -> float:
    """When a file was last written (a file removed meanwhile counts as the oldest)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
