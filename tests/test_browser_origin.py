"""The page under the strict policy, in real Chromium: with ``connect-src 'self'`` (no ``ws:``
or ``wss:`` to any host) and the server checking every POST's and websocket's ``Origin``, a
browser still creates a room from the home page and plays in it, both straight to the server
and through the nginx of the shipped deployment (``tests/test_deployment.py``'s path: two shards
on PostgreSQL behind ``deploy/nginx/ratscrew.conf``). A page on another origin cannot create a
room here.
"""

from __future__ import annotations

import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from browsing import CHROMIUM
from nginx import NginxProxy, shipped_routing
from postgres import free_port, unavailable
from serving import ServerProcess

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

sync_api = pytest.importorskip("playwright.sync_api")


def create_and_join(browser: Any, url: str) -> list[str]:
    """From the home page at ``url``: create a room, join it, see the lobby; the page's
    errors (console and CSP violations)."""
    context = browser.new_context()
    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(url + "/")
        page.wait_for_selector("[data-testid=rules] option[value=classic]", state="attached")
        page.click("[data-testid=create]")
        page.wait_for_url("**/r/*")
        page.fill("[data-testid=name]", "Ann")
        page.click("[data-testid=join]")
        page.wait_for_selector("[data-testid=join-panel]", state="hidden", timeout=15_000)
        page.wait_for_selector("[data-testid=lobby]:visible", timeout=15_000)
    finally:
        context.close()
    return errors


def test_the_page_connects_straight_to_the_server(browser: Any, tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "r.db") as server:
        assert create_and_join(browser, server.url) == []
        assert "refused a websocket" not in server.log.read_text()


def test_the_page_connects_through_the_shipped_nginx(browser: Any, fresh_database: str,
                                                     tmp_path: Path) -> None:
    ports = {"A": free_port(), "B": free_port()}
    shards = [ServerProcess(fresh_database, "--shard", letter, "--port", str(port),
                            log=tmp_path / f"shard-{letter}.log") for letter, port in ports.items()]
    proxy: NginxProxy | None = None
    try:
        for shard in shards:
            shard.start()
        try:
            proxy = NginxProxy(shipped_routing(list(ports.values())))
        except RuntimeError as error:
            unavailable(str(error))
        assert proxy is not None
        assert create_and_join(browser, proxy.url) == []
    finally:
        if proxy is not None:
            proxy.remove()
        for shard in shards:
            shard.kill(signal.SIGTERM)


def test_a_page_elsewhere_cannot_create_a_room(browser: Any, tmp_path: Path) -> None:
    """A page on another origin (here the server's own address by another name, so that the
    browser sends a foreign ``Origin``) posts a form and a fetch to ``/api/rooms``: refused."""
    with ServerProcess(tmp_path / "r.db") as server:
        context = browser.new_context(bypass_csp=True)  # the foreign page's own policy is its own
        page = context.new_page()
        foreign = server.url.replace("127.0.0.1", "localhost")
        page.goto(foreign + "/leaderboard")
        status = page.evaluate(
            """async (target) => {
                 const response = await fetch(target + "/api/rooms", {method: "POST", mode: "no-cors",
                   headers: {"content-type": "text/plain"}, body: '{"rules": "classic", "seats": 2}'});
                 return response.type;
               }""", server.url)
        context.close()
        assert status == "opaque"
        assert " created: " not in server.log.read_text()  # no room was made
        assert server.post("/api/rooms", {"rules": "classic", "seats": 2})["code"]
        assert " created: " in server.log.read_text()  # (as a room made is logged)
