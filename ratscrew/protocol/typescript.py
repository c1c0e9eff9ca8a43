"""The page's TypeScript declarations, generated from the protocol's Python types.

`declarations` reads the server's messages (the TypedDicts of
:mod:`ratscrew.protocol.server_messages`), the client's (the dataclasses of
:mod:`ratscrew.protocol.client_messages`) and the HTTP API's answers (the TypedDicts of
:mod:`ratscrew.protocol.http`) with ``typing.get_type_hints`` and writes one
TypeScript declaration per type: a ``Literal`` becomes a union of string literals, a
``NotRequired`` key (or a dataclass field with a default) an optional property, ``list``,
``dict``, ``None`` and unions what they are in TypeScript. ``python -m ratscrew.protocol
typescript`` prints them; the output is committed as ``ratscrew/web/js/protocol.d.ts``, which the
page's JSDoc types import (``import("./protocol").ServerMessage``), so ``tsc`` checks every field
name the page reads against the server's. A test holds the committed file to this output.

>>> print(typescript_type(list[int | None], {}))
(number | null)[]
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, NewType, NotRequired, get_args, get_origin, get_type_hints, is_typeddict

from ratscrew import events
from ratscrew.protocol import client_messages, http, server_messages

COMMAND = "python -m ratscrew.protocol typescript > ratscrew/web/js/protocol.d.ts"
"""How to write the declarations again after a change to the protocol's types."""

OPAQUE: dict[str, str] = {
    "PublicEvent": "{ kind: EventKind; at: number; seat: number | null; [field: string]: any }",
    "RulesetSettings": "{ name: string; summary: string; [setting: string]: SettingValue }",
}
"""What the protocol leaves to the engine, declared by hand: an event's public fields
(``Event.public_dict``; its ``kind`` is one of `EventKind`), and a ruleset's settings by name
(``Ruleset.to_dict``). The observation is declared field by field from its TypedDict
(`ratscrew.observation.Observation`), like every message."""


def event_kinds() -> list[str]:
    """Every engine event's ``kind``, from the event classes themselves (`ratscrew.events`)."""
    kinds = {cls.kind for _, cls in inspect.getmembers(events, inspect.isclass)
             if issubclass(cls, events.Event) and cls is not events.Event}
    return sorted(kinds)


def _named_aliases() -> dict[object, str]:
    """Type aliases the declarations name rather than spell out."""
    return {
        server_messages.ErrorCode: "ErrorCode",
        server_messages.Status: "Status",
        server_messages.HistoryEntry: "HistoryEntry",
        client_messages.Pace: "Pace",
        client_messages.Judging: "Judging",
        server_messages.Phase: "Phase",
        server_messages.SeatKind: "SeatKind",
        server_messages.NoticeCode: "NoticeCode",
        server_messages.NoteKind: "NoteKind",
        client_messages.OpenSeats: "OpenSeats",
        client_messages.ActKind: "ActKind",
        http.SettingValue: "SettingValue",
        http.SettingKind: "SettingKind",
        http.JobState: "JobState",
    }


def _literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def typescript_type(hint: object, named: dict[object, str],
                    found: Callable[[type], None] = lambda cls: None) -> str:
    """The TypeScript spelling of one Python type; ``found`` is told of each TypedDict met."""
    for alias, name in named.items():
        if hint == alias:
            return name
    if hint is type(None) or hint is None:
        return "null"
    if hint is int or hint is float:
        return "number"
    if hint is str:
        return "string"
    if hint is bool:
        return "boolean"
    if hint is Any or hint is object:
        return "any"
    if isinstance(hint, NewType):
        return hint.__name__
    if isinstance(hint, type) and is_typeddict(hint):
        found(hint)
        return hint.__name__
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return " | ".join(_literal(arg) for arg in args)
    if origin in (types.UnionType, typing.Union):
        return " | ".join(typescript_type(arg, named, found) for arg in args)
    if origin in (list, tuple) and args:
        item = typescript_type(args[0], named, found)
        return f"({item})[]" if " " in item else f"{item}[]"
    if origin is dict and len(args) == 2:
        return f"Record<{typescript_type(args[0], named, found)}, {typescript_type(args[1], named, found)}>"
    raise TypeError(f"no TypeScript for {hint!r}: teach ratscrew.protocol.typescript its spelling")


def _doc(cls: type, indent: str = "") -> list[str]:
    text = inspect.cleandoc(cls.__doc__ or "")
    if not text:
        return []
    lines = text.splitlines()
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in lines), f"{indent} */"]


