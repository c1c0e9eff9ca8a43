// @ts-check
/** How the room page reaches its room (issue 51): a websocket to the server (`RoomSocket`), or,
 * on /play, the offline table's Web Worker (`WorkerRoom`), which speaks the same protocol. The
 * page chooses here, once; everything else on the page is the same for both. */
import { Announcer } from "../announce.js";
import { RoomSocket } from "../net.js";

/**
 * @typedef {import("../net.js").Handlers} Handlers
 * @typedef {import("../protocol").ServerMessage} Message
 * @typedef {import("../protocol").ClientMessage} ClientMessage
 * @typedef {{connect(): void, send(message: ClientMessage): void, stop(): void, ended: boolean}} Transport
 */

/** Whether this page is the offline table. */
export function isOfflineTable() {
  return location.pathname === "/play";
}

/**
 * The room page's transport.
 * @param {string} code the room's code
 * @param {Handlers} handlers
 * @returns {Transport}
 */
export function roomTransport(code, handlers) {
  // the screen reader mode hears every message as the page does, right after it
  const announcer = new Announcer();
  const heard = { ...handlers, onMessage: (/** @type {Message} */ message, /** @type {number} */ arrivedAt) => {
    handlers.onMessage(message, arrivedAt);
    announcer.hear(message, arrivedAt);
  } };
  return isOfflineTable() ? new WorkerRoom(location.search, heard) : new RoomSocket(code, heard);
}

/** The offline table: the room runs in a Web Worker on this device (ratscrew/offline/room.py). */
export class WorkerRoom {
  /**
   * @param {string} query the table asked for (?rules=...&bots=...&time_limit_ms=...)
   * @param {Handlers} handlers
   */
  constructor(query, handlers) {
    this.query = query;
    this.handlers = handlers;
    /** @type {Worker | null} */
    this.worker = null;
    this.ready = false;
    this.ended = false;
    /** when the page asked for the table, and how long its parts took (docs/online.md) */
    this.openedAt = performance.now();
    /** @type {Record<string, number>} */
    this.timings = {};
  }

  connect() {
    this.openedAt = performance.now();
    const worker = new Worker("/static/js/offline/worker.js", { type: "module" });
    this.worker = worker;
    worker.addEventListener("message", (event) => {
      const data = event.data;
      if (data.kind === "frame") {
        const arrivedAt = performance.now();
        /** @type {Message} */
        let message;
        try { message = JSON.parse(String(data.text)); } catch { return; }
        this.handlers.onMessage(message, arrivedAt);
      } else if (data.kind === "ready") {
        this.ready = true;
        this.timings = { ...data.timings, ready_ms: Math.round(performance.now() - this.openedAt) };
        document.body.dataset.offlineReady = String(this.timings.ready_ms);
        this.handlers.onOpen();
      } else if (data.kind === "progress") {
        this.handlers.onClose(true, String(data.text));
      } else if (data.kind === "failed") {
        this.ended = true;
        document.body.dataset.offlineFailed = "true";
        this.handlers.onClose(false, String(data.text));
      }
    });
    worker.addEventListener("error", (event) => {
      this.ended = true;
      this.handlers.onClose(false, `the offline table failed: ${event.message}`);
    });
    worker.postMessage({ kind: "open", query: this.query });
  }

  /** @param {ClientMessage} message */
  send(message) {
    if (this.worker && this.ready) this.worker.postMessage({ kind: "send", text: JSON.stringify(message) });
    else if (message.type !== "pong") this.handlers.onUnsent(message, !this.ended);
  }

  stop() {
    this.ended = true;
    this.worker?.terminate();
    this.worker = null;
  }
}
