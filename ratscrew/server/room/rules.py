"""The ``rules`` part of a ``room`` message, worked out once per ruleset.

A ``room`` message goes to a room's members on every join, leave, host command and game end,
and every few seconds while link estimates change; its ``rules`` part (the TOML, the
plain-English lines, whether the rules are their preset's, the patterns with examples) depends
on the ruleset alone, and took milliseconds to make (comparing with the preset, the TOML, an
example pile per pattern). Rulesets are frozen and hashable, so it is made once per distinct
ruleset and shared; nobody changes it (the publisher only encodes it).
"""

from __future__ import annotations

import functools

from ratscrew.protocol.server_messages import RulesInfo
from ratscrew.rulebook import explain, pattern_examples
from ratscrew.ruleset import Ruleset
from ratscrew.server.ladder.rated import rules_are_preset, rules_verdict

RULESETS_KEPT = 256
"""Distinct rulesets whose entries are kept (the presets, and the custom rules of open rooms)."""


@functools.lru_cache(maxsize=RULESETS_KEPT)
def rules_entry(rules: Ruleset) -> RulesInfo:
    """The ``rules`` object of a ``room`` message (docs/protocol.md): shared, not to be changed."""
    return {"name": rules.name, "summary": rules.summary, "toml": rules.to_toml(),
            "lines": explain(rules), "preset": rules_are_preset(rules),
            "unrated": rules_verdict(rules),  # issue 30: "custom rules (unrated)"
            "patterns": [{"name": p["name"], "text": p["text"], "example": p["example"]}
                         for p in pattern_examples(rules)]}