def _interface(name: str, properties: list[tuple[str, bool, str]], cls: type) -> list[str]:
    out = [*_doc(cls), f"export interface {name} {{"]
    out += [f"  {key}{'' if required else '?'}: {spelled};" for key, required, spelled in properties]
    return [*out, "}", ""]


def _typed_dict(cls: type, named: dict[object, str], found: Callable[[type], None]) -> list[str]:
    # with postponed annotations, only the hints say which keys are NotRequired
    hints = get_type_hints(cls, include_extras=True)
    properties = []
    for key in cls.__annotations__:
        hint, required = hints[key], True
        if get_origin(hint) is NotRequired:
            hint, required = get_args(hint)[0], False
        properties.append((key, required, typescript_type(hint, named, found)))
    return _interface(cls.__name__, properties, cls)


def _client_message(cls: type, named: dict[object, str]) -> list[str]:
    hints = get_type_hints(cls)
    properties: list[tuple[str, bool, str]] = []
    wire_type = getattr(cls, "TYPE", None)
    if wire_type is not None:
        properties.append(("type", True, _literal(wire_type)))
    for field in dataclasses.fields(cls):
        key = field.metadata.get("wire", field.name)
        hint = hints[field.name]
        has_default = (field.default is not dataclasses.MISSING
                       or field.default_factory is not dataclasses.MISSING)
        if field.metadata.get("null") is False and get_origin(hint) in (types.UnionType, typing.Union):
            # None stands for a field left out, which may not be sent as null
            kept = [arg for arg in get_args(hint) if arg is not type(None)]
            hint = kept[0] if len(kept) == 1 else typing.Union[tuple(kept)]  # noqa: UP007
        properties.append((key, key == "type" or not has_default, typescript_type(hint, named)))
    return _interface(f"{cls.__name__}Message", properties, cls)


def declarations() -> str:
    """The whole ``protocol.d.ts`` (see the module docstring)."""
    named = _named_aliases()
    out = [
        "// The online protocol's messages (docs/protocol.md), generated from ratscrew/protocol/:",
        f"// do not edit; after changing the Python types run `{COMMAND}`.",
        "",
        "/** The kind of an engine event (`ratscrew.events`). */",
        f"export type EventKind = {' | '.join(_literal(kind) for kind in event_kinds())};",
        "",
    ]
    for name, spelled in OPAQUE.items():
        out += [f"export type {name} = {spelled};", ""]
    queue: list[type] = [*server_messages.SERVER_MESSAGES, *server_messages.SEEK_SERVER_MESSAGES]
    for alias, name in named.items():  # an alias of TypedDicts (HistoryEntry) declares them too
        out += [f"export type {name} = {typescript_type(alias, {}, queue.append)};", ""]
    done: set[type] = set()
    body: list[str] = []
    while queue:
        cls = queue.pop(0)
        if cls in done:
            continue
        done.add(cls)
        body += _typed_dict(cls, named, queue.append)
    out += body
    out += ["/** Every message the server sends on a room's websocket. */",
            "export type ServerMessage =",
            *(f"  | {cls.__name__}" for cls in server_messages.SERVER_MESSAGES), "  ;", ""]
    out += ["/** Every message the server sends on the quick-play websocket, /ws/seek. */",
            "export type SeekServerMessage =",
            *(f"  | {cls.__name__}" for cls in server_messages.SEEK_SERVER_MESSAGES), "  ;", ""]
    for cls in (*client_messages.CLIENT_MESSAGES, *client_messages.SEEK_CLIENT_MESSAGES):
        out += _client_message(cls, named)
    out += ["/** Every message a client sends on a room's websocket. */",
            "export type ClientMessage =",
            *(f"  | {cls.__name__}Message" for cls in client_messages.CLIENT_MESSAGES), "  ;", ""]
    out += ["/** Every message a client sends on the quick-play websocket, /ws/seek. */",
            "export type SeekClientMessage =",
            *(f"  | {cls.__name__}Message" for cls in client_messages.SEEK_CLIENT_MESSAGES), "  ;", ""]
    out += ["// The HTTP API's JSON answers (ratscrew/protocol/http.py).", ""]
    # every TypedDict of the module, so that a base (LabFigures) is declared as well as its uses
    queue = [*http.HTTP_ANSWERS, *(value for value in vars(http).values()
                                   if isinstance(value, type) and is_typeddict(value))]
    while queue:
        cls = queue.pop(0)
        if cls in done:
            continue
        done.add(cls)
        out += _typed_dict(cls, named, queue.append)
    return "\n".join(out).rstrip("\n") + "\n"
