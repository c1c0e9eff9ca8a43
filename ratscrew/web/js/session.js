// @ts-check
/** What the page knows of its room, kept from the server's messages: a pure module (no DOM, no
 * storage, no socket), so that Node's test runner replays recorded message transcripts through
 * the very logic the page runs (tests/js/transcripts.test.mjs, with tests/transcripts/). Its
 * Python twin is `RoomSession` in `ratscrew/client/session.py`, which the terminal draws.
 *
 * The API, for anything that shows a room (room.js today):
 *
 * - `new RoomSession()` — nothing known yet: no seat, no room, no state, an empty log book.
 * - `session.connected()` — a (re)connection opened: the `history` the room sends next redraws
 *   the whole log.
 * - `session.receive(message, arrivedAt)` — one server message (`ServerMessage`, with
 *   `arrivedAt` on the caller's clock, e.g. `performance.now()`): the session keeps what it
 *   says and returns a `SessionUpdate`, the effects the caller carries out (log items to draw,
 *   whether to clear the log first, messages to send, the room token to keep or forget, whether
 *   the server speaks another protocol). Nothing else in the update is decided by the caller.
 * - The fields (`seat`, `host`, `joined`, `status`, `room`, `state`, `stateArrivedAt`, `over`,
 *   `log`) are what the page draws; the page may set `joined` (it asked to watch) and `over`
 *   (the player dismissed the results) itself.
 *
 * Nothing here decides a rule of the game: it keeps the server's words as they come. */

import { LogBook } from "./logbook.js";
import { withLobbyChange } from "./lobby.js";
import { PROTOCOL_VERSION } from "./net.js";

/** @typedef {import("./protocol").ServerMessage} ServerMessage */
/** @typedef {import("./protocol").ClientMessage} ClientMessage */
/** @typedef {import("./protocol").RoomMessage} RoomMessage */
/** @typedef {import("./protocol").StateMessage} StateMessage */
/** @typedef {import("./protocol").GameOverMessage} GameOverMessage */
/** @typedef {import("./protocol").Status} Status */
/** @typedef {import("./logbook.js").LogItem} LogItem */

/**
 * What one message (or connection) asks of the page, beyond what the session keeps.
 * @typedef {object} SessionUpdate
 * @property {LogItem[]} log log items to draw, oldest first
 * @property {boolean} resetLog clear the drawn log before drawing `log` (a fresh history)
 * @property {ClientMessage[]} send messages to send to the room now (a `history` request after a gap)
 * @property {string | null} token a token the room issued this client: keep it for this room
 * @property {boolean} forgetToken the kept token no longer works here (or there is none to keep): forget it
 * @property {boolean} outdated the server speaks another protocol version: this page must stop
 *   (nothing else of the message was taken)
 * @property {StateMessage | null} previousState on a `state`: the state it replaced
 */

/** @returns {SessionUpdate} an update that asks for nothing */
export function noUpdate() {
  return { log: [], resetLog: false, send: [], token: null, forgetToken: false, outdated: false, previousState: null };
}

export class RoomSession {
  constructor() {
    /** This client's seat, or null (waiting, watching, or not welcomed yet). @type {number | null} */
    this.seat = null;
    /** This client is the room's host. */
    this.host = false;
    /** The room welcomed this client (or it asked to watch): it is in the room. */
    this.joined = false;
    /** `player`, `waiting` (for the next game) or `watching`; null before the first welcome. @type {Status | null} */
    this.status = null;
    /** The latest `room` message (with every `lobby_change` since applied). @type {RoomMessage | null} */
    this.room = null;
    /** The latest `state`. @type {StateMessage | null} */
    this.state = null;
    /** When the latest state arrived, on the caller's clock. */
    this.stateArrivedAt = 0;
    /** The latest `game_over`, while the room's phase is `over`. @type {GameOverMessage | null} */
    this.over = null;
    /** The room's log, in step with the server's numbered history. */
    this.log = new LogBook();
    /** The next `history` is the fresh one a (re)connection brings: it replaces the log. */
    this.freshHistory = true;
    /** A `history` was asked for (a gap) and has not come yet: ask no second time. */
    this.historyAsked = false;
  }

  /** A (re)connection opened: the history the room sends next redraws the whole log. */
  connected() {
    this.freshHistory = true;
    this.historyAsked = false;
  }

  /**
   * One message from the room: keep what it says, and say what the page must do.
   * @param {ServerMessage} message
   * @param {number} arrivedAt when it arrived, on the caller's clock
   * @returns {SessionUpdate}
   */
  receive(message, arrivedAt) {
    const update = noUpdate();
    switch (message.type) {
      case "welcome":
        if (message.protocol !== PROTOCOL_VERSION) {
          update.outdated = true;
          break;
        }
        this.joined = true;
        this.seat = message.seat;
        this.host = Boolean(message.host);
        this.status = message.status ?? (message.seat === null ? "watching" : "player");
        if (message.token) update.token = message.token;
        else if (this.status === "watching" && !message.name) update.forgetToken = true;
        break;
      case "room":
        this.room = message;
        if (message.you) {
          this.seat = message.you.seat;
          this.host = message.you.host;
          this.status = message.you.status ?? this.status;
        }
        if (message.phase !== "over") this.over = null;
        break;
      case "lobby_change":  // only the people changed: the waiting list and how many watch
        if (this.room) this.room = withLobbyChange(this.room, message);
        break;
      case "state": {
        update.previousState = this.state;
        this.state = message;
        this.stateArrivedAt = arrivedAt;
        // a history from now on is one this page asked for (a gap): it extends the log, never
        // replaces it (as the terminal's session does; tests/transcripts/database_outage)
        this.freshHistory = false;
        const { items, missing } = this.log.state(message);
        update.log = items;
        if (missing !== null && !this.historyAsked) {
          this.historyAsked = true;
          update.send.push({ type: "history", since: missing });
        }
        break;
      }
      case "history":
        if (this.freshHistory) {
          this.log.reset();
          update.resetLog = true;
          this.freshHistory = false;
        }
        this.historyAsked = false;
        update.log = this.log.history(message);
        break;
      case "judgement":
        update.log = this.log.judgement(message);
        break;
      case "notice":  // e.g. "resumed": the database is back and the game goes on
        update.log = this.log.notice(message);
        break;
      case "game_over":
        this.over = message;
        break;
      case "kicked":
        update.forgetToken = true;
        this.seat = null;
        break;
      case "error":
        if (message.code === "name_taken" || message.code === "bad_key") this.joined = false;  // not seated
        else if (message.code === "bad_token") update.forgetToken = true;
        break;
      default:
        break;  // a message type the session does not keep (ping, replaced) or does not know
    }
    return update;
  }
}
