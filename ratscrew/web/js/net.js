// @ts-check
/** The room's websocket: answers pings at once, reconnects after a drop, speaks protocol v1. */

export const PROTOCOL_VERSION = 1;

/**
 * @typedef {import("./protocol").ServerMessage} Message
 * @typedef {import("./protocol").ClientMessage} ClientMessage
 * @typedef {{onMessage: (m: Message, arrivedAt: number) => void, onOpen: () => void,
 *            onClose: (willRetry: boolean, reason: string) => void,
 *            onUnsent: (m: ClientMessage, coming: boolean) => void}} Handlers
 */

export class RoomSocket {
  /**
   * @param {string} code the room's code
   * @param {Handlers} handlers
   */
  constructor(code, handlers) {
    this.code = code;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retries = 0;
    this.stopped = false;
    /** no connection will come again (the server closed this seat's or room's socket for good) */
    this.ended = false;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    ws.addEventListener("open", () => { this.retries = 0; this.handlers.onOpen(); });
    ws.addEventListener("message", (event) => {
      const arrivedAt = performance.now();
      /** @type {Message} */
      let message;
      try { message = JSON.parse(String(event.data)); } catch { return; }
      if (message.type === "ping") { this.send({ type: "pong", id: message.id }); return; }
      this.handlers.onMessage(message, arrivedAt);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      // 4001: this seat connected elsewhere; 4404: no such room; 4410: the room has closed (a
      // reload shows its page); 1008: refused. No retry then.
      const final = this.stopped || [4001, 4404, 4410, 1008].includes(event.code);
      this.ended = final;
      this.handlers.onClose(!final, event.code === 1008 ? event.reason : "");
      if (!final) {
        this.retries += 1;
        setTimeout(() => this.connect(), Math.min(10000, 500 * 2 ** Math.min(this.retries, 5)));
      }
    });
  }

  /**
   * Sends a message now, or tells the page it could not go and whether a connection is coming
   * (the first, or one after a drop): a click is never lost without a word, and nothing is kept
   * to send later, when the game has moved on.
   * @param {ClientMessage} message
   */
  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    else if (message.type !== "pong") this.handlers.onUnsent(message, !this.ended);
  }

  stop() {
    this.stopped = true;
    this.ws?.close();
  }
}
