"""nginx in front of shards, for the tests and the benchmarks: `NginxProxy` runs Debian's nginx in
the foreground in a temporary folder, on a free loopback port, with the routing of
``deploy/nginx/ratscrew.conf`` (`shipped_routing`: the shipped file, its upstreams pointed at
loopback ports) or the same routing rendered for any number of shards (`rendered_routing`), and
stops it by its pid. `RuntimeError` says why when nginx is missing or cannot start.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from postgres import free_port

from ratscrew.server.ops.nginx import render_http
from ratscrew.server.ops.shards import shard_letters

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
SHIPPED_NGINX = DEPLOY / "nginx" / "ratscrew.conf"
COMPOSE_SHARDS = [("A", "shard-a:8000"), ("B", "shard-b:8000")]
"""The shards of ``deploy/compose.yaml``, as the shipped nginx configuration names them."""
COMPOSE_RESOLVER = "127.0.0.11"
"""Docker's DNS, which the shipped configuration asks again as shard containers come and go."""
LISTEN = "__LISTEN__"


def shipped_routing(ports: Sequence[int]) -> str:
    """``deploy/nginx/ratscrew.conf`` with its two shards at these loopback ports (addresses,
    which its resolver then has no name to look up)."""
    routing = SHIPPED_NGINX.read_text()
    for (_, address), port in zip(COMPOSE_SHARDS, ports, strict=True):
        routing = routing.replace(f" {address};", f" 127.0.0.1:{port};")
    return routing.replace("listen 80;", f"listen {LISTEN};")


def rendered_routing(ports: Sequence[int]) -> str:
    """The same routing for shards A, B, C, … at these loopback ports."""
    shards = [(letter, f"127.0.0.1:{port}") for letter, port in zip(shard_letters(len(ports)), ports,
                                                                     strict=True)]
    return render_http(shards, LISTEN)


def nginx_binary() -> str | None:
    """Debian's nginx (in /usr/sbin, which may not be on PATH)."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


class NginxProxy:
    """nginx with ``routing`` (an ``http`` block's contents) on a free loopback port."""

    def __init__(self, routing: str, *, workers: int = 1) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (Debian: apt-get install -y nginx)")
        self.folder = Path(tempfile.mkdtemp(prefix="ratscrew-nginx-"))
        self.folder.chmod(0o755)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = self.folder / "error.log"
        temp = "".join(f"    {name}_temp_path {self.folder}/{name};\n"
                       for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        config = (f"daemon off;\nworker_processes {workers};\npid {self.folder}/nginx.pid;\n"
                  f"error_log {self.log} warn;\n"
                  "events { worker_connections 8192; }\n"
                  f"http {{\n    access_log off;\n{temp}"
                  f"{routing.replace(LISTEN, f'127.0.0.1:{self.port}')}\n}}\n")
        (self.folder / "nginx.conf").write_text(config)
        command = [binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf"), "-e", str(self.log)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.pid = self.process.pid
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.process.stderr.read() if self.process.stderr else ""
                self.remove()
                raise RuntimeError(f"nginx cannot start here: {error.strip()[-1500:]}")
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(self.url + "/healthz", timeout=2)
                return  # it answers (whatever the shards say)
            time.sleep(0.1)
        self.remove()
        raise RuntimeError("nginx did not answer within 15 s")

    def remove(self) -> None:
        """Stop nginx by its pid (fast shutdown: open websockets are cut) and delete its folder."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
