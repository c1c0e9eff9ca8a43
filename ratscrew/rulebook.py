"""A ruleset in plain English: what ``ratscrew rules show`` prints and the help screens show.

>>> lines = explain(Ruleset.preset("pagat"))
>>> any("double" in line for line in lines)
True
"""

from __future__ import annotations

from typing import Any

from ratscrew.patterns import PATTERN_DESCRIPTIONS, PATTERN_FACTS, example_pile
from ratscrew.ruleset import Ruleset


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g} second" + ("" if ms == 1000 else "s")


def presets_allowing(pattern: str) -> list[str]:
    """The shipped presets whose slaps include ``pattern`` (a name in the registry,
    :data:`ratscrew.patterns.PATTERN_FACTS`), in `Ruleset.presets` order: read from the presets
    themselves, never stored beside the pattern. An unknown name is a `ValueError`.

    >>> presets_allowing("sandwich")
    ['classic', 'northwest', 'paranoid']
    """
    if pattern not in PATTERN_FACTS:
        raise ValueError(f"unknown slap pattern {pattern!r}; choose one of {', '.join(PATTERN_FACTS)}")
    return [name for name in Ruleset.presets() if pattern in Ruleset.preset(name).slaps]


def pattern_examples(rules: Ruleset) -> list[dict[str, Any]]:
    """Each slap pattern the rules allow: its name, what it means and a pile that shows it
    (bottom to top, in notation), for pages that teach the rules.

    >>> [(p["name"], p["example"]) for p in pattern_examples(Ruleset.preset("classic"))]
    [('double', ['3C', '7H', '7S']), ('sandwich', ['7H', '3C', '7S'])]
    """
    return [{"name": name, "text": PATTERN_DESCRIPTIONS[name],
             "example": [str(card) for card in example_pile(name, rules.pattern_options)]}
            for name in rules.slaps]


