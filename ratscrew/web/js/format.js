// @ts-check
/** Pure helpers that turn the server's data into words and numbers for the page (no DOM). */

/** @typedef {{rank: string, suit: string, suitName: string, symbol: string, label: string}} CardFace */

const SUITS = /** @type {Record<string, [string, string]>} */ ({
  C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"],
});
const RANK_NAMES = /** @type {Record<string, string>} */ ({ T: "10" });

/**
 * A card in notation ("7H", "TD", "JK") as the page shows it.
 * @param {string} card
 * @returns {CardFace}
 */
export function cardFace(card) {
  if (card === "JK") {
    return { rank: "★", suit: "", suitName: "joker", symbol: "🃏", label: "joker" };
  }
  const rank = RANK_NAMES[card[0]] ?? card[0];
  const [symbol, suitName] = SUITS[card[1]] ?? ["?", "unknown"];
  return { rank, suit: card[1], suitName, symbol, label: `${rank}${symbol}` };
}

/**
 * Milliseconds as the page writes them: "312 ms", "1.4 s".
 * @param {number | null | undefined} ms
 * @returns {string}
 */
export function formatMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * How long until a deadline in room time, given when the state was sent and how long ago it
 * arrived (both in ms). Never negative.
 * @param {number} deadline room time of the deadline
 * @param {number} sentAt room time the state was sent
 * @param {number} sinceArrival ms since the state arrived here
 * @returns {number}
 */
export function remainingMs(deadline, sentAt, sinceArrival) {
  return Math.max(0, deadline - sentAt - sinceArrival);
}

/**
 * A game's time left as a clock reads: "12:05", "0:09" (whole seconds, rounded up).
 * @param {number} ms
 * @returns {string}
 */
export function clockLeft(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** Nobody reacts to a state sooner than this after it was painted (ms): a press that soon
 * after a change answers the state before it (ratscrew.client.reaction.HUMAN_REACTION_MS). */
export const HUMAN_REACTION_MS = 100;

/**
 * The state an input event answers, and the reaction to it: the newest state painted at least
 * HUMAN_REACTION_MS before the event (the one the person was reacting to), else the newest
 * painted at or before it. A press 40 ms after someone else took the pile answers the pile as
 * it was, not the pile taken (issue 46; docs/fairness.md, "What counts as a reaction").
 * @param {Map<number, number>} shown version -> performance.now() when it was painted
 * @param {number} eventTime the input event's timeStamp
 * @returns {{version: number, reaction_ms: number} | null}
 */
export function reactionTo(shown, eventTime) {
  let best = /** @type {{version: number, at: number} | null} */ (null);
  let seen = /** @type {{version: number, at: number} | null} */ (null);
  for (const [version, at] of shown) {
    if (at <= eventTime && (best === null || version > best.version)) best = { version, at };
    if (at <= eventTime - HUMAN_REACTION_MS && (seen === null || version > seen.version)) seen = { version, at };
  }
  const answered = seen ?? best;
  if (answered === null) return null;
  return { version: answered.version, reaction_ms: Math.min(60000, Math.max(0, eventTime - answered.at)) };
}

/**
 * Whether a seat may play and slap now: the engine's word (`Game.may`), which the observation
 * carries for every seat as `may: {play: [...], slap: [...]}`; the page never works it out from
 * statuses. A spectator (seat `null`) and an observation without `may` may do neither.
 * @param {{may?: {play: boolean[], slap: boolean[]}} | null | undefined} observation
 * @param {number | null} seat
 * @returns {{play: boolean, slap: boolean}}
 */
export function mayAct(observation, seat) {
  const may = observation?.may;
  if (!may || seat === null) return { play: false, slap: false };
  return { play: may.play[seat] === true, slap: may.slap[seat] === true };
}

/**
 * A seat's status line.
 * @param {string} status "in", "out", "locked", ...
 * @param {number} cards
 * @returns {string}
 */
export function seatStatus(status, cards) {
  if (status === "out") return "out";
  const word = cards === 1 ? "card" : "cards";
  return status === "in" ? `${cards} ${word}` : `${cards} ${word}, ${status.replace(/_/g, " ")}`;
}

/**
 * The key's name as stored and shown: " " is "space", letters lower case.
 * @param {string} key a KeyboardEvent.key
 * @returns {string}
 */
export function keyName(key) {
  if (key === " ") return "space";
  return key.length === 1 ? key.toLowerCase() : key;
}

/**
 * A rating as the pages show it: one decimal ("3.1", "−0.4"); none is "–".
 * @param {number | null | undefined} rating
 * @returns {string}
 */
export function formatRating(rating) {
  if (rating === null || rating === undefined || !Number.isFinite(rating)) return "–";
  const text = (Math.round(rating * 10) / 10).toFixed(1);
  return text === "-0.0" ? "0.0" : text.replace("-", "−");
}

/**
 * A finishing place: "1st", "2nd", "3rd", "4th", "11th", "22nd".
 * @param {number} place
 * @returns {string}
 */
export function ordinal(place) {
  const tens = place % 100;
  if (tens >= 11 && tens <= 13) return `${place}th`;
  return `${place}${["th", "st", "nd", "rd"][place % 10] ?? "th"}`;
}

/**
 * A moment (ISO 8601, UTC) as a short local date and time, the year only when it is not this
 * year's; text that is not a date is shown as it is.
 * @param {string} iso
 * @param {{locale?: string, timeZone?: string, now?: Date}} [options]
 * @returns {string}
 */
export function shortDate(iso, { locale, timeZone, now = new Date() } = {}) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const sameYear = date.getUTCFullYear() === now.getUTCFullYear();
  return new Intl.DateTimeFormat(locale, {
    day: "numeric", month: "short", year: sameYear ? undefined : "numeric", hour: "2-digit", minute: "2-digit", timeZone,
  }).format(date);
}
