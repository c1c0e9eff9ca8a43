"""docs/rules.md stays true: the coverage tables, the settings list and the examples match the code.

The coverage document promises that every seed rule is tested or explained. These checks keep
that promise from rotting: every test it names exists (and every seed scenario test is named),
every setting it quotes for a preset is that preset's value, every `Ruleset` setting is described
with its allowed values and default, and the custom ruleset example loads as described.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import tomllib
import typing
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

import pytest

from ratscrew.patterns import PATTERNS
from ratscrew.ruleset import SETTING_BOUNDS, Ruleset

TESTS = Path(__file__).resolve().parent
DOC = TESTS.parent / "docs" / "rules.md"
STATUSES = ("implemented", "setting", "interpretation", "not applicable")
CITATION = re.compile(r"`(test_[a-z0-9_]+\.py)::(test_[a-z0-9_]+)`")
QUOTED_SETTING = re.compile(r"`([a-z_]+) = ([^`]+)`")


@dataclass(frozen=True)
class RuleRow:
    """One row of a coverage table."""

    preset: str
    number: int
    rule: str
    status: str
    setting: str
    tests: str
    notes: str

    @property
    def citations(self) -> list[tuple[str, str]]:
        return CITATION.findall(self.tests)

    @property
    def quoted_settings(self) -> dict[str, Any]:
        """The ``key = value`` settings quoted in the setting cell, read as TOML."""
        return {key: tomllib.loads(f"{key} = {value}")[key]
                for key, value in QUOTED_SETTING.findall(self.setting)}


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


@cache
def rule_rows() -> tuple[RuleRow, ...]:
    """Every numbered row of every coverage table, with the preset its heading names."""
    rows = []
    preset: str | None = None
    for line in doc_text().splitlines():
        if line.startswith("#"):
            heading = re.search(r"preset `(\w+)`", line, flags=re.IGNORECASE)
            preset = heading.group(1) if heading else None
            continue
        if preset is not None and re.match(r"\| \d+ \|", line):
            number, rule, status, setting, tests, notes = cells(line)
            rows.append(RuleRow(preset, int(number), rule, status, setting, tests, notes))
    return tuple(rows)


@cache
def settings_rows() -> dict[str, list[str]]:
    """The rows of the "Every setting" table, by setting name."""
    section = doc_text().split("## 8. Every setting", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            row = cells(line)
            rows[row[0].strip("`")] = row
    return rows


@cache
def functions_of(path: Path) -> dict[str, ast.FunctionDef]:
    """The test functions defined at the top level of a test module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def is_xfail(function: ast.FunctionDef) -> bool:
    return any("xfail" in ast.unparse(decorator) for decorator in function.decorator_list)


