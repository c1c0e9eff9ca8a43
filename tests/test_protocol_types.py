"""The protocol's types (``ratscrew.protocol``) and what is made from them: the page's
TypeScript declarations (``ratscrew/web/js/protocol.d.ts``) and the messages docs/protocol.md
describes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_the_declarations_spell_the_wire_not_the_python() -> None:
    text = declarations()
    move_seat = text[text.index("export interface MoveSeatMessage"):]
    assert move_seat[:move_seat.index("}")].splitlines()[1:] == [
        '  type: "move_seat";', "  from: number;", "  to: number;"]
    act = text[text.index("export interface ActMessage"):]
    assert "  type: ActKind;" in act[:act.index("}")]
    room = text[text.index("export interface RoomMessage"):]
    assert "  you?: YouInfo;" in room[:room.index("}")]  # NotRequired: the public summary has none
