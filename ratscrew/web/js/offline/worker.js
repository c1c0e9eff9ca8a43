// @ts-check
/** The offline table's Web Worker (issue 51): loads Pyodide from this server, unpacks the
 * ratscrew sources (/offline/ratscrew.zip) and hosts `ratscrew.offline.room.OfflineRoom`, the
 * real engine, runtime and bots. It is the far end of the page's transport: it takes the frames
 * the page would send a server and posts back the frames a server would send.
 *
 * To the page: {kind: "progress", text}, {kind: "ready", timings}, {kind: "frame", text},
 * {kind: "failed", text}, {kind: "checked", summary}. From the page: {kind: "open", query},
 * {kind: "send", text}, {kind: "check", query} (a seeded game on a virtual clock, compared
 * with the server's Python by tests/test_browser_offline.py). */

const PYODIDE = "/static/pyodide/";

/** @type {any} the Python room (a PyProxy) */
let room = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;

/** @param {object} message */
function post(message) { self.postMessage(message); }

/** Post the room's frames, then sleep until it next has something to do.
 * @param {any} frames a Python list of str */
function deliver(frames) {
  for (const text of frames.toJs()) post({ kind: "frame", text });
  frames.destroy();
  clearTimeout(timer);
  const wake = room.wake_in_ms();
  if (wake !== undefined && wake !== null) timer = setTimeout(() => deliver(room.advance()), wake);
}

/** Why Pyodide's files cannot be had, in words a player (or the server's owner) can act on. */
async function pyodideMissing() {
  try {
    const answer = await fetch(`${PYODIDE}pyodide.mjs`, { method: "HEAD" });
    if (answer.ok) return null;
    return "This server does not have the offline table's engine (Pyodide). Whoever runs it: "
      + "`make pyodide` (or `npm ci` and copy node_modules/pyodide into ratscrew/web/pyodide), then restart `ratscrew serve`.";
  } catch {
    return "The offline table has not been downloaded to this device yet: open this page once while online.";
  }
}

/** @type {Promise<any> | null} Pyodide with the ratscrew sources on its path, loaded once */
let engine = null;
const timings = { pyodide_ms: 0, sources_ms: 0 };

async function loadEngine() {
  const began = performance.now();
  post({ kind: "progress", text: "Loading the engine…" });
  const url = `${PYODIDE}pyodide.mjs`;
  const { loadPyodide } = await import(url);
  const pyodide = await loadPyodide({ indexURL: PYODIDE, fullStdLib: false });
  const loadedAt = performance.now();
  post({ kind: "progress", text: "Unpacking the rules and bots…" });
  const archive = await fetch("/offline/ratscrew.zip");
  if (!archive.ok) throw new Error(`the sources archive could not be fetched (HTTP ${archive.status})`);
  pyodide.unpackArchive(await archive.arrayBuffer(), "zip", { extractDir: "/home/pyodide/offline-src" });
  pyodide.runPython(`
import sys
sys.path.insert(0, "/home/pyodide/offline-src")
from ratscrew.offline.jsonshim import install
install()
`);
  timings.pyodide_ms = Math.round(loadedAt - began);
  timings.sources_ms = Math.round(performance.now() - loadedAt);
  return pyodide;
}

/** @param {string} query the page's query string (?rules=...&bots=...) */
async function open(query) {
  const missing = await pyodideMissing();
  if (missing) { post({ kind: "failed", text: missing }); return; }
  engine ??= loadEngine();
  const pyodide = await engine;
  const began = performance.now();
  pyodide.globals.set("PLAY_QUERY", query);
  room = pyodide.runPython(`
from ratscrew.offline.room import OfflineRoom, parse_play_query
OfflineRoom(parse_play_query(PLAY_QUERY))
`);
  post({ kind: "ready", timings: { ...timings, room_ms: Math.round(performance.now() - began) } });
}

/** The seeded game of `ratscrew.offline.check` played here, for tests/test_browser_offline.py.
 * @param {string} query */
async function check(query) {
  engine ??= loadEngine();
  const pyodide = await engine;
  pyodide.globals.set("CHECK_QUERY", query);
  const summary = pyodide.runPython(`
import json
from ratscrew.offline.check import seeded_game
json.dumps(seeded_game(CHECK_QUERY))
`);
  post({ kind: "checked", summary: JSON.parse(summary) });
}

/** A failure in words: a bad query is the protocol's own refusal, whose message names the field.
 * @param {unknown} error */
function failed(error) {
  const text = String(/** @type {any} */ (error)?.message ?? error);
  const refusal = /ProtocolError: (.*)/.exec(text);
  post({ kind: "failed", text: refusal ? `This table cannot be opened: ${refusal[1]}` : `The offline table failed to start: ${text}` });
}

self.addEventListener("message", (event) => {
  const data = event.data;
  if (data.kind === "open") {
    open(String(data.query ?? "")).catch(failed);
  } else if (data.kind === "check") {
    check(String(data.query ?? "")).catch(failed);
  } else if (data.kind === "send" && room) {
    deliver(room.receive(String(data.text)));
  }
});
