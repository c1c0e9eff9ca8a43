"""One home for each pattern's facts: the registry of ratscrew/patterns.py, and everything that
derives from it (the engine's predicates, the descriptions and examples players read, the bots'
difficulty table, the compiled kernel's codes) agreeing with it."""

import random
import re
from pathlib import Path

import numpy as np
import pytest

from ratscrew.bots.profile import CLAIM_DIFFICULTY, LEVELS, PATTERN_DIFFICULTY
from ratscrew.cards import Card, format_cards, parse_cards, standard_deck
from ratscrew.patterns import (
    PATTERN_DESCRIPTIONS,
    PATTERN_EXAMPLES,
    PATTERN_FACTS,
    PATTERNS,
    PatternOptions,
    example_pile,
)
from ratscrew.rulebook import presets_allowing
from ratscrew.ruleset import Ruleset
from ratscrew.sim.kernel import kernel_limits
from ratscrew.sim.kernel_compiled import (
    C_CHANCES,
    C_PATTERNS,
    PATTERN_CODES,
    R_RUN_LENGTH,
    R_RUN_WRAPS,
    pattern_shown,
)


def test_the_tables_players_and_the_engine_read_are_the_registrys() -> None:
    assert list(PATTERNS) == list(PATTERN_DESCRIPTIONS) == list(PATTERN_EXAMPLES) == list(PATTERN_FACTS)
    for name, facts in PATTERN_FACTS.items():
        assert facts.name == name
        assert PATTERNS[name] is facts.shows
        assert PATTERN_DESCRIPTIONS[name] == facts.description
        assert PATTERN_EXAMPLES[name] == facts.example


def test_the_bots_difficulty_table_is_the_registrys_and_the_claims() -> None:
    registered = {name: facts.difficulty for name, facts in PATTERN_FACTS.items()}
    assert {**registered, "claim": CLAIM_DIFFICULTY} == PATTERN_DIFFICULTY
    casual = LEVELS["casual"]
    # a harder pattern is missed more often: a run (3.0) more than a double (1.0)
    assert casual.miss_chance("double") == pytest.approx(casual.miss)
    assert casual.miss_chance("run") == pytest.approx(1 - (1 - casual.miss) ** 3.0)


def test_the_kernels_codes_are_the_registrys_one_each_and_dense() -> None:
    assert {name: facts.kernel_code for name, facts in PATTERN_FACTS.items()} == PATTERN_CODES
    # the kernel sizes its tables by the number of codes (misses by seat and code, the ruleset's
    # pattern list in `conf`): the codes are 0, 1, ... with none left out
    assert sorted(PATTERN_CODES.values()) == list(range(len(PATTERN_FACTS)))
    assert len(PATTERN_CODES) <= C_CHANCES - C_PATTERNS  # room for them all in `conf`


def _kernel_shows(name: str, pile: list[Card], options: PatternOptions) -> bool:
    """The compiled kernel's verdict on ``pile`` for pattern ``name``, by its registry code."""
    conf = np.zeros(C_PATTERNS + len(PATTERN_CODES), dtype=np.int64)
    conf[R_RUN_LENGTH] = options.run_length
    conf[R_RUN_WRAPS] = int(options.run_wraps)
    live = np.zeros(max(1, len(pile)), dtype=np.uint8)
    live[:len(pile)] = [int(card.rank) for card in pile]
    return bool(pattern_shown(np.int64(PATTERN_FACTS[name].kernel_code), live, np.int64(len(pile)), conf))


@pytest.mark.parametrize("name", list(PATTERN_FACTS))
def test_the_compiled_kernel_judges_each_code_as_the_registrys_predicate(name: str) -> None:
    shows = PATTERN_FACTS[name].shows
    options = PatternOptions()
    example = example_pile(name, options)
    assert shows(example, options) and _kernel_shows(name, example, options)
    rng = random.Random(name)
    deck = standard_deck(jokers=True)
    piles = [parse_cards("7H 7S"), parse_cards("7H 3C 7S"), parse_cards("KH QS"), parse_cards("6H 9C"),
             parse_cards("QH KC AD 2S"), []]
    piles += [rng.sample(deck, rng.randint(1, 7)) for _ in range(3000)]
    for options in (PatternOptions(), PatternOptions(run_length=3, run_wraps=True)):
        for pile in piles:
            assert _kernel_shows(name, pile, options) == shows(pile, options), (
                f"{name} on {format_cards(pile)} with {options}")


def test_a_pattern_the_kernel_does_not_know_is_a_limit_it_names() -> None:
    # every registered pattern has a kernel code, so every preset runs in the kernel
    for preset in Ruleset.presets():
        assert not any("slap patterns" in reason
                       for reason in kernel_limits(Ruleset.preset(preset), [LEVELS["casual"]] * 2))


def test_which_presets_allow_a_pattern_is_read_from_the_presets() -> None:
    assert presets_allowing("double") == [p for p in Ruleset.presets() if "double" in Ruleset.preset(p).slaps]
    assert "classic" in presets_allowing("sandwich") and "pagat" not in presets_allowing("sandwich")
    assert presets_allowing("divorce") == []  # no preset slaps a divorce
    with pytest.raises(ValueError, match="unknown slap pattern 'wedding'"):
        presets_allowing("wedding")


def test_the_bots_guide_quotes_the_registrys_difficulties() -> None:
    text = " ".join((Path(__file__).parent.parent / "docs" / "bots.md").read_text().split())
    quoted = text[text.index("which `PATTERN_DIFFICULTY` is read from:"):].split("(and")[0]
    said = {name.replace("-", "_"): float(value)
            for names, value in re.findall(r"([a-z-]+(?: and [a-z-]+)?) (\d\.\d)", quoted)
            for name in names.split(" and ")}
    assert said == {name: facts.difficulty for name, facts in PATTERN_FACTS.items()}
