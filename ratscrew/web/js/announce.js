// @ts-check
/** Play by screen reader (issue 51): a mode, remembered, in which every line of the game is
 * announced through live regions the moment its message arrives, and keys answer questions
 * (lichess's blind mode is the model).
 *
 * - Assertive (interrupts): what needs an action from you now: a slappable pile ("double: slap!",
 *   the pattern the state's `slappable` names: the engine's verdict, sent by the room), your
 *   turn, a face card you must answer, a won challenge's pile you may collect or, once its claim
 *   window ends, anyone may slap for, your own misslap and its cost, a challenge you lost.
 * - Polite (queued): everything else the server says happened (every state's lines, each
 *   judgement of a contested slap, notices, the end).
 * - The switch is the first thing in the tab order (a button seen only when focused).
 * - Keys (not when typing, nor when bound to play or slap): P the pile, C the card counts,
 *   L the last five events, T the time left, W whose turn it is.
 *
 * It only reads what the server (or the offline table's worker) sends: the lines are the
 * server's words; nothing here decides a rule. Each announcement is a paragraph appended to its
 * region (so none replaces one not yet read), stamped with the version of the state it is about
 * and the time that state arrived, which the transcript test compares with when it was read out. */
import { actionFor, loadKeys } from "./keys.js";
import { cardFace, clockLeft, remainingMs } from "./format.js";

/** @typedef {import("./protocol").ServerMessage} Message */
/** @typedef {import("./protocol").StateMessage} StateMessage */
/** @typedef {import("./protocol").RoomMessage} RoomMessage */

const SETTING = "ratscrew.screenReader";
const KEPT = 30;  // announcements kept in each region (older ones are removed)
const LAST_EVENTS = 5;

/** @param {string} card */
function spoken(card) {
  const face = cardFace(card);
  return face.suitName === "joker" ? "joker" : `${face.rank} of ${face.suitName}`;
}

export class Announcer {
  constructor() {
    this.on = localStorage.getItem(SETTING) === "on";
    /** @type {RoomMessage | null} */ this.room = null;
    /** @type {StateMessage | null} */ this.state = null;
    this.stateArrivedAt = 0;
    /** @type {number | null} */ this.seat = null;
    /** @type {string[]} */ this.lines = [];
    /** the slappable pile last announced (game and cards), so that the states that follow with
     * the same pile (a misslap's, a slap's judging) do not say it again @type {string | null} */
    this.slappablePile = null;
    this.polite = this.region("polite", "announce-polite");
    this.assertive = this.region("assertive", "announce-assertive");
    this.button = this.toggle();
    document.addEventListener("keydown", (event) => this.key(event));
  }

  /** @param {"polite" | "assertive"} politeness @param {string} testid */
  region(politeness, testid) {
    const node = document.createElement("div");
    node.className = "sr-only";
    node.setAttribute("aria-live", politeness);
    node.setAttribute("aria-relevant", "additions");
    node.dataset.testid = testid;
    document.body.append(node);
    return node;
  }

  toggle() {
    const button = document.createElement("button");
    button.type = "button";
    // first in the tab order and seen only when focused: found at once by a screen reader's
    // user, and no extra row of buttons in a phone's header
    button.className = "small sr-only reveal-on-focus";
    button.dataset.testid = "screen-reader";
    button.addEventListener("click", () => {
      this.on = !this.on;
      localStorage.setItem(SETTING, this.on ? "on" : "off");
      this.render();
      this.say(this.assertive, this.on ? "Screen reader mode on. Keys: P pile, C counts, L last events, T time left, W whose turn."
        : "Screen reader mode off.", null, performance.now(), true);
    });
    document.body.prepend(button);
    this.button = button;
    this.render();
    return button;
  }

  render() {
    this.button.textContent = `Screen reader: ${this.on ? "on" : "off"}`;
    this.button.setAttribute("aria-pressed", String(this.on));
    document.body.classList.toggle("screen-reader", this.on);
    // the page's own polite region says each state's lines too: one voice at a time
    document.getElementById("announce")?.setAttribute("aria-live", this.on ? "off" : "polite");
  }

  /**
   * @param {HTMLElement} region @param {string} text @param {number | null} version
   * @param {number} arrivedAt @param {boolean} [always] said even with the mode off
   */
  say(region, text, version, arrivedAt, always = false) {
    if (!text || (!this.on && !always)) return;
    const line = document.createElement("p");
    line.textContent = text;
    if (version !== null) line.dataset.version = String(version);
    line.dataset.arrivedAt = String(arrivedAt);
    line.dataset.saidAt = String(performance.now());
    region.append(line);
    while (region.childElementCount > KEPT) region.firstElementChild?.remove();
  }

