// @ts-check
/**
 * Quick play: seek a table of strangers on /ws/seek (docs/protocol.md, "Quick play"), and
 * remember the pool a matched room came from, so that the room page joins by itself and its
 * results offer "Play again" (which seeks the same pool from the home page).
 */

/**
 * @typedef {import("./protocol").SeekServerMessage} SeekMessage
 * @typedef {{rules: string, players: number, room?: string, arena?: string}} QuickPool
 */

export const MATCH_ITEM = "ratscrew.quick";
export const AGAIN_ITEM = "ratscrew.quick.again";
/** How long an arena's results stay on screen before the page goes back to pair again. */
export const ARENA_NEXT_MS = 3000;

/**
 * Seek a table. The handlers hear the pool's count, the table, an error, or a lost socket.
 * @param {{rules: string, players: number, name: string, playerKey: string, arena?: string}} seek
 * @param {{onSeeking: (waiting: number) => void, onMatched: (m: import("./protocol").MatchedMessage) => void,
 *          onError: (message: string) => void}} handlers
 * @returns {{cancel: () => void}}
 */
export function seekTable(seek, handlers) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws/seek`);
  let done = false;
  ws.addEventListener("open", () => {
    ws.send(JSON.stringify({ type: "seek", rules: seek.rules, players: seek.players, name: seek.name,
      player_key: seek.playerKey, ...(seek.arena ? { arena: seek.arena } : {}) }));
  });
  ws.addEventListener("message", (event) => {
    /** @type {SeekMessage} */
    let message;
    try { message = JSON.parse(String(event.data)); } catch { return; }
    if (message.type === "seeking") handlers.onSeeking(message.waiting);
    else if (message.type === "matched") { done = true; handlers.onMatched(message); }
    else if (message.type === "error") { done = true; ws.close(); handlers.onError(message.message); }
  });
  ws.addEventListener("close", (event) => {
    if (!done) handlers.onError(event.reason || "the connection to the server was lost; press Play now again");
    done = true;
  });
  return {
    cancel() {
      done = true;
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "cancel" }));
      ws.close();
    },
  };
}

/**
 * The pool the room ``code`` was matched from, if this tab came to it by quick play.
 * @param {string} code
 * @param {Storage} [store]
 * @returns {QuickPool | null}
 */
export function matchedPool(code, store = sessionStorage) {
  try {
    const pool = JSON.parse(store.getItem(MATCH_ITEM) ?? "null");
    return pool && pool.room === code ? pool : null;
  } catch { return null; }
}

/**
 * "Play again": the home page seeks this pool as it opens.
 * @param {QuickPool} pool
 * @param {Storage} [store]
 */
export function seekAgain(pool, store = sessionStorage) {
  store.setItem(AGAIN_ITEM, JSON.stringify({ rules: pool.rules, players: pool.players,
    ...(pool.arena ? { arena: pool.arena } : {}) }));
}

/**
 * Where "Play again" goes: the arena's page for an arena's table (it seeks the arena again), else
 * the home page.
 * @param {QuickPool | null} pool
 * @returns {string}
 */
export function againUrl(pool) {
  return pool?.arena ? `/arenas/${encodeURIComponent(pool.arena)}` : "/";
}

/**
 * The pool "Play again" asked for, once (taken out as it is read).
 * @param {Storage} [store]
 * @returns {QuickPool | null}
 */
export function takeSeekAgain(store = sessionStorage) {
  const text = store.getItem(AGAIN_ITEM);
  store.removeItem(AGAIN_ITEM);
  try { return text ? JSON.parse(text) : null; } catch { return null; }
}

/**
 * How long a seek has waited, as the page shows it.
 * @param {number} seconds
 * @returns {string}
 */
export function waited(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
