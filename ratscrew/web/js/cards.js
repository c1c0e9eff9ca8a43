// @ts-check
/** Cards drawn with CSS: rank and suit in two corners and a big suit in the middle. */
import { cardFace } from "./format.js";
import { el } from "./dom.js";

/**
 * A face-up card element.
 * @param {string} card notation, e.g. "7H"
 * @returns {HTMLElement}
 */
export function cardElement(card) {
  const face = cardFace(card);
  const node = el("div", `card ${face.suitName}`);
  node.dataset.card = card;
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", face.label);
  const corner = `${face.rank}${face.suit ? face.symbol : ""}`;
  node.append(el("span", "corner", corner), el("span", "face", face.symbol), el("span", "corner bottom", corner));
  return node;
}

/**
 * Draw the last few cards of the pile, fanned left to right (bottom to top).
 * @param {HTMLElement} pile
 * @param {string[]} cards the pile, bottom to top
 * @param {number} [fanned] how many of the top cards to show
 */
export function drawPile(pile, cards, fanned = 4) {
  const shown = cards.slice(-fanned);
  const previous = pile.dataset.cards ?? "";
  pile.replaceChildren();
  shown.forEach((card, index) => {
    const node = cardElement(card);
    node.style.left = `${3 + index * 20}%`;  // the fourth card ends inside the box (the pile is 3.2 cards wide)
    node.style.zIndex = String(index);
    if (index === shown.length - 1 && cards.join(" ") !== previous && cards.length > 0) node.classList.add("new");
    pile.append(node);
  });
  pile.dataset.cards = cards.join(" ");
  pile.dataset.count = String(cards.length);
  // the name comes from the contents (the cards' own labels and this text), so what is seen
  // and what is read out always agree
  pile.append(el("span", "sr-only", cards.length
    ? `The pile, ${cards.length} cards, top ${cardFace(cards[cards.length - 1]).label}: tap to slap`
    : "The pile is empty"));
}
