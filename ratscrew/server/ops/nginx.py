"""The nginx configuration that fronts several shards (`ratscrew.server.ops.shards`): one function,
`render`, used by ``deploy/`` (whose ``nginx.conf`` is this rendered for its compose file),
by ``ratscrew serve --workers N --nginx-config FILE`` and by the tests, so they cannot drift.

Routing: ``/r/CODE``, ``/ws/CODE``, ``/api/rooms/CODE`` and ``/api/lab/jobs/ID`` (a lab job
runs in its shard's worker; its id starts with the shard's letter) go to the shard named by the
code's first letter (case-insensitive, as the server upper-cases codes); everything else (the pages,
``POST /api/rooms``, replays, leaderboards, static files) goes to any shard, since those are
answered from the shared database. A code whose letter no shard has goes to any shard too, which
answers "not found" (or 421 for a room that exists elsewhere: a routing mistake). Websockets
get the upgrade headers and timeouts long enough for a whole game; the players' addresses are
passed on in ``X-Forwarded-For`` (start the shards with ``--forwarded-allow-ips`` naming the
proxy). TLS is left to the reader (docs/online.md). ``/metrics`` is not passed on.

Usage: ``python -m ratscrew.server.ops.nginx --listen 8080 A=127.0.0.1:8001 B=127.0.0.1:8002``
prints a complete ``nginx.conf``; ``--server-only`` prints only the ``http`` block's contents,
to include from an existing configuration.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ratscrew.server.ops.shards import check_shard
from ratscrew.server.room.room import CODE_ALPHABET

ROUTED = r"^/(r|ws(?!/seek$)|api/rooms|api/lab/jobs)/"
"""The paths that name a room (the code follows) or a shard's lab job (its id follows);
``/ws/seek`` (quick play, any shard) is not a room, even with a shard lettered S."""


def render_routing(shards: Sequence[tuple[str, str]], *, resolver: str | None = None) -> str:
    """The ``http``-level half: where each shard is and which one a request goes to.

    Without ``resolver``: an upstream per shard (and one of them all, which passes a request a
    dead shard refused to the next one), with keepalive; their names are resolved once, when
    nginx starts (right for addresses such as ``127.0.0.1:8001``). With ``resolver`` (e.g.
    ``127.0.0.11``, Docker's DNS): no name is resolved at start, so ``nginx -t`` and a start
    pass while a shard is down, and every request's shard name, held in a variable, is looked
    up again through ``resolver`` as it changes (a shard container that comes back with a new
    address is found): a room's requests go to its shard, the others to a shard chosen per
    request (``split_clients``); while a shard is down, its share of those fails until it is
    back, which the supervisor or the container's restart policy sees to in seconds."""
    if not shards:
        raise ValueError("at least one shard is needed")
    lines = ["# Rendered by ratscrew.server.ops.nginx: route each room to the shard that owns it.", ""]
    checked = [(check_shard(letter), address) for letter, address in shards]
    if resolver is None:
        for letter, address in checked:
            lines += [f"upstream ratscrew_{letter} {{", f"    server {address};", "    keepalive 16;", "}"]
        targets = {letter: f"ratscrew_{letter}" for letter, _ in checked}
    else:
        lines += ["# every shard's name is looked up as requests need it (valid=10s), never only at",
                  "# start: nginx starts while a shard is down, and finds a shard that moved",
                  f"resolver {resolver} valid=10s ipv6=off;"]
        targets = dict(checked)
    if resolver is None:
        lines += ["upstream ratscrew_any {"] + [f"    server {address};" for _, address in checked]
        lines += ["    keepalive 16;", "}", ""]
        default = "ratscrew_any"
    else:
        lines += ["# a request for no room in particular: a shard chosen per request",
                  "split_clients $request_id $ratscrew_any {"]
        share = f"{100 / len(checked):.2f}".rstrip("0").rstrip(".")
        lines += [f"    {share}% {address};" for _, address in checked[:-1]]
        lines += [f"    * {checked[-1][1]};", "}", ""]
        lines += ["# ... and the next one, if that one does not answer",
                  "map $ratscrew_any $ratscrew_any_next {", f"    default {checked[0][1]};"]
        lines += [f"    {address} {checked[(n + 1) % len(checked)][1]};"
                  for n, (_, address) in enumerate(checked)]
        lines += ["}", ""]
        default = "$ratscrew_any"
    lines += ["# the shard of a room: the first letter of its code",
              "map $uri $ratscrew_upstream {", f"    default {default};"]
    lines += [f"    ~*{ROUTED}{letter} {targets[letter]};" for letter, _ in checked]
    lines += ["}", "",
              "# where a request goes when its shard did not answer: a room's nowhere else (502);",
              "# one for no room in particular to the next shard (with upstreams, nginx did that)",
              "map $uri $ratscrew_retry {"]
    if resolver is None:
        lines += ['    default "";']
    else:
        lines += ["    default $ratscrew_any_next;", f'    ~*{ROUTED} "";']
    lines += ["}", "",
              "map $http_upgrade $ratscrew_connection {", "    default upgrade;", "    ''      '';", "}",
              "", ""]
    return "\n".join(lines)


PROXYING = [
    "    proxy_http_version 1.1;",
    "    proxy_set_header Upgrade $http_upgrade;",
    "    proxy_set_header Connection $ratscrew_connection;",
    "    proxy_set_header Host $http_host;",
    "    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
    "    proxy_set_header X-Forwarded-Proto $scheme;",
    "    proxy_connect_timeout 5s;",
    "    proxy_send_timeout 1h;",
    "    proxy_read_timeout 1h;   # a websocket stays open for a whole game",
]
"""How both locations pass a request on."""


def render_locations() -> str:
    """The ``server``-level half: the locations that pass requests on (see `render_routing`).
    ``/metrics`` is not passed on: it is for monitoring from inside (docs/online.md)."""
    return "\n".join([
        "# Rendered by ratscrew.server.ops.nginx: include inside the server block.",
        "location = /metrics {",
        "    return 404;   # scraped from inside, straight from each shard",
        "}",
        "location / {",
        "    proxy_pass http://$ratscrew_upstream;",
        *PROXYING,
        "    proxy_next_upstream error timeout;   # only before anything was sent",
        "    error_page 502 504 = @ratscrew_retry;",
        "}",
        "location @ratscrew_retry {",
        "    if ($ratscrew_retry = \"\") {",
        "        return 502;",
        "    }",
        "    proxy_pass http://$ratscrew_retry;",
        *PROXYING,
        "}", ""])


def render_server(listen: str, *, include: str | None = None) -> str:
    """The ``server`` block: listening on ``listen``, with the locations inline or, given
    ``include`` (a path), included from the file `render_locations` wrote (then this block is
    the operator's to edit: TLS, names, more listens)."""
    if include is not None:
        body = [f"    include {include};"]
    else:
        body = ["    " + line if line else "" for line in render_locations().splitlines()[1:]]
    return "\n".join([
        "server {",
        f"    listen {listen};",
        "    # TLS: add 'listen 443 ssl;' and the certificates here (see docs/online.md)",
        "    client_max_body_size 16k;",
        *[line for line in body if line],
        "}", ""])


def render_http(shards: Sequence[tuple[str, str]], listen: str, *, resolver: str | None = None) -> str:
    """What goes inside nginx's ``http`` block: `render_routing` and a server listening on
    ``listen`` (``8080``, ``127.0.0.1:8080``) with the locations inline."""
    return render_routing(shards, resolver=resolver) + render_server(listen)


def write_split(path: Path, shards: Sequence[tuple[str, str]], listen: str) -> list[str]:
    """``serve --nginx-config PATH``: the routing in ``PATH`` (``http`` level) and the locations
    in ``PATH-locations.conf``, both written again at every start, and a server block that
    includes them in ``PATH-server.conf``, written only when it is not there: it is the
    operator's to edit, and is never overwritten. What was done, one line per file."""
    locations = path.with_name(path.stem + "-locations.conf")
    server = path.with_name(path.stem + "-server.conf")
    path.write_text(render_routing(shards))
    locations.write_text(render_locations())
    said = [f"wrote {path} (include it in nginx's http block)",
            f"wrote {locations} (the server block includes it)"]
    if server.exists():
        said.append(f"kept {server} (yours to edit)")
    else:
        server.write_text(f"# Yours to edit (listen, server_name, TLS); ratscrew never overwrites it.\n"
                          f"# Include it in nginx's http block after {path.name}.\n"
                          + render_server(listen, include=str(locations.resolve())))
        said.append(f"wrote {server} (yours to edit; include it in the http block too)")
    return said


def render(shards: Sequence[tuple[str, str]], listen: str, *, pid: str = "nginx.pid",
           prefix_paths: str = "", resolver: str | None = None) -> str:
    """A complete ``nginx.conf`` (foreground, logs on stderr, temporary files under
    ``prefix_paths``), for a container or a test; see `render_http` for the routing."""
    temp = "\n".join(f"    {name}_temp_path {prefix_paths}{name}_temp;"
                     for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    http = render_http(shards, listen, resolver=resolver)
    body = "\n".join("    " + line if line else "" for line in http.splitlines())
    return (f"daemon off;\nworker_processes auto;\npid {pid};\nerror_log stderr warn;\n\n"
            "events {\n    worker_connections 4096;\n}\n\n"
            f"http {{\n    access_log off;\n{temp}\n\n{body}\n}}\n")


def parse_shard(text: str) -> tuple[str, str]:
    """``A=127.0.0.1:8001`` as (letter, address)."""
    letter, _, address = text.partition("=")
    if not address:
        raise ValueError(f"{text!r}: give a shard as LETTER=HOST:PORT")
    try:
        return check_shard(letter), address
    except ValueError:
        raise ValueError(f"{text!r}: {letter!r} is not a room-code letter; use one of "
                         f"{CODE_ALPHABET}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Print the configuration for the shards given on the command line."""
    parser = argparse.ArgumentParser(prog="python -m ratscrew.server.ops.nginx", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shards", nargs="+", metavar="LETTER=HOST:PORT")
    parser.add_argument("--listen", default="8080", help="nginx's listen directive (default 8080)")
    parser.add_argument("--server-only", action="store_true",
                        help="only the http block's contents, to include in an existing nginx.conf")
    parser.add_argument("--resolver", default=None, metavar="ADDRESS",
                        help="look shard names up again as they change with this DNS server "
                             "(127.0.0.11 under Docker) instead of once at nginx's start")
    args = parser.parse_args(argv)
    try:
        shards = [parse_shard(text) for text in args.shards]
    except ValueError as error:
        parser.error(str(error))
    letters = [letter for letter, _ in shards]
    twice = sorted({letter for letter in letters if letters.count(letter) > 1})
    if twice:  # two upstreams of one name: nginx would refuse the file
        parser.error(f"shard {', '.join(twice)} given twice: one address per letter (a room lives "
                     "in exactly one process)")
    if args.server_only:
        sys.stdout.write(render_http(shards, args.listen, resolver=args.resolver))
    else:
        sys.stdout.write(render(shards, args.listen, resolver=args.resolver))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
