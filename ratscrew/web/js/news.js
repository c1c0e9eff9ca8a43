// @ts-check
/** What just happened at the pile, said in a line beside it (no DOM here).
 *
 * A `state` carries the engine's events of one step and, one for one, the server's line for each
 * (docs/protocol.md). The page shows the lines of the events a player must not miss (a misslap,
 * a won pile, a challenge, a contested slap) next to the pile, and clears them when the next card
 * is played, so the line never speaks of an older pile. Every word comes from the server: this
 * module only picks which lines to show and what cue (shake, move, buzz) goes with them. */

/** An engine event as a state carries it (protocol.d.ts). @typedef {{kind: import("./protocol").EventKind, seat?: number | null}} GameEvent */
/** @typedef {"misslap" | "won" | "challenge" | "contested" | "judged" | "out"} NewsKind */
/** @typedef {{kind: NewsKind, text: string, seat: number | null}} NewsItem */

/** The events worth a line beside the pile, and the cue each gives. @type {Record<string, NewsKind>} */
export const NEWS_KINDS = {
  misslap: "misslap",
  pile_won: "won",
  challenge_started: "challenge",
  challenge_lost: "challenge",
  claim_opened: "challenge",
  slap_ignored: "contested",
  slap_tie: "contested",
  slapped_in: "won",
  player_out: "out",
  player_barred: "out",
  locked_out: "out",
};

/** How many lines the box beside the pile keeps (the newest first). */
export const NEWS_KEPT = 3;

/**
 * The lines of one state's events that go beside the pile, in event order.
 * @param {GameEvent[]} events the state's events
 * @param {string[]} lines the state's lines, one per event
 * @returns {NewsItem[]}
 */
export function newsOf(events, lines) {
  /** @type {NewsItem[]} */
  const items = [];
  events.forEach((event, index) => {
    const kind = NEWS_KINDS[event.kind];
    const text = lines[index];
    if (kind === undefined || !text) return;
    items.push({ kind, text, seat: event.seat ?? null });
  });
  return items;
}

/**
 * Whether a state's events start a new pile moment: a card was played, so what the box said
 * about the last one is old.
 * @param {GameEvent[]} events
 * @returns {boolean}
 */
export function clearsNews(events) {
  return events.some((event) => event.kind === "card_played");
}

/**
 * The box's lines after a state: cleared by a card, then this state's news added, newest first,
 * at most `NEWS_KEPT`.
 * @param {NewsItem[]} shown what the box shows now, newest first
 * @param {GameEvent[]} events
 * @param {string[]} lines
 * @returns {NewsItem[]}
 */
export function nextNews(shown, events, lines) {
  const kept = clearsNews(events) ? [] : shown;
  return [...newsOf(events, lines).reverse(), ...kept].slice(0, NEWS_KEPT);
}

/**
 * A vibration pattern for this seat's phone, if the news concerns it: a long buzz for its own
 * misslap, a short double buzz for a pile it won.
 * @param {NewsItem[]} items
 * @param {number | null} seat
 * @returns {number[] | null}
 */
export function buzzFor(items, seat) {
  if (seat === null) return null;
  if (items.some((item) => item.kind === "misslap" && item.seat === seat)) return [180];
  if (items.some((item) => item.kind === "won" && item.seat === seat)) return [40, 60, 40];
  return null;
}

/**
 * The box's lines after a judgement of a contested slap (the server's words), newest first.
 * @param {NewsItem[]} shown
 * @param {string} text
 * @returns {NewsItem[]}
 */
export function withJudgement(shown, text) {
  return [{ kind: /** @type {NewsKind} */ ("judged"), text, seat: null }, ...shown].slice(0, NEWS_KEPT);
}
