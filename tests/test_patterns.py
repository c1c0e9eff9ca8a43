"""Every slap pattern, with a pile that shows it and one that only nearly does."""

import pytest

from ratscrew.cards import format_cards, parse_cards
from ratscrew.patterns import (
    PATTERN_DESCRIPTIONS,
    PATTERN_EXAMPLES,
    PATTERNS,
    PatternOptions,
    example_pile,
    find_slap,
)
from ratscrew.ruleset import PRESET_NAMES, Ruleset

FOUR = PatternOptions(run_length=4)
WRAP3 = PatternOptions(run_length=3, run_wraps=True)
CASES = [
    # pattern, pile that shows it (bottom -> top), pile that does not, options
    ("double", "3C 7H 7S", "7H 3C 7S", FOUR),
    ("sandwich", "7H 3C 7S", "7H 7S 3C", FOUR),
    ("triple", "2D 7H 7C 7S", "7H 7C 2D 7S", FOUR),
    ("top_bottom", "7H 2C 9D 7S", "2C 7H 9D 7S", FOUR),
    ("add_to_ten", "AS 9D", "KS 9D", FOUR),
    ("add_to_ten", "3C 7H", "5C 6H", FOUR),
    ("marriage", "QH KS", "QH JS", FOUR),
    ("marriage", "KH QS", "KH 2S QS", FOUR),
    ("divorce", "KH 5C QS", "KH QS 5C", FOUR),
    ("run", "4H 5C 6D 7S", "4H 5C 7D 6S", FOUR),
    ("run", "7S 6D 5C 4H", "7S 6D 5C 5H", FOUR),
    ("run", "JH QC KD AS", "QC KD AS 2S", FOUR),
    ("run", "AH 2C 3D 4S", "KH AC 2D 3S", FOUR),
    ("run", "KH AC 2D", "KH AC 3D", WRAP3),
    ("run", "2D AC KH", "2D AC QH", WRAP3),
    ("joker", "7H JK", "JK 7H", FOUR),
    ("sixty_nine", "6H 9C", "6H 8C", FOUR),
    ("sixty_nine", "9H 6C", "9H 9C 6S 2S", FOUR),
]


@pytest.mark.parametrize(("name", "shows", "does_not", "options"), CASES)
def test_pattern_positive_and_negative(name: str, shows: str, does_not: str, options: PatternOptions) -> None:
    assert PATTERNS[name](parse_cards(shows), options), f"{name} should show on {shows}"
    assert not PATTERNS[name](parse_cards(does_not), options), f"{name} should not show on {does_not}"


def test_every_pattern_has_cases() -> None:
    assert {case[0] for case in CASES} == set(PATTERNS)


def test_without_wrapping_a_run_cannot_go_around_the_corner() -> None:
    assert not PATTERNS["run"](parse_cards("KH AC 2D"), PatternOptions(run_length=3))
    assert not PATTERNS["run"](parse_cards("QH KC AD 2S"), FOUR)
    assert PATTERNS["run"](parse_cards("QH KC AD 2S"), PatternOptions(run_length=4, run_wraps=True))


def test_jokers_break_runs() -> None:
    assert not PATTERNS["run"](parse_cards("4H 5C JK 7S"), FOUR)


def test_empty_and_short_piles_show_nothing() -> None:
    for name, pattern in PATTERNS.items():
        assert not pattern([], WRAP3), name
    assert find_slap(parse_cards("7H"), tuple(PATTERNS)) is None


def test_first_named_pattern_is_reported() -> None:
    pile = parse_cards("7C 7H 7S")
    assert find_slap(pile, ("double", "triple")) == "double"
    assert find_slap(pile, ("triple", "double")) == "triple"
    assert find_slap(pile, ("sandwich",)) == "sandwich"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_teaching_example_shows_its_own_pattern_under_every_preset(preset: str) -> None:
    rules = Ruleset.preset(preset)
    for name in rules.slaps:
        pile = example_pile(name, rules.pattern_options)
        assert PATTERNS[name](pile, rules.pattern_options), f"{name}: {format_cards(pile)}"


def test_every_pattern_has_a_teaching_example() -> None:
    assert set(PATTERN_EXAMPLES) == set(PATTERNS) == set(PATTERN_DESCRIPTIONS)
    for name in PATTERNS:
        for length in (3, 4, 5):
            options = PatternOptions(run_length=length)
            assert PATTERNS[name](example_pile(name, options), options)
