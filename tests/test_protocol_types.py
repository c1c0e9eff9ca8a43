"""The protocol's types (``ratscrew.protocol``) and what is made from them: the page's
TypeScript declarations (``ratscrew/web/js/protocol.d.ts``) and the messages docs/protocol.md
describes."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import get_args, get_type_hints, is_typeddict

from ratscrew.protocol import client_messages, server_messages
from ratscrew.protocol.typescript import COMMAND, declarations

ROOT = Path(__file__).resolve().parent.parent
DECLARATIONS = ROOT / "ratscrew" / "web" / "js" / "protocol.d.ts"


def test_the_committed_typescript_declarations_are_the_generators_output() -> None:
    committed = DECLARATIONS.read_text(encoding="utf-8")
    assert committed == declarations(), (
        f"ratscrew/web/js/protocol.d.ts is not what the protocol's Python types make: run `{COMMAND}`")


def test_the_command_prints_the_declarations() -> None:
    printed = subprocess.run([sys.executable, "-m", "ratscrew.protocol", "typescript"], check=True,
                             capture_output=True, text=True, cwd=ROOT).stdout
    assert printed == declarations()
    assert "export type ServerMessage =" in printed and "export type ClientMessage =" in printed


def test_every_declared_name_is_declared_once_and_the_observation_is_typed_field_by_field() -> None:
    text = declarations()
    names = re.findall(r"^export (?:type|interface) (\w+)", text, flags=re.MULTILINE)
    assert [name for name in set(names) if names.count(name) > 1] == []
    observation = text[text.index("export interface Observation {"):]
    assert "  collection: CollectionView | null;" in observation[:observation.index("\n}")]
    assert "Observation = {" not in text  # no catch-all alias that would let any field through


def test_the_page_is_type_checked_with_the_declarations_themselves() -> None:
    config = (ROOT / "tsconfig.json").read_text(encoding="utf-8")
    assert "skipLibCheck" not in config  # a .d.ts the checker skips could hide a wrong declaration


def test_the_declarations_spell_the_wire_not_the_python() -> None:
    text = declarations()
    move_seat = text[text.index("export interface MoveSeatMessage"):]
    assert move_seat[:move_seat.index("}")].splitlines()[1:] == [
        '  type: "move_seat";', "  from: number;", "  to: number;"]
    act = text[text.index("export interface ActMessage"):]
    assert "  type: ActKind;" in act[:act.index("}")]
    room = text[text.index("export interface RoomMessage"):]
    assert "  you?: YouInfo;" in room[:room.index("}")]  # NotRequired: the public summary has none


# ---------------------------------------------------------------------------------- the docs

DOCS = ROOT / "docs" / "protocol.md"


def _section(text: str, heading: str, until: str) -> str:
    """The text of docs/protocol.md from ``heading`` (a whole line) to ``until``."""
    start = text.index(f"\n{heading}\n")
    return text[start:text.index(f"\n{until}\n", start)]


def _named(text: str) -> set[str]:
    """Every name the text shows as code: the words of its `code` spans and code blocks, and
    the keys of its JSON examples."""
    spans = re.findall(r"```.*?```|`[^`]+`", text, re.S)
    return {word for span in spans for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}


def _fields(cls: type, path: str = "") -> list[str]:
    """Every field of a TypedDict, nested ones as ``parent.field`` (a whole message nested in
    another, such as a history entry's ``judgement``, is documented where it is sent)."""
    found = []
    for key, hint in get_type_hints(cls).items():
        found.append(f"{path}{key}")
        for inner in _inner_typed_dicts(hint):
            if inner not in server_messages.SERVER_MESSAGES:
                found += _fields(inner, f"{path}{key}.")
    return found


def _inner_typed_dicts(hint: object) -> list[type]:
    if isinstance(hint, type) and is_typeddict(hint):
        return [hint]
    return [inner for arg in get_args(hint) for inner in _inner_typed_dicts(arg)]


def _wire_type(cls: type) -> str:
    return str(getattr(cls, "TYPE", None) or "")


def test_every_server_message_and_field_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    part = _section(text, "## Server → client", "## Errors")
    headings = re.findall(r"^### (.+)$", part, re.M)
    documented = {name for heading in headings for name in re.findall(r"`([a-z_]+)`", heading)}
    types = {get_type_hints(cls)["type"].__args__[0]: cls for cls in server_messages.SERVER_MESSAGES}
    assert documented == set(types), (
        "docs/protocol.md, 'Server → client': a heading per message type (`type`), none that the "
        f"types do not know; missing {sorted(set(types) - documented)}, "
        f"unknown {sorted(documented - set(types))}")
    missing = []
    for heading in headings:
        body = _section(part + "\n### end\n", f"### {heading}", "### end" if heading == headings[-1]
                        else f"### {headings[headings.index(heading) + 1]}")
        names = _named(body)
        for kind in re.findall(r"`([a-z_]+)`", heading):
            missing += [f"{kind}: {field}" for field in _fields(types[kind])
                        if field.rsplit(".", 1)[-1] not in names]
    assert not missing, f"fields docs/protocol.md does not show in their message's section: {missing}"


def test_every_client_message_and_field_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    table = _section(text, "## Client → server", "### Seating")
    rows = {match[0]: match[1] for match in re.findall(r"^\| `([a-z_]+)` \| ([^|]*) \|", table, re.M)}
    kinds: dict[str, type] = {}
    for cls in client_messages.CLIENT_MESSAGES:
        if cls is client_messages.Act:
            kinds.update({kind: cls for kind in get_args(client_messages.ActKind)})
        else:
            kinds[_wire_type(cls)] = cls
    assert set(rows) == set(kinds), (
        "docs/protocol.md, 'Client → server': a table row per message type; missing "
        f"{sorted(set(kinds) - set(rows))}, unknown {sorted(set(rows) - set(kinds))}")
    missing = [f"{kind}: {field.metadata.get('wire', field.name)}" for kind, cls in kinds.items()
               for field in dataclasses.fields(cls) if field.metadata.get("wire") != "type"
               and field.metadata.get("wire", field.name) not in _named(rows[kind])]
    assert not missing, f"fields the client table of docs/protocol.md does not list: {missing}"


def test_the_protocol_and_the_terminal_client_import_nothing_of_the_server() -> None:
    modules = ["ratscrew.protocol", "ratscrew.protocol.typescript", "ratscrew.client.session",
               "ratscrew.client.saved", "ratscrew.commands.join", "ratscrew.tui.online"]
    found = subprocess.run(
        [sys.executable, "-c", f"import sys; import {', '.join(modules)}; "
         "print(sorted(m for m in sys.modules if m.startswith('ratscrew.server')))"],
        capture_output=True, text=True, check=True, cwd=ROOT)
    assert found.stdout.strip() == "[]"


def test_the_quick_play_messages_are_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    part = _section(text, "## Quick play: `/ws/seek`", "## Limits")
    for cls in server_messages.SEEK_SERVER_MESSAGES:
        kind = get_type_hints(cls)["type"].__args__[0]
        if kind == "error":
            continue  # documented with the room's messages
        body = part[part.index(f"### `{kind}`"):]
        missing = [field for field in _fields(cls) if field.rsplit(".", 1)[-1] not in _named(body)]
        assert not missing, f"{kind}: fields docs/protocol.md does not show: {missing}"
    rows = {match[0]: match[1] for match in re.findall(r"^\| `([a-z_]+)` \| ([^|]*) \|", part, re.M)}
    assert set(rows) == {_wire_type(cls) for cls in client_messages.SEEK_CLIENT_MESSAGES}
    missing = [f"{kind}: {field.name}" for kind, cls in
               ((_wire_type(cls), cls) for cls in client_messages.SEEK_CLIENT_MESSAGES)
               for field in dataclasses.fields(cls) if field.name not in _named(rows[kind])]
    assert not missing, f"seek fields the quick play table does not list: {missing}"
    codes = set(get_args(server_messages.ErrorCode))
    errors = _section(text, "## Errors", "## Quick play: `/ws/seek`")
    assert codes <= _named(errors), f"error codes not in the Errors table: {codes - _named(errors)}"
