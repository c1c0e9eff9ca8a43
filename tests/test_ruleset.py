"""Rulesets: presets, TOML in and out, validation that names the bad key."""

import dataclasses
from pathlib import Path

import pytest

from ratscrew.cards import Rank
from ratscrew.engine import Game
from ratscrew.ruleset import PRESET_NAMES, SETTING_BOUNDS, Ruleset, RulesetError


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_loads_and_round_trips_through_toml(name: str) -> None:
    rules = Ruleset.preset(name)
    assert rules.name == name
    assert Ruleset.from_toml(rules.to_toml()) == rules


GUIDE_ORDER = ("classic", "northwest", "pagat", "ratscrew", "paranoid", "bmn")


def test_presets_are_listed_in_the_guide_order() -> None:
    # A preset added later (a file in ratscrew/presets/) may come anywhere; the guide's keep their order.
    assert tuple(name for name in Ruleset.presets() if name in GUIDE_ORDER) == GUIDE_ORDER


def test_every_file_in_the_presets_folder_is_a_preset_named_like_its_file() -> None:
    folder = Path(__file__).parent.parent / "ratscrew" / "presets"
    files = sorted(folder.glob("*.toml"))
    assert len(files) == len(Ruleset.presets())
    for path in files:
        name = path.stem.partition("-")[2] if path.stem[:1].isdigit() else path.stem
        assert name in Ruleset.presets()
        assert Ruleset.from_file(path) == Ruleset.preset(name) and Ruleset.preset(name).name == name


def test_a_numbered_preset_file_is_listed_in_its_place(tmp_path: Path) -> None:
    from ratscrew.ruleset import _preset_name, _preset_order

    files = ["60-bmn.toml", "house.toml", "15-ours.toml", "10-classic.toml"]
    assert [_preset_name(f) for f in sorted(files, key=_preset_order)] == [
        "classic", "ours", "bmn", "house"]


def test_unknown_preset_lists_the_choices() -> None:
    with pytest.raises(RulesetError, match="choose one of classic, northwest"):
        Ruleset.preset("vegas")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('tie_policy = "fastest"',
         "tie_policy: 'fastest' is not allowed; choose one of earliest, void, random"),
        ('slaps = ["double", "bogus"]', "slaps: unknown pattern 'bogus'; choose from double, sandwich"),
        ("misslap_cards = -1", "misslap_cards: must not be negative"),
        ('misslap_cards = "three"', "misslap_cards: expected a whole number"),
        ("jokers = 1", "jokers: expected true or false"),
        ("colour = 3", "unknown setting 'colour'; known settings are: name, summary"),
        ("run_length = 1", "run_length: must be from 2 to 13, got 1"),
        ("grace_ms = 1000000000000000000000000000000",
         "grace_ms: must be from 0 to 3600000, got a number of 31 digits"),
        ("max_players = 55", "max_players: must be from 2 to 54, got 55"),
        ("grace_ms = " + "9" * 5000, "not valid TOML: a number is far too long"),
        ("slaps = [", "not valid TOML"),
        ('misslap_penalty = "burn"\nmisslap_cards = 0',
         "misslap_cards: a burn penalty needs at least 1 card"),
        ("jokers = false\njoker_chances = 4",
         "joker_chances: the rules play without jokers (jokers = false)"),
    ],
)
def test_validation_errors_name_the_key_and_the_allowed_values(toml: str, message: str) -> None:
    with pytest.raises(RulesetError) as error:
        Ruleset.from_toml(toml)
    assert message in str(error.value)


def test_a_name_that_already_says_rules_is_not_said_twice() -> None:
    assert Ruleset.preset("northwest").title == "northwest rules"
    assert Ruleset(name="our kitchen rules").title == "our kitchen rules"
    assert Ruleset(name="House Rules").title == "House Rules"


def test_missing_keys_take_defaults() -> None:
    assert Ruleset.from_toml('name = "mine"') == Ruleset(name="mine")


def test_custom_ruleset_by_replace_plays() -> None:
    rules = dataclasses.replace(Ruleset.preset("classic"), slaps=("double", "marriage"))
    game = Game(rules, hands=["KH 2C", "QS 3D"], leader=0)
    game.play(0, at=0)
    game.play(1, at=100)
    events = game.slap(0, at=300)
    assert [e.kind for e in events][:2] == ["slap_won", "pile_won"]
    assert events[0].to_dict()["pattern"] == "marriage"


def test_replace_is_validated_too() -> None:
    with pytest.raises(RulesetError, match="slaps: unknown pattern"):
        dataclasses.replace(Ruleset.preset("classic"), slaps=("doubles",))


def test_files_load_and_errors_name_the_file(tmp_path: Path) -> None:
    good = tmp_path / "house.toml"
    good.write_text('name = "house"\nslaps = ["double", "sixty_nine"]\n')
    assert Ruleset.load(str(good)).slaps == ("double", "sixty_nine")
    bad = tmp_path / "broken.toml"
    bad.write_text("grace_ms = fast\n")
    with pytest.raises(RulesetError, match=r"broken\.toml: not valid TOML"):
        Ruleset.load(str(bad))
    with pytest.raises(RulesetError, match="cannot read ruleset file"):
        Ruleset.load(str(tmp_path / "missing.toml"))
    with pytest.raises(RulesetError, match="unknown rules 'nonsense'"):
        Ruleset.load("nonsense")


def test_chances_per_rank() -> None:
    northwest = Ruleset.preset("northwest")
    faces = (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE, Rank.JOKER)
    assert [northwest.chances(rank) for rank in faces] == [1, 2, 3, 4, 5]
    assert Ruleset.preset("classic").chances(Rank.JOKER) == 0
    assert northwest.chances(Rank.TEN) == 0


def test_every_whole_number_setting_has_bounds_and_both_ends_are_allowed() -> None:
    whole_numbers = [f.name for f in dataclasses.fields(Ruleset) if f.type in (int, "int")]
    assert sorted(SETTING_BOUNDS) == sorted(whole_numbers)
    for name, (low, high) in SETTING_BOUNDS.items():
        needs: dict[str, dict[str, object]] = {"misslap_cards": {"misslap_penalty": "none"},
                                               "joker_chances": {"jokers": True}}
        base = needs.get(name, {})
        for value in (low, high):
            assert Ruleset.from_dict({**base, name: value}).to_dict()[name] == value


@pytest.mark.parametrize("name", sorted(SETTING_BOUNDS))
def test_a_setting_just_outside_its_bounds_or_absurdly_large_is_refused(name: str) -> None:
    low, high = SETTING_BOUNDS[name]
    for value in (high + 1, 10**30, 10**5000) + ((low - 1,) if low > 0 else ()):
        with pytest.raises(RulesetError, match=f"^{name}: must be from {low} to {high}, got "):
            Ruleset.from_dict({name: value})


def test_deeply_nested_toml_is_refused_before_the_parser_recurses() -> None:
    nested = "a = " + "[" * 4000 + "]" * 4000
    with pytest.raises(RulesetError, match="nested more than 8 deep"):
        Ruleset.from_toml(nested)
    with pytest.raises(RulesetError, match="nested more than 8 deep"):
        Ruleset.from_toml("a = " + "{b = " * 9 + "1" + "}" * 9)


def test_brackets_inside_strings_and_comments_are_not_nesting() -> None:
    text = 'name = "' + "[" * 20 + '"\nsummary = \'\'\'{{{{{{{{{{\'\'\'  # ' + "[" * 20 + "\n"
    assert Ruleset.from_toml(text).name == "[" * 20