def toml_text(value: Any) -> str:
    """A setting's value as it is written in TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return f'"{value}"'
    return "[" + ", ".join(toml_text(item) for item in value) + "]"


# --- the coverage tables ------------------------------------------------------------------------

def test_every_preset_has_a_coverage_table() -> None:
    assert {row.preset for row in rule_rows()} == set(Ruleset.presets())


def test_rows_are_numbered_in_order_and_have_a_known_status() -> None:
    for preset in Ruleset.presets():
        rows = [row for row in rule_rows() if row.preset == preset]
        assert [row.number for row in rows] == list(range(1, len(rows) + 1)), preset
        for row in rows:
            assert row.status in STATUSES, f"{preset} row {row.number}: {row.status!r}"
            assert row.rule, f"{preset} row {row.number} paraphrases no rule"


@pytest.mark.parametrize("status", ["implemented", "setting", "interpretation"])
def test_every_playable_rule_names_a_test(status: str) -> None:
    for row in rule_rows():
        if row.status == status:
            assert row.citations, f"{row.preset} row {row.number} names no test"


def test_every_interpretation_says_what_was_chosen() -> None:
    for row in rule_rows():
        if row.status == "interpretation":
            assert row.notes, f"{row.preset} row {row.number} does not explain its reading"


def test_every_rule_that_cannot_apply_says_why_and_names_no_test() -> None:
    for row in rule_rows():
        if row.status == "not applicable":
            assert row.notes and not row.citations and not row.setting, (
                f"{row.preset} row {row.number}")


def test_every_cited_test_exists() -> None:
    for file, name in CITATION.findall(doc_text()):
        path = TESTS / file
        assert path.exists(), f"docs/rules.md cites {file}, which does not exist"
        assert name in functions_of(path), f"docs/rules.md cites {file}::{name}, which does not exist"


def test_every_seed_scenario_test_is_cited() -> None:
    cited = set(CITATION.findall(doc_text()))
    paths = sorted(TESTS.glob("test_seed_*.py"))
    assert len(paths) == 5
    for path in paths:
        for name in functions_of(path):
            assert (path.name, name) in cited, f"{path.name}::{name} is not in docs/rules.md"


def test_xfail_tests_are_marked_and_listed_as_known_gaps() -> None:
    text = doc_text()
    gaps = text.split("## 9. Known gaps", 1)[1]
    for path in sorted(TESTS.glob("test_seed_*.py")):
        for name, function in functions_of(path).items():
            citation = f"`{path.name}::{name}`"
            if is_xfail(function):
                assert f"{citation} *(xfail)*" in text and citation in gaps, citation
            else:
                assert f"{citation} *(xfail)*" not in text and citation not in gaps, citation


def test_settings_quoted_for_a_preset_are_its_values() -> None:
    for row in rule_rows():
        if row.status not in ("implemented", "interpretation"):
            continue
        preset = Ruleset.preset(row.preset).to_dict()
        for key, value in row.quoted_settings.items():
            assert preset[key] == value, f"{row.preset} row {row.number}: {key} is {preset[key]!r}"


def test_settings_that_switch_a_rule_on_change_the_preset() -> None:
    for row in rule_rows():
        if row.status != "setting":
            continue
        preset = Ruleset.preset(row.preset)
        quoted = row.quoted_settings
        assert quoted, f"{row.preset} row {row.number} names no setting to turn on"
        variant = dataclasses.replace(preset, **quoted)  # also checks the values are allowed
        assert variant != preset, f"{row.preset} row {row.number}: the preset already does this"


# --- the settings list --------------------------------------------------------------------------

def test_every_ruleset_setting_is_described_in_file_order() -> None:
    assert list(settings_rows()) == [f.name for f in fields(Ruleset)]


def test_every_ruleset_field_name_appears_in_the_document() -> None:
    text = doc_text()
    for f in fields(Ruleset):
        assert f"`{f.name}`" in text, f.name


def test_each_setting_lists_its_allowed_values_and_default() -> None:
    hints = typing.get_type_hints(Ruleset)
    defaults = Ruleset().to_dict()
    for name, (_, allowed, default, meaning) in settings_rows().items():
        assert meaning, name
        assert default == f"`{toml_text(defaults[name])}`", f"{name}: default shown as {default}"
        hint = hints[name]
        if typing.get_origin(hint) is Literal:
            for choice in get_args(hint):
                assert f'`"{choice}"`' in allowed, f"{name}: {choice!r} is not listed"
        elif name == "slaps":
            for pattern in PATTERNS:
                assert f'`"{pattern}"`' in allowed, f"slaps: {pattern!r} is not listed"
        elif hint is bool:
            assert allowed == "`true`, `false`", name
        elif hint is int:
            low, high = SETTING_BOUNDS[name]
            assert allowed.startswith(f"whole number from {low:,} to {high:,}"), name
        else:
            assert allowed == "text", name


# --- the custom ruleset example -----------------------------------------------------------------

def test_the_custom_ruleset_example_is_northwest_with_the_five_second_rule() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", doc_text(), flags=re.DOTALL)
    assert len(blocks) == 1
    custom = Ruleset.from_toml(blocks[0])
    expected = dataclasses.replace(Ruleset.preset("northwest"), name=custom.name,
                                   summary=custom.summary, collect="slap", claim_window_ms=5000)
    assert custom == expected
