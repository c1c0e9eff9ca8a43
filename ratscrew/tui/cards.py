"""Cards drawn as real cards in the terminal: rank, suit symbol, red or black ink on a white face.

A card is 7 columns by 5 rows, so five of them side by side fit an 80x24 terminal with room to
spare. Two palettes: the usual red and black, and a colour-blind-safe four-colour deck (the
Okabe-Ito colours, which stay apart under the common colour-vision deficiencies) that also
prints the suit letter on the card, so that no card is told apart by colour alone.

>>> from ratscrew.cards import Card
>>> print("\\n".join(line.plain for line in card_lines(Card.parse("TH"), STANDARD)))
╭─────╮
│10♥  │
│  ♥  │
│  10♥│
╰─────╯
>>> card_lines(Card.parse("7D"), COLOUR_BLIND)[2].plain
'│ ♦ D │'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from ratscrew.cards import Card, Rank, Suit

CARD_WIDTH = 7
"""Columns one card takes, border included."""
CARD_HEIGHT = 5
"""Rows one card takes, border included."""
_INNER = CARD_WIDTH - 2


@dataclass(frozen=True)
class Palette:
    """How cards are coloured: the ink of each suit (jokers use ``joker``), the card face, and
    whether the suit letter is printed next to the symbol (for colour-blind players)."""

    name: str
    ink: dict[Suit, str]
    joker: str
    face: str
    suit_letters: bool

    def style(self, card: Card) -> Style:
        """The rich style a card's face is drawn in.

        >>> STANDARD.style(Card.parse("QH")).color.name
        '#b3001b'
        """
        ink = self.joker if card.suit is None else self.ink[card.suit]
        return Style(color=ink, bgcolor=self.face, bold=True)


STANDARD = Palette(
    name="standard",
    ink={Suit.HEARTS: "#b3001b", Suit.DIAMONDS: "#b3001b", Suit.CLUBS: "#101010",
         Suit.SPADES: "#101010"},
    joker="#5b2a86",
    face="#f4f1e8",
    suit_letters=False,
)
"""Red hearts and diamonds, black clubs and spades."""

COLOUR_BLIND = Palette(
    name="colour-blind",
    ink={Suit.HEARTS: "#c04000", Suit.DIAMONDS: "#0060a0", Suit.CLUBS: "#00775a",
         Suit.SPADES: "#101010"},
    joker="#7a3a8a",
    face="#f4f1e8",
    suit_letters=True,
)
"""Four colours from the Okabe-Ito set (vermilion hearts, blue diamonds, bluish-green clubs,
black spades), darkened for contrast on the white face, plus the suit letter on every card."""


def palette(colour_blind: bool) -> Palette:
    """The palette to draw with."""
    return COLOUR_BLIND if colour_blind else STANDARD


def rank_label(card: Card) -> str:
    """The rank as printed in a card's corner: ``10`` for ten, ``JK`` for a joker.

    >>> rank_label(Card.parse("TS")), rank_label(Card.parse("AS")), rank_label(Card.joker())
    ('10', 'A', 'JK')
    """
    if card.is_joker:
        return "JK"
    return "10" if card.rank == Rank.TEN else card.rank.symbol


def card_label(card: Card, colour_blind: bool = False) -> str:
    """A one-line label: ``7♥``, or ``7♥H`` with suit letters; ``JK★`` for a joker.

    >>> card_label(Card.parse("7H")), card_label(Card.parse("7H"), colour_blind=True)
    ('7♥', '7♥H')
    """
    if card.suit is None:
        return "JK★"
    return rank_label(card) + card.suit.symbol + (card.suit.value if colour_blind else "")


def card_text(card: Card, pal: Palette) -> Text:
    """The one-line label in the card's colours, for logs and status lines."""
    return Text(card_label(card, pal.suit_letters), style=pal.style(card))


def card_lines(card: Card, pal: Palette, highlight: bool = False) -> list[Text]:
    """The card drawn as :data:`CARD_HEIGHT` lines of :data:`CARD_WIDTH` cells.

    ``highlight`` draws a heavy border (the top card of the pile).
    """
    style = pal.style(card)
    if card.suit is None:
        corner, centre = "JK", "★"
    else:
        corner = rank_label(card) + card.suit.symbol
        centre = card.suit.symbol + (f" {card.suit.value}" if pal.suit_letters else "")
    top, side, bottom = ("┏━━━━━┓", "┃", "┗━━━━━┛") if highlight else ("╭─────╮", "│", "╰─────╯")
    rows = [top,
            side + corner.ljust(_INNER) + side,
            side + centre.center(_INNER) + side,
            side + corner.rjust(_INNER) + side,
            bottom]
    return [Text(row, style=style) for row in rows]


def empty_slot_lines(label: str = "empty") -> list[Text]:
    """A dashed outline where the pile would be.

    >>> [line.plain for line in empty_slot_lines()][2]
    '┆empty┆'
    """
    style = Style(color="grey50")
    rows = ["┌┄┄┄┄┄┐", "┆     ┆", "┆" + label[:_INNER].center(_INNER) + "┆", "┆     ┆", "└┄┄┄┄┄┘"]
    return [Text(row, style=style) for row in rows]


def card_back_lines(count: int) -> list[Text]:
    """A face-down stack with its card count, for the part of the pile under the shown cards.

    >>> [line.plain for line in card_back_lines(23)][2]
    '│░ 23░│'
    """
    style = Style(color="#e8e8e8", bgcolor="#3a4f7a")
    number = str(count)[:3]
    rows = ["╭─────╮", "│░░░░░│", "│░" + number.center(3) + "░│", "│░░░░░│", "╰─────╯"]
    return [Text(row, style=style) for row in rows]


def row_of_cards(cards: Sequence[Card], pal: Palette, hidden_below: int = 0,
                 labels: Sequence[str] = ()) -> Text:
    """Cards side by side, left to right, the last one highlighted as the top of the pile.

    ``hidden_below`` draws a face-down stack first showing how many more cards lie under them;
    ``labels`` (one per card, e.g. who played it) are printed under the cards.

    >>> from ratscrew.cards import parse_cards
    >>> print(row_of_cards(parse_cards("7H 7S"), STANDARD, labels=["Ann", "Bob"]).plain)
    ╭─────╮ ┏━━━━━┓
    │7♥   │ ┃7♠   ┃
    │  ♥  │ ┃  ♠  ┃
    │   7♥│ ┃   7♠┃
    ╰─────╯ ┗━━━━━┛
      Ann     Bob
    """
    columns: list[list[Text]] = []
    if hidden_below:
        columns.append(card_back_lines(hidden_below))
    for index, card in enumerate(cards):
        columns.append(card_lines(card, pal, highlight=index == len(cards) - 1))
    if not columns:
        columns.append(empty_slot_lines())
    out = Text()
    for row in range(CARD_HEIGHT):
        for index, column in enumerate(columns):
            if index:
                out.append(" ")
            out.append_text(column[row])
        out.append("\n")
    if labels:
        label_row = Text()
        if hidden_below:
            label_row.append(" " * (CARD_WIDTH + 1))
        for index, label in enumerate(labels):
            if index:
                label_row.append(" ")
            label_row.append(label[:CARD_WIDTH].center(CARD_WIDTH), style="dim")
        label_row.rstrip()
        out.append_text(label_row)
    else:
        out.rstrip()
    return out
