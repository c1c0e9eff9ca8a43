"""The nginx configuration that fronts several shards (`ratscrew.server.shards`): one function,
`render`, used by ``deploy/`` (whose ``nginx.conf`` is this rendered for its compose file),
by ``ratscrew serve --workers N --nginx-config FILE`` and by the tests, so they cannot drift.

Routing: ``/r/CODE``, ``/ws/CODE``, ``/api/rooms/CODE`` and ``/api/lab/jobs/ID`` (a lab job
runs in its shard's worker; its id starts with the shard's letter) go to the shard named by the
code's first letter (case-insensitive, as the server upper-cases codes); everything else (the pages,
``POST /api/rooms``, replays, leaderboards, static files) goes to any shard, since those are
answered from the shared database. A code whose letter no shard has goes to any shard too, which
answers 421 (not its room). Websockets get the upgrade headers and timeouts long enough for a
whole game; the players' addresses are passed on in ``X-Forwarded-For`` (start the shards with
``--forwarded-allow-ips`` naming the proxy). TLS is left to the reader (docs/online.md).

Usage: ``python -m ratscrew.server.nginx --listen 8080 A=127.0.0.1:8001 B=127.0.0.1:8002``
prints a complete ``nginx.conf``; ``--server-only`` prints only the ``http`` block's contents,
to include from an existing configuration.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ratscrew.server.shards import check_shard

ROUTED = r"^/(r|ws|api/rooms|api/lab/jobs)/"
"""The paths that name a room (the code follows) or a shard's lab job (its id follows)."""


def render_http(shards: Sequence[tuple[str, str]], listen: str) -> str:
    """What goes inside nginx's ``http`` block: an upstream per shard, the routing map and the
    server listening on ``listen`` (``8080``, ``127.0.0.1:8080``)."""
    if not shards:
        raise ValueError("at least one shard is needed")
    lines = ["# Rendered by ratscrew.server.nginx: route each room to the shard that owns it.", ""]
    for letter, address in shards:
        lines += [f"upstream ratscrew_{check_shard(letter)} {{", f"    server {address};",
                  "    keepalive 16;", "}"]
    lines += ["upstream ratscrew_any {"] + [f"    server {address};" for _, address in shards]
    lines += ["    keepalive 16;", "}", "",
              "# the shard of a room: the first letter of its code",
              "map $uri $ratscrew_upstream {", "    default ratscrew_any;"]
    lines += [f"    ~*{ROUTED}{letter.upper()} ratscrew_{letter.upper()};" for letter, _ in shards]
    lines += ["}", "",
              "map $http_upgrade $ratscrew_connection {", "    default upgrade;", "    ''      '';", "}",
              "",
              "server {",
              f"    listen {listen};",
              "    # TLS: add 'listen 443 ssl;' and the certificates here (see docs/online.md)",
              "    client_max_body_size 16k;",
              "    location / {",
              "        proxy_pass http://$ratscrew_upstream;",
              "        proxy_http_version 1.1;",
              "        proxy_set_header Upgrade $http_upgrade;",
              "        proxy_set_header Connection $ratscrew_connection;",
              "        proxy_set_header Host $http_host;",
              "        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
              "        proxy_set_header X-Forwarded-Proto $scheme;",
              "        proxy_connect_timeout 5s;",
              "        proxy_send_timeout 1h;",
              "        proxy_read_timeout 1h;   # a websocket stays open for a whole game",
              "        proxy_next_upstream error timeout;   # only before anything was sent",
              "    }",
              "}", ""]
    return "\n".join(lines)


def render(shards: Sequence[tuple[str, str]], listen: str, *, pid: str = "nginx.pid",
           prefix_paths: str = "") -> str:
    """A complete ``nginx.conf`` (foreground, logs on stderr, temporary files under
    ``prefix_paths``), for a container or a test; see `render_http` for the routing."""
    temp = "\n".join(f"    {name}_temp_path {prefix_paths}{name}_temp;"
                     for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    body = "\n".join("    " + line if line else "" for line in render_http(shards, listen).splitlines())
    return (f"daemon off;\nworker_processes auto;\npid {pid};\nerror_log stderr warn;\n\n"
            "events {\n    worker_connections 4096;\n}\n\n"
            f"http {{\n    access_log off;\n{temp}\n\n{body}\n}}\n")


def parse_shard(text: str) -> tuple[str, str]:
    """``A=127.0.0.1:8001`` as (letter, address)."""
    letter, _, address = text.partition("=")
    if not address:
        raise ValueError(f"{text!r}: give a shard as LETTER=HOST:PORT")
    return check_shard(letter), address


def main(argv: Sequence[str] | None = None) -> int:
    """Print the configuration for the shards given on the command line."""
    parser = argparse.ArgumentParser(prog="python -m ratscrew.server.nginx", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shards", nargs="+", metavar="LETTER=HOST:PORT")
    parser.add_argument("--listen", default="8080", help="nginx's listen directive (default 8080)")
    parser.add_argument("--server-only", action="store_true",
                        help="only the http block's contents, to include in an existing nginx.conf")
    args = parser.parse_args(argv)
    try:
        shards = [parse_shard(text) for text in args.shards]
    except ValueError as error:
        parser.error(str(error))
    sys.stdout.write(render_http(shards, args.listen) if args.server_only else render(shards, args.listen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