  /** Every message the page gets, as it gets it. @param {Message} message @param {number} arrivedAt */
  hear(message, arrivedAt) {
    switch (message.type) {
      case "welcome": this.seat = message.seat; break;
      case "room":
        this.room = message;
        if (message.you) this.seat = message.you.seat;
        break;
      case "state": this.heardState(message, arrivedAt); break;
      case "judgement": this.say(this.polite, message.text, message.version ?? null, arrivedAt); break;
      case "notice": this.say(this.polite, message.message, null, arrivedAt); break;
      case "error": this.say(this.assertive, message.message, null, arrivedAt); break;
      case "game_over": {
        const winner = message.results.find((result) => result.seat === message.winner);
        this.say(this.assertive, `Game over: ${winner ? `${winner.name}${winner.seat === this.seat ? " (you)" : ""} wins` : "nobody wins"}.`,
          null, arrivedAt);
        break;
      }
      default: break;
    }
  }

  /** @param {StateMessage} message @param {number} arrivedAt */
  heardState(message, arrivedAt) {
    const before = this.state?.observation;
    this.state = message;
    this.stateArrivedAt = arrivedAt;
    const observation = message.observation;
    const you = this.seat;
    this.heardSlappable(message, arrivedAt);
    message.lines.forEach((line, index) => {
      this.lines.push(line);
      const event = message.events[index];
      const yours = event !== undefined && you !== null && (
        (event.kind === "misslap" && event.seat === you)
        || (event.kind === "challenge_lost" && (event.seat === you || event.winner === you))
        || event.kind === "claim_opened");  // anyone may slap to take the pile now
      this.say(yours ? this.assertive : this.polite, line, message.version, arrivedAt);
    });
    this.lines = this.lines.slice(-50);
    if (you === null || observation.over) return;
    const yourTurnNow = observation.turn === you && (before?.turn !== you || message.events.some((e) => e.kind === "card_played"));
    if (yourTurnNow) {
      const challenge = observation.challenge;
      this.say(this.assertive, challenge ? "Your turn: answer the face card." : "Your turn.", message.version, arrivedAt);
    }
  }

  /** "double: slap!" the moment a state says its pile shows a pattern (once per pile): the
   * server's word for it (`slappable`), never worked out here. @param {StateMessage} message
   * @param {number} arrivedAt */
  heardSlappable(message, arrivedAt) {
    const pattern = message.slappable ?? null;  // a state from an older server has none
    const pile = pattern === null ? null : `${message.game}:${message.observation.pile.join(" ")}`;
    if (pattern !== null && pile !== this.slappablePile) {
      this.say(this.assertive, `${pattern.replaceAll("_", " ")}: slap!`, message.version, arrivedAt);
    }
    this.slappablePile = pile;
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    if (!this.on || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const target = /** @type {HTMLElement | null} */ (event.target);
    if (target && (target.closest("input, textarea, select, dialog[open]"))) return;
    if (actionFor(loadKeys(), event.key) !== null) return;  // the player's play and slap keys win
    const answer = this.answer(event.key.toLowerCase());
    if (answer === null) return;
    event.preventDefault();
    this.say(this.assertive, answer, null, performance.now());
  }

  /** The answer to a question key, or null for a key that asks nothing. @param {string} key */
  answer(key) {
    const observation = this.state?.observation;
    const names = (this.room?.seats ?? []).map((seat) => seat.name ?? `Seat ${seat.seat + 1}`);
    if (!observation) return key in { p: 1, c: 1, l: 1, t: 1, w: 1 } ? "No game yet." : null;
    switch (key) {
      case "p": {
        const pile = observation.pile;
        if (!pile.length) return "The pile is empty.";
        const top = pile.slice(-3).reverse().map(spoken).join(", then ");
        return `Pile of ${pile.length} card${pile.length === 1 ? "" : "s"}; from the top: ${top}.`;
      }
      case "c":
        return observation.hand_sizes.map((count, seat) =>
          `${names[seat] ?? `Seat ${seat + 1}`}${seat === this.seat ? " (you)" : ""} ${count}`).join(", ") + ".";
      case "l":
        return this.lines.length ? this.lines.slice(-LAST_EVENTS).join(". ") + "." : "Nothing has happened yet.";
      case "t": {
        const limit = this.room?.settings.time_limit_ms ?? 0;
        const state = this.state;
        if (!limit || !state) return "This game has no time limit.";
        const left = remainingMs(limit + (state.settle_ms ?? 0), state.sent_at, performance.now() - this.stateArrivedAt);
        return `${clockLeft(left)} left.`;
      }
      case "w": {
        if (observation.over) return "The game is over.";
        if (observation.turn === null) return "Nobody's turn: the pile is being taken.";
        const who = observation.turn === this.seat ? "Your" : `${names[observation.turn] ?? "Someone"}'s`;
        const challenge = observation.challenge ? ", answering a face card" : "";
        return `${who} turn${challenge}.`;
      }
      default: return null;
    }
  }
}
