"""The deployment files: the nginx configurations ratscrew renders are valid nginx (``nginx -t``
of Debian's nginx): docs/online.md's "several machines" example, the shipped compose
configuration (which looks shard names up again through a resolver), and what ``serve --workers
--nginx-config`` writes (routing and locations in files of their own, included by the operator's
server block, which is never overwritten); the compose file restarts and health-checks every
service, keeps passwords out of itself, and trusts only the proxy's address. (No Docker here:
the compose file is read, not run.)"""

from __future__ import annotations

import re
import resource
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from nginx import COMPOSE_RESOLVER, COMPOSE_SHARDS, nginx_binary
from postgres import unavailable

from ratscrew.server.ops.nginx import main, render_http, write_split

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "online.md"
COMPOSE = ROOT / "deploy" / "compose.yaml"


def nginx_test(http_block: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``nginx -t`` of a configuration whose http block is ``http_block``."""
    binary = nginx_binary()
    if binary is None:
        unavailable("nginx is not installed (Debian: apt-get install -y nginx)")
    assert binary is not None
    temp = "".join(f"    {name}_temp_path {folder}/{name};\n"
                   for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    config = folder / "nginx.conf"
    config.write_text(f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\n"
                      f"http {{\n    access_log off;\n{temp}{http_block}\n}}\n")
    command = [binary, "-t", "-p", str(folder), "-c", str(config), "-e", str(folder / "error.log")]
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


def test_the_several_machines_example_of_the_docs_renders_valid_nginx(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = re.search(r"```sh\n(python -m ratscrew\.server\.ops\.nginx [^`]*?)> ", DOCS.read_text())
    assert example is not None, "docs/online.md lost its several-machines example"
    words = shlex.split(example.group(1).replace("\\\n", " "))
    assert main(words[3:]) == 0
    checked = nginx_test(capsys.readouterr().out, tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_the_compose_configuration_with_its_resolver_is_valid_nginx(tmp_path: Path) -> None:
    loopback = [(letter, f"127.0.0.1:{8001 + n}") for n, (letter, _) in enumerate(COMPOSE_SHARDS)]
    checked = nginx_test(render_http(loopback, "127.0.0.1:8080", resolver=COMPOSE_RESOLVER), tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_the_shipped_configuration_passes_nginx_t_while_its_shards_cannot_be_resolved(tmp_path: Path) -> None:
    # shard-a and shard-b resolve nowhere on this machine: as when a shard container is down
    shipped = (ROOT / "deploy" / "nginx" / "ratscrew.conf").read_text()
    assert re.search(r"^upstream ", shipped, flags=re.MULTILINE) is None  # nothing resolved at start
    checked = nginx_test(shipped, tmp_path)
    assert checked.returncode == 0, checked.stderr
    rendered = render_http(COMPOSE_SHARDS, "80", resolver=COMPOSE_RESOLVER)
    assert ("split_clients $request_id $ratscrew_any {\n    50% shard-a:8000;\n    * shard-b:8000;\n}"
            in rendered)


def test_serve_nginx_config_writes_included_files_and_keeps_the_operators_server_block(
        tmp_path: Path) -> None:
    routing = tmp_path / "ratscrew.conf"
    shards = [("A", "127.0.0.1:8001"), ("B", "127.0.0.1:8002")]
    said = write_split(routing, shards, "127.0.0.1:8080")
    server = tmp_path / "ratscrew-server.conf"
    assert any(line.startswith(f"wrote {server}") for line in said)
    with tempfile.TemporaryDirectory() as nginx_folder:
        checked = nginx_test(f"include {routing};\ninclude {server};", Path(nginx_folder))
    assert checked.returncode == 0, checked.stderr
    edited = server.read_text().replace("listen 127.0.0.1:8080;", "listen 127.0.0.1:8443;")
    server.write_text(edited)  # the operator's edit (another listen, say TLS)
    again = write_split(routing, [*shards, ("C", "127.0.0.1:8003")], "127.0.0.1:8080")
    assert f"kept {server} (yours to edit)" in again
    assert server.read_text() == edited
    assert "ratscrew_C" in routing.read_text()  # the routing follows the shards


def services(compose: str) -> dict[str, str]:
    """Each service's block of the compose file, as text (shard services with their anchor's)."""
    anchor = compose.split("x-shard: &shard\n", 1)[1].split("\nservices:", 1)[0]
    body = compose.split("\nservices:\n", 1)[1].split("\n\nsecrets:", 1)[0]
    blocks = re.split(r"\n  (?=[a-z][a-z-]*:\n)", "\n" + body)
    found = {}
    for block in filter(str.strip, blocks):
        name, _, text = block.strip().partition(":\n")
        found[name] = text + ("\n" + anchor if "<<: *shard" in text else "")
    return found


def test_the_compose_file_restarts_checks_hides_its_password_and_trusts_only_the_proxy() -> None:
    compose = COMPOSE.read_text()
    found = services(compose)
    assert set(found) == {"postgres", "shard-a", "shard-b", "nginx"}
    for name, text in found.items():
        assert "restart: unless-stopped" in text, name
        assert "healthcheck:" in text, name
    assert "/readyz" in found["shard-a"] and "/readyz" in found["shard-b"]
    assert "postgresql://" not in compose.split("\nservices:", 1)[1]  # the URL is a secret file
    assert "POSTGRES_PASSWORD:" not in compose and "POSTGRES_PASSWORD_FILE: /run/secrets/" in compose
    proxy = re.search(r"ipv4_address: ([\d.]+)", found["nginx"])
    assert proxy is not None
    trusted = re.findall(r'"--forwarded-allow-ips", "([^"]+)"', compose)
    assert trusted == [proxy.group(1)] * 2  # both shards, only nginx
    assert f"resolver {COMPOSE_RESOLVER}" in (ROOT / "deploy" / "nginx" / "ratscrew.conf").read_text()


@pytest.mark.parametrize(("shards", "said"), [
    (["A=10.0.0.11:8000", "A=10.0.0.12:8000"], "shard A given twice: one address per letter"),
    (["O=10.0.0.11:8000"], "'O=10.0.0.11:8000': 'O' is not a room-code letter"),
])
def test_the_renderer_refuses_shards_nginx_could_not_route(
        shards: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--server-only", *shards])
    assert refused.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and said in captured.err


def test_a_shard_raises_its_open_file_limit_to_the_hard_one_and_the_unit_raises_that() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    script = ("import logging, resource\n"
              "logging.basicConfig(level=logging.INFO, format='%(message)s')\n"
              "from ratscrew.server.ops.filelimit import raise_open_file_limit\n"
              "limit = raise_open_file_limit()\n"
              "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0], limit.before)\n")
    started = subprocess.run(  # started as systemd's default would start it: soft 256 or less
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard)))
    soft, before = map(int, started.stdout.split())
    assert before == min(256, hard) and soft == hard
    assert f"open files: soft limit {hard} (was {before}), hard {hard}" in started.stderr
    unit = (ROOT / "deploy" / "systemd" / "ratscrew.service").read_text()
    assert re.search(r"^LimitNOFILE=(\d+)$", unit, flags=re.MULTILINE) is not None
