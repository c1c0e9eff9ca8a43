"""The lab's HTTP routes: the ``/lab`` page, ``POST /api/lab`` and ``GET /api/lab/jobs/ID``
(see docs/protocol.md, "The lab"). The work itself happens in :mod:`ratscrew.server.lab.jobs`'s
worker process; these handlers only validate, queue and report.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import typing
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ratscrew.bots.profile import LEVELS
from ratscrew.patterns import PATTERN_DESCRIPTIONS, PATTERNS
from ratscrew.protocol.client_messages import MAX_RULES_TEXT, MAX_SEATS, MIN_SEATS, load_rules
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.http import FigureInfo, LabJobStarted, LabSetting, LabSettingsAnswer, RulesetSettings
from ratscrew.ruleset import PRESET_NAMES, Ruleset
from ratscrew.server.http.limits import limit_key
from ratscrew.server.lab.jobs import DEFAULT_GAMES, LabBusy, LabService
from ratscrew.sim.figures import FIGURES

WEB_DIR = Path(__file__).resolve().parents[2] / "web"


@dataclass(frozen=True)
class LabRequest:
    """A validated ``POST /api/lab`` body."""

    rules: Ruleset
    bots: tuple[str, ...]
    games: int


def parse_lab_request(data: object, max_games: int) -> LabRequest:
    """Validate a lab request; a problem is a `ValueError` naming the field.

    >>> parse_lab_request({"rules": "pagat", "players": 3, "bots": ["expert"]}, 5000).bots
    ('expert', 'expert', 'expert')
    >>> parse_lab_request({"games": 10**6}, 5000)
    Traceback (most recent call last):
    ...
    ValueError: games must be a whole number from 1 to 5000
    """
    if not isinstance(data, dict):
        raise ValueError("the body must be a JSON object")
    unknown = sorted(set(data) - {"rules", "players", "bots", "games"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}")
    rules_text = data.get("rules", "classic")
    if not isinstance(rules_text, str) or len(rules_text) > MAX_RULES_TEXT:
        raise ValueError(f"rules must be a preset name or TOML text of at most {MAX_RULES_TEXT} "
                         "characters")
    try:
        rules = load_rules(rules_text)
    except ProtocolError as error:
        raise ValueError(f"rules: {error}") from None
    players = _whole(data, "players", 4, MIN_SEATS, min(MAX_SEATS, rules.max_players))
    bots = data.get("bots", ["casual"])
    if (not isinstance(bots, list) or not bots
            or not all(isinstance(b, str) and b in LEVELS for b in bots)):
        raise ValueError(f"bots must be a list of bot levels ({', '.join(LEVELS)})")
    if len(bots) == 1:
        bots = bots * players
    elif len(bots) != players:
        raise ValueError(f"give one bot for every seat or one for all: {len(bots)} bots for "
                         f"{players} players")
    return LabRequest(rules, tuple(bots), _whole(data, "games", DEFAULT_GAMES, 1, max_games))


def _whole(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} must be a whole number from {low} to {high}")
    return value


HIDDEN_SETTINGS = ("name", "summary")
"""Settings the lab page does not offer: they describe the rules rather than change the game."""


def setting_texts() -> dict[str, str]:
    """Each ruleset setting's explanation, from the comment under it in `Ruleset` (the one
    home of what a setting means), in plain text; the face-card chances, which share one
    comment, get one each."""
    tree = ast.parse(inspect.getsource(Ruleset))
    body = tree.body[0].body  # type: ignore[attr-defined]
    texts: dict[str, str] = {}
    for statement, following in zip(body, [*body[1:], None], strict=True):
        if (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
                and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)):
            texts[statement.target.id] = _plain_words(following.value.value)
    for rank in ("jack", "queen", "king", "ace"):
        article = "an" if rank == "ace" else "a"
        texts.setdefault(f"{rank}_chances", f"Chances {article} {rank} gives the next player to "
                                             "answer with a face card; 0 makes it a number card.")
    return texts


def _plain_words(docstring: str) -> str:
    return re.sub(r"\s+", " ", docstring.replace("``", "")).strip()


@lru_cache(maxsize=1)
def lab_settings() -> LabSettingsAnswer:
    """``GET /api/lab/settings``: every setting the page offers (name, kind, choices, what it
    means), the slap patterns, each preset's values, and the report's figures (name, label,
    decimals, unit: :data:`ratscrew.sim.figures.FIGURES`)."""
    texts = setting_texts()
    hints = typing.get_type_hints(Ruleset)
    settings: list[LabSetting] = []
    for f in fields(Ruleset):
        if f.name in HIDDEN_SETTINGS:
            continue
        hint = hints[f.name]
        entry = LabSetting(name=f.name, text=texts.get(f.name, ""), kind="patterns")
        if typing.get_origin(hint) is Literal:
            entry["kind"], entry["choices"] = "choice", list(get_args(hint))
        elif hint is bool:
            entry["kind"] = "bool"
        elif hint is int:
            entry["kind"] = "int"
        settings.append(entry)
    return {
        "settings": settings,
        "patterns": [{"name": name, "text": PATTERN_DESCRIPTIONS.get(name, name)} for name in PATTERNS],
        "presets": [RulesetSettings({**Ruleset.preset(name).to_dict(), "name": name})
                    for name in PRESET_NAMES],
        "levels": list(LEVELS),
        "figures": [FigureInfo(name=figure.key, label=figure.label, digits=figure.digits,
                               unit=figure.unit) for figure in FIGURES],
        "max_games": None,
    }


async def settings_api(request: Request) -> JSONResponse:
    """``GET /api/lab/settings``."""
    answer = lab_settings().copy()  # the cached answer stays as it is
    answer["max_games"] = _lab(request).max_games
    return JSONResponse(answer)


def _lab(request: Request) -> LabService:
    service: LabService = request.app.state.lab
    return service


def _address(request: Request) -> str:
    return limit_key(request.client.host) if request.client else "unknown"


async def lab_page(request: Request) -> Response:
    """``GET /lab``: the house-rule lab."""
    return FileResponse(WEB_DIR / "lab.html", media_type="text/html")


async def start_lab_job(request: Request) -> JSONResponse:
    """``POST /api/lab``: queue a simulation; 202 with the job's id and where to poll it."""
    service = _lab(request)
    try:
        body = json.loads((await request.body()).decode("utf-8", errors="replace"))
        lab = parse_lab_request(body, service.max_games)
    except json.JSONDecodeError:
        return JSONResponse({"error": "the body must be JSON"}, status_code=400)
    except ValueError as error:
        return JSONResponse({"error": str(error)}, status_code=400)
    try:
        job = service.submit(_address(request), lab.rules, lab.bots, lab.games,
                             shard=getattr(request.app.state.server, "shard", None))
    except LabBusy as busy:
        return JSONResponse({"error": str(busy)}, status_code=busy.status,
                            headers={"retry-after": "30"} if busy.status == 503 else None)
    return JSONResponse(LabJobStarted(id=job.id, url=f"/api/lab/jobs/{job.id}", total=job.total),
                        status_code=202)


async def lab_job(request: Request) -> JSONResponse:
    """``GET /api/lab/jobs/ID``: a job's state, progress and report."""
    status = _lab(request).job_status(str(request.path_params["job_id"]))
    if status is None:
        return JSONResponse({"error": "no such simulation (finished ones are kept ten minutes)"},
                            status_code=404)
    return JSONResponse(status)


ROUTES = [
    Route("/lab", lab_page),
    Route("/api/lab", start_lab_job, methods=["POST"]),
    Route("/api/lab/settings", settings_api),
    Route("/api/lab/jobs/{job_id}", lab_job),
]
"""The lab's routes, for `ratscrew.server.app.create_app`."""
