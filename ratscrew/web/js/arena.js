// @ts-check
/**
 * The arena page (/arenas/ID): the countdown, live standings (polled), "Join" (seek a table in
 * the arena on /ws/seek and go to it when matched) and "Pause" (stop seeking). A player whose
 * arena game ended comes back here (the room page's "Next arena game") and seeks again at once.
 */
import { byId, el, fetchJson } from "./dom.js";
import { arenaLine, clockLine } from "./arenaview.js";
import { playerId, playerKey, playerUrl } from "./identity.js";
import { MATCH_ITEM, seekTable, takeSeekAgain, waited } from "./quickplay.js";

const POLL_MS = 3000;
const arenaId = decodeURIComponent(location.pathname.split("/").pop() ?? "");

/** @typedef {{rank: number, player_id: string, name: string, score: number, games: number, wins: number, streak: number}} Line */
/** @typedef {{id: string, rules: string, players: number, state: string, starts_at: number, ends_at: number, now: number, final: boolean, standings: Line[]}} Arena */

/** @type {Arena | null} */
let arena = null;
/** server time minus this browser's, in seconds (the countdown trusts the server's clock) */
let skew = 0;
/** @type {{cancel: () => void} | null} */
let seeking = null;
/** @type {ReturnType<typeof setInterval> | undefined} */
let waitTimer;
let wantsToPlay = false;

function serverNow() { return Date.now() / 1000 + skew; }

function drawClock() {
  if (!arena) return;
  const line = clockLine(arena, serverNow());
  byId("clock-label").textContent = line.label;
  byId("clock").textContent = line.clock;
  byId("join-button", HTMLButtonElement).disabled = !line.running || seeking !== null;
  if (!line.running && seeking) pause("The arena is not running: seeking stopped.");
  if (line.running && wantsToPlay && !seeking) join();
}

function drawStandings() {
  if (!arena) return;
  const me = playerId();
  byId("standings").replaceChildren(...arena.standings.map((line) => {
    const row = el("tr", line.player_id === me ? "you" : "");
    const name = el("td", "name");
    const link = /** @type {HTMLAnchorElement} */ (el("a", "", line.name));
    link.href = playerUrl(line.player_id);
    name.append(link);
    if (line.player_id === me) name.append(" ", el("span", "tag you", "you"));
    const streak = el("td", "num", String(line.streak));
    if (line.streak >= 2) {  // the next win scores double
      const doubled = el("span", "tag", "×2");
      doubled.title = "two wins in a row or more: the next win scores double";
      streak.append(" ", doubled);
    }
    row.append(el("td", "num", String(line.rank)), name, el("td", "num", String(line.score)),
      el("td", "num", String(line.games)), el("td", "num", String(line.wins)), streak);
    return row;
  }));
  byId("no-standings").hidden = arena.standings.length > 0;
}

async function refresh() {
  try {
    const fresh = /** @type {Arena} */ (await fetchJson(`/api/arenas/${encodeURIComponent(arenaId)}`));
    arena = fresh;
    skew = fresh.now - Date.now() / 1000;
    byId("arena-title").textContent = `Arena: ${fresh.rules}, tables of ${fresh.players}`;
    document.title = `ratscrew · arena · ${fresh.rules}`;
    byId("arena-what").textContent = arenaLine(fresh);
    byId("error").textContent = "";
    drawStandings();
    drawClock();
  } catch (error) {
    byId("error").textContent = error instanceof Error ? error.message : String(error);
  }
}

/** @param {boolean} on */
function showSeeking(on) {
  byId("pause").hidden = !on;
  byId("join-button", HTMLButtonElement).disabled = on;
  clearInterval(waitTimer);
}

function join() {
  if (!arena || seeking) return;
  const name = byId("name", HTMLInputElement).value.trim();
  if (!name) {
    byId("seek-status").textContent = "Type a name: it is how the table knows you.";
    byId("name").focus();
    return;
  }
  localStorage.setItem("ratscrew.name", name);
  wantsToPlay = true;
  const pool = { rules: arena.rules, players: arena.players, arena: arena.id };
  const started = performance.now();
  let waiting = 1;
  const say = () => {
    byId("seek-status").textContent = `Looking for a table · ${waited((performance.now() - started) / 1000)}`
      + ` · ${waiting} waiting in this arena`;
  };
  showSeeking(true);
  say();
  waitTimer = setInterval(say, 1000);
  seeking = seekTable({ ...pool, name, playerKey: playerKey() }, {
    onSeeking(count) { waiting = count; say(); },
    onMatched(matched) {
      clearInterval(waitTimer);
      sessionStorage.setItem(MATCH_ITEM, JSON.stringify({ ...pool, room: matched.room }));
      byId("seek-status").textContent = "Table found: sitting down…";
      location.assign(matched.url);
    },
    onError(message) {
      seeking = null;
      wantsToPlay = false;
      showSeeking(false);
      byId("seek-status").textContent = message;
      drawClock();
    },
  });
}

/** @param {string} said */
function pause(said) {
  wantsToPlay = false;
  seeking?.cancel();
  seeking = null;
  showSeeking(false);
  byId("seek-status").textContent = said;
  drawClock();
}

byId("join").addEventListener("submit", (event) => { event.preventDefault(); join(); });
byId("pause").addEventListener("click", () => {
  pause("Paused: you are out of the pairing until you press Join.");
  byId("join-button").focus();
});

async function start() {
  byId("name", HTMLInputElement).value = localStorage.getItem("ratscrew.name") ?? "";
  await refresh();
  const again = takeSeekAgain();
  if (again && again.arena === arenaId) wantsToPlay = true;  // back from a game: pair again at once
  drawClock();
  setInterval(drawClock, 1000);
  setInterval(refresh, POLL_MS);
}

playerKey();
start();
