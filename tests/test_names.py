"""The name rules (`ratscrew.protocol.names`): what a name may be, and when two names are one."""

from __future__ import annotations

import pytest

from ratscrew.bots.profile import LEVELS
from ratscrew.protocol.names import (
    DEFAULT_IGNORABLE,
    MAX_NAME_LENGTH,
    NameRefused,
    bot_name,
    clean,
    name_key,
    same_name_as,
)


@pytest.mark.parametrize(("typed", "shown"), [
    ("  Ann  ", "Ann"), ("Ann   Lee", "Ann Lee"), ("\uff21nn", "Ann"), ("ﬀion", "ffion"),
    ("Zoë", "Zoë"), ("Zoe\u0308", "Zoë"), ("Nguyễn", "Nguyễn"), ("北京", "北京"), ("Ólafur", "Ólafur"),
    ("Пётр", "Пётр"), ("Σοφία", "Σοφία"), ("R2-D2", "R2-D2"), ("7", "7"), ("Anna 🃏", "Anna 🃏"),
])
def test_ordinary_names_in_any_script_are_taken_nfkc_normalised(typed: str, shown: str) -> None:
    assert clean(typed) == shown


@pytest.mark.parametrize("typed", [
    "Ann\ufe0f", "Ann\u034f", "A\u200bnn", "Ann\u202e", "\u2066Ann", "Ann\u00ad", "Ann\u3164",
    "Ann\u2800", "\u3164", "\u2800", "\u115f\u1160", "Ann\U000e0041", "Ann\U000e0100", "Ann\u180e",
    "Ann\ue000", "Ann\x07",
])
def test_invisible_format_and_blank_look_alike_characters_are_refused(typed: str) -> None:
    with pytest.raises(NameRefused, match="invisible"):
        clean(typed)


def test_every_default_ignorable_range_is_refused_at_both_ends() -> None:
    for low, high in DEFAULT_IGNORABLE:
        for code in (low, high):
            with pytest.raises(NameRefused):
                clean(f"Ann{chr(code)}")


@pytest.mark.parametrize("typed", ["", "   ", "\u0301\u0301\u0301", "\u20dd", "!!!", "-_-", "🃏"])
def test_a_name_needs_a_visible_letter_or_digit(typed: str) -> None:
    with pytest.raises(NameRefused, match="letter or digit"):
        clean(typed)


def test_a_stack_of_marks_on_one_letter_is_refused_but_accents_are_not() -> None:
    assert clean("A" + "\u0301\u0302\u0303\u0304") == "Á\u0302\u0303\u0304"
    with pytest.raises(NameRefused, match="marks on one letter"):
        clean("Z" + "\u0300\u0301\u0302\u0303\u0304\u0305")


def test_length_is_counted_after_normalisation() -> None:
    assert clean("x" * MAX_NAME_LENGTH) == "x" * MAX_NAME_LENGTH
    with pytest.raises(NameRefused, match=f"at most {MAX_NAME_LENGTH}"):
        clean("x" * (MAX_NAME_LENGTH + 1))
    with pytest.raises(NameRefused, match=f"at most {MAX_NAME_LENGTH}"):
        clean("\ufdfa" * 2)  # one character that NFKC spells out in 18


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_bot_names_are_reserved_however_written(level: str) -> None:
    for typed in (bot_name(level), bot_name(level, 2), bot_name(level).upper(),
                  bot_name(level).replace("o", "\u043e")):  # a Cyrillic о
        with pytest.raises(NameRefused, match="bot's name"):
            clean(typed)
    assert clean(level.capitalize()) == level.capitalize()  # the level alone is a fine name


@pytest.mark.parametrize("look_alike", [
    "Ann", "ANN", "ann", "\u0410nn",  # Cyrillic А
    "\u0391nn",  # Greek Alpha
    "\u0430nn",  # Cyrillic а
    "\uff21nn",  # full-width
])
def test_look_alikes_of_a_name_share_its_key(look_alike: str) -> None:
    assert name_key(clean(look_alike)) == name_key("Ann")


@pytest.mark.parametrize(("one", "other"), [
    ("B0b", "Bob"), ("Pa\u0443l", "Payl"), ("\u0455am", "sam"), ("Ρеtеr", "Peter"),
])
def test_latin_cyrillic_greek_and_digit_look_alikes_are_one_name(one: str, other: str) -> None:
    assert one != other and name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [
    ("Ann", "Anna"), ("José", "Jose"), ("Bob", "Rob"), ("Ann Lee", "AnnLee"), ("Zoë", "Zoe"),
])
def test_different_names_stay_different(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


def test_same_name_as_names_the_one_it_looks_like() -> None:
    assert same_name_as("\u0410nn", ["Bob", "Ann", "Cy"]) == "Ann"
    assert same_name_as("Anna", ["Bob", "Ann", "Cy"]) is None


@pytest.mark.parametrize("typed", [
    "علی\u200cرضا",  # Persian Alireza: a ZWNJ between two Arabic-script letters
    "می\u200cخواهم",
    "क्\u200dष",  # Devanagari: a ZWJ after a virama
    "अर्\u200cजुन",  # a ZWNJ after a virama
    "ශ්\u200dරී",  # Sinhala: a ZWJ after al-lakuna
])
def test_joiners_where_unicode_identifiers_allow_them_are_accepted(typed: str) -> None:
    assert clean(typed) == typed


@pytest.mark.parametrize("typed", ["Ann\u200c", "\u200dAnn", "A\u200cnn", "A\u200dnn",
                                   "علی\u200c", "\u200cرضا", "علی\u200cAnn"])
def test_joiners_outside_a_joining_context_are_refused(typed: str) -> None:
    with pytest.raises(NameRefused, match="invisible"):
        clean(typed)


def test_a_name_with_and_without_its_joiner_is_one_name() -> None:
    assert name_key("علی\u200cرضا") == name_key("علیرضا")


@pytest.mark.parametrize("typed", ["Expert bot #2", "Expert-bot", "[bot] Expert",
                                   "\U0001f916 Expert bot", "\U0001f916 Expert", "Expertbot",
                                   "bot: casual", "Casual_bot_3", "EXPERT B0T (2)"])
def test_bot_look_alikes_with_punctuation_symbols_or_a_robot_are_refused(typed: str) -> None:
    with pytest.raises(NameRefused, match="a bot's name"):
        clean(typed)


@pytest.mark.parametrize("typed", ["Bob the robot", "Expert Ann", "Botham", "bot", "Abbot"])
def test_names_that_merely_mention_bots_or_levels_are_accepted(typed: str) -> None:
    assert clean(typed) == typed


@pytest.mark.parametrize(("one", "other"), [
    ("Alice", "Alice."), ("Ann", "Ann!"), ("Ann", "Ann\u00a0."), ("Ann", "-Ann-"),
    ("Alice", "\u1d00lice"), ("Ann", "\u1d00nn"),
])
def test_trailing_punctuation_and_small_capitals_do_not_make_another_name(one: str,
                                                                          other: str) -> None:
    assert name_key(clean(other)) == name_key(one)