def explain(rules: Ruleset) -> list[str]:
    """The rules as short sentences a player can read at the table, grouped by heading
    (heading lines end with a colon)."""
    lines: list[str] = []
    deck = "54 cards: a standard deck plus two jokers" if rules.jokers else "a standard 52-card deck"
    lines.append("The deal:")
    lines.append(f"- Play with {deck}, dealt face down one at a time to every player.")
    lines.append("- Nobody looks at their own cards; you play your top card face up onto the pile.")
    if rules.first_player == "left_of_dealer":
        lines.append("- The player left of the dealer plays first; play goes clockwise.")
    else:
        lines.append("- The highest bottom card plays first (aces high, jokers above aces); ties "
                     "compare the next cards up. Play goes clockwise.")
    lines.append(f"- At most {rules.max_players} players, outsiders included.")

    lines.append("Face cards:")
    faces = [f"jack {rules.jack_chances}", f"queen {rules.queen_chances}",
             f"king {rules.king_chances}", f"ace {rules.ace_chances}"]
    if rules.jokers and rules.joker_chances:
        faces.append(f"joker {rules.joker_chances}")
    lines.append(f"- A face card gives the next player chances to answer with a face card: "
                 f"{', '.join(faces)}.")
    if rules.jokers and not rules.joker_chances:
        lines.append("- A joker is not a face card.")
    lines.append("- Answering with a face card passes the challenge on to the next player.")
    if rules.slaps:
        lines.append("- A valid slap ends the challenge and wins the pile.")
    if rules.collect == "auto":
        if rules.grace_ms:
            lines.append(f"- If the chances run out, the challenger takes the pile after "
                         f"{_seconds(rules.grace_ms)}; until then a valid slap can still take it.")
        else:
            lines.append("- If the chances run out, the challenger takes the pile at once.")
    else:
        lines.append(f"- If the chances run out, the challenger must slap to claim the pile: "
                     f"alone for {_seconds(rules.claim_window_ms)}, then anyone may claim it.")
    if rules.challenge_out_of_cards == "challenger_wins":
        lines.append("- A challenged player who runs out of cards loses the challenge.")
    else:
        lines.append("- A challenged player who runs out of cards passes the remaining chances "
                     "to the next player with cards.")
    if rules.failure_rule:
        lines.append("- Failure rule: failing a joker challenge burns one more card, unless the "
                     "last card made a slap.")

    lines.append("Slaps:")
    if not rules.slaps:
        lines.append("- No slapping: this is Beggar-my-neighbour.")
    for name in rules.slaps:
        text = PATTERN_DESCRIPTIONS[name]
        if name == "run":
            corner = ", and may go around the corner (K A 2)" if rules.run_wraps else ""
            text = f"the top {rules.run_length} cards are consecutive ranks going up or down{corner}"
        lines.append(f"- Slap a {name.replace('_', ' ')}: {text}.")
    if rules.slaps:
        lines.append("- Burned cards under the pile never count for a slap.")
        if len(rules.slaps) > 1:
            lines.append("- When several patterns show, the first one listed is the one named.")
        if rules.triple_wins_game:
            lines.append("- Slapping a triple wins the whole game.")
        if rules.triple_sixes_lose:
            lines.append("- Slapping three sixes ends the game: everyone loses.")
        if rules.joker_slap_tribute:
            lines.append("- Winning a slap on a joker sandwich makes every other player burn a card.")
        lines.append("Misslaps:")
        penalty = {
            "none": "- Slapping a pile that cannot be slapped costs nothing.",
            "burn": f"- Slapping a pile that cannot be slapped burns your top "
                    f"{rules.misslap_cards} card(s) face up under the pile.",
            "penalty_pile": f"- A misslap puts your top {rules.misslap_cards} card(s) in a penalty "
                            "pile, which the next player to win the pile takes as well.",
            "give_pile": "- A misslap gives the pile to the player who played the top card (or "
                         "the one before, if you played it yourself).",
            "lockout": "- A misslap locks you out of slapping until someone else wins a pile.",
        }[rules.misslap_penalty]
        lines.append(penalty)
        if rules.misslap_out_after:
            lines.append(f"- More than {rules.misslap_out_after} misslaps in a row and you are out "
                         "of the game (your hand is burned).")
        lines.append("Ties:")
        apart = f"Slaps less than {rules.tie_window_ms} ms apart are a tie"
        lines.append({
            "earliest": "- The first slap counts.",
            "void": f"- {apart}, played on as if nobody slapped.",
            "random": f"- {apart}, settled by a fair draw.",
        }[rules.tie_policy])
        late = max(rules.tie_window_ms, rules.too_slow_ms)
        lines.append(f"- Too slow is not wrong: a slap less than {late} ms after someone took the "
                     "pile (no card played since) costs nothing.")

    lines.append("Running out and winning:")
    if rules.out_of_cards == "slap_in":
        lines.append("- A player with no cards may slap back in with a valid slap.")
    else:
        lines.append("- A player with no cards is out of the game.")
    if rules.slap_in_bar_after:
        lines.append(f"- A player who is out and misslaps {rules.slap_in_bar_after} times in a row "
                     "may not slap in again (reset after slapping in and running out again).")
    if rules.outsiders_slap_in:
        lines.append("- People who were not dealt in may slap in too.")
    if rules.finishing_out:
        lines.append("- When only one player has cards, they play the pile out; if their cards "
                     "run out first, nobody wins.")
    elif rules.last_holder_plays_turn:
        lines.append("- When only one player has cards, they play one more card, then (if the pile "
                     "shows no slap) take it and win: you lose when play comes back to you and you "
                     "have no card.")
    else:
        lines.append("- When only one player has cards (and the pile shows no slap), they win.")
    lines.append("- You win by holding every card when a pile is finished.")
    lines.append("- Resigning burns your whole hand." + (
        " You may not slap back in." if rules.resign_bars_slap_in else ""))
    if rules.out_of_turn == "burn":
        burn = "two cards" if rules.double_burn else "that card"
        lines.append(f"- Playing out of turn burns {burn}.")
    else:
        lines.append("- A card played out of turn is refused.")
    return lines
