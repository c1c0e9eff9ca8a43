// @ts-check
/** Words a newcomer may not know, and where they stand in a line of text (no DOM here): the page
 * turns each one into a small button that explains itself on hover, focus or tap. */

/** @type {Record<string, string>} */
export const TERMS = {
  "face card": "A jack, queen, king or ace (and a joker in some rules). Playing one challenges the next player.",
  challenge: "After a face card, the next player has a few chances (1 for a jack, 2 queen, 3 king, 4 ace) to play a face card. If none comes, whoever played the face card takes the pile.",
  chance: "One card a challenged player may turn up while looking for a face card.",
  slap: "Hit the pile when it shows a pattern (a double, a sandwich…): the first good slap takes the whole pile.",
  misslap: "A slap on a pile that shows no pattern. It costs you: a burned card, the pile, or a pause, depending on the rules.",
  burn: "Put a card from your hand face up under the pile. Burned cards never count for a pattern; whoever wins the pile takes them too.",
  burned: "Cards put face up under the pile (for a misslap). They never count for a pattern; whoever wins the pile takes them too.",
  "penalty pile": "Cards paid for misslaps, set aside; whoever next wins a pile legitimately takes these too.",
  double: "Two cards of the same rank on top of each other (7 7).",
  sandwich: "Two cards of the same rank with one card between them (7 3 7).",
  "slap in": "A player out of cards may still slap a good pile to win it and get back into the game.",
  "too slow": "Your slap came after someone else's good slap took the pile: no penalty, you were just slower.",
};

/** The terms explained where they appear in a line (the commonest words, slap and the pattern
 * names, are left plain there: the "How to play" panel explains them). */
export const INLINE_TERMS = ["face card", "challenge", "chance", "misslap", "burn", "burned", "penalty pile", "slap in"];

const PATTERN = new RegExp(
  `\\b(${[...INLINE_TERMS].sort((a, b) => b.length - a.length).map((t) => t.replace(" ", "\\s")).join("|")})(s|es|ped|ping)?\\b`,
  "gi",
);

/**
 * Split text into plain parts and glossary terms, in order.
 * @param {string} text
 * @returns {{text: string, term: string | null}[]}
 */
export function splitTerms(text) {
  /** @type {{text: string, term: string | null}[]} */
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(PATTERN)) {
    const index = match.index ?? 0;
    if (index > last) parts.push({ text: text.slice(last, index), term: null });
    parts.push({ text: match[0], term: match[1].toLowerCase().replace(/\s+/g, " ") });
    last = index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), term: null });
  return parts;
}
