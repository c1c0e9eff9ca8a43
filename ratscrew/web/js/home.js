// @ts-check
/** The home page: create a room (rules, seats, bots, pace, judging) or join one by code. */
import { byId, el, fetchJson } from "./dom.js";
import { playerKey, showYourPage } from "./identity.js";
import { MATCH_ITEM, seekTable, takeSeekAgain, waited } from "./quickplay.js";

/** @type {{name: string, summary: string, max_players: number}[]} */
let presets = [];
/** @type {string[]} */
let levels = [];

function renderSeatChoices() {
  const seats = Math.min(8, Math.max(2, Number(byId("seats", HTMLInputElement).value) || 4));
  const box = byId("seat-list");
  const previous = [...box.querySelectorAll("select")].map((select) => select.value);
  box.replaceChildren(el("legend", "", "Who sits where"));
  for (let seat = 0; seat < seats; seat += 1) {
    const label = el("label", "", `Seat ${seat + 1} `);
    const choice = /** @type {HTMLSelectElement} */ (el("select"));
    choice.dataset.testid = `seat-choice-${seat}`;
    const person = /** @type {HTMLOptionElement} */ (el("option", "", seat === 0 ? "you" : "a friend (open seat)"));
    person.value = "";
    choice.append(person);
    for (const level of levels) {
      const option = /** @type {HTMLOptionElement} */ (el("option", "", `${level} bot`));
      option.value = level;
      choice.append(option);
    }
    // the default room waits for friends: every seat is open; bots are there to choose
    choice.value = previous[seat] ?? "";
    label.append(choice);
    box.append(label);
  }
}

function describeRules() {
  const name = byId("rules", HTMLSelectElement).value;
  byId("rules-summary").textContent = presets.find((p) => p.name === name)?.summary ?? "";
}

async function load() {
  try {
    const [presetData, botData] = await Promise.all([fetchJson("/api/presets"), fetchJson("/api/bots")]);
    presets = presetData.presets;
    levels = botData.levels.map((/** @type {{name: string}} */ level) => level.name);
  } catch (error) {
    byId("create-error").textContent = `The server did not answer: ${error instanceof Error ? error.message : error}`;
    return;
  }
  const rules = byId("rules", HTMLSelectElement);
  for (const preset of presets) {
    const option = /** @type {HTMLOptionElement} */ (el("option", "", preset.name));
    option.value = preset.name;
    rules.append(option);
  }
  describeRules();
  renderSeatChoices();
}

byId("rules").addEventListener("change", describeRules);
byId("seats").addEventListener("input", renderSeatChoices);
byId("create").addEventListener("submit", async (event) => {
  event.preventDefault();
  const choices = [...byId("seat-list").querySelectorAll("select")].map((select) => select.value);
  // bots sit in the last seats: people first, then the bots in the order chosen
  const people = choices.filter((choice) => choice === "");
  const bots = choices.filter((choice) => choice !== "");
  const toml = byId("rules-toml", HTMLTextAreaElement).value.trim();
  const body = {
    rules: toml || byId("rules", HTMLSelectElement).value,
    seats: people.length + bots.length,
    bots,
    pace: byId("pace", HTMLSelectElement).value,
    turn_timeout_ms: Math.round(Number(byId("timeout", HTMLInputElement).value) * 1000),
    judging: byId("judging", HTMLSelectElement).value,
    window_factor: Number(byId("window-factor", HTMLSelectElement).value),  // a house rule: unrated
  };
  byId("create-error").textContent = "";
  try {
    const room = /** @type {import("./protocol").RoomCreated} */ (await fetchJson("/api/rooms", body));
    location.assign(room.url);
  } catch (error) {
    byId("create-error").textContent = error instanceof Error ? error.message : String(error);
  }
});
byId("join").addEventListener("submit", (event) => {
  event.preventDefault();
  const code = byId("code", HTMLInputElement).value.trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
  if (code) location.assign(`/r/${code}`);
});

// ------------------------------------------------------------------ Play now (quick play)

/** @type {import("./protocol").PoolInfo[]} */
let pools = [];
/** @type {{cancel: () => void} | null} */
let seeking = null;
/** @type {ReturnType<typeof setInterval> | undefined} */
let waitTimer;

function chosenPool() {
  return { rules: byId("quick-rules", HTMLSelectElement).value,
    players: Number(byId("quick-players", HTMLSelectElement).value) };
}

function describePool() {
  const { rules, players } = chosenPool();
  const pool = pools.find((p) => p.rules === rules && p.players === players);
  byId("quick-pools").textContent = pool
    ? `${pool.waiting} waiting, ${pool.playing} playing at ${rules} tables of ${players}.` : "";
  // each pool's waiting count beside its rules, for the table size chosen
  for (const option of byId("quick-rules", HTMLSelectElement).options) {
    const waiting = pools.find((p) => p.rules === option.value && p.players === players)?.waiting ?? 0;
    option.textContent = waiting ? `${option.value} (${waiting} waiting)` : option.value;
  }
}

async function loadPools() {
  try {
    /** @type {import("./protocol").PoolsAnswer} */
    const answer = await fetchJson("/api/pools");
    pools = answer.pools;
  } catch { return; }
  const select = byId("quick-rules", HTMLSelectElement);
  if (!select.options.length) {
    for (const rules of new Set(pools.map((p) => p.rules))) {
      const option = /** @type {HTMLOptionElement} */ (el("option", "", rules));
      option.value = rules;
      select.append(option);
    }
  }
  describePool();
}

/** @param {boolean} on */
function showWaiting(on) {
  byId("quick", HTMLFormElement).hidden = on;
  byId("quick-wait").hidden = !on;
  clearInterval(waitTimer);
}

function playNow() {
  const name = byId("quick-name", HTMLInputElement).value.trim();
  if (!name) {
    byId("quick-error").textContent = "Type a name: it is how the table knows you.";
    byId("quick-name").focus();
    return;
  }
  localStorage.setItem("ratscrew.name", name);
  const pool = chosenPool();
  byId("quick-error").textContent = "";
  showWaiting(true);
  const started = performance.now();
  let waiting = 1;
  // the status (read out when it changes) says who is sought and the pool's count; the clock
  // beside it ticks every second without being read out each time
  const say = () => {
    byId("quick-wait-text").textContent = `Looking for ${pool.players - 1 === 1 ? "an opponent" : `${pool.players - 1} opponents`}`
      + ` (${pool.rules}) · ${waiting} in the pool`;
  };
  const tick = () => { byId("quick-wait-time").textContent = waited((performance.now() - started) / 1000); };
  say();
  tick();
  waitTimer = setInterval(tick, 1000);
  byId("quick-cancel").focus();
  seeking = seekTable({ ...pool, name, playerKey: playerKey() }, {
    onSeeking(count) { waiting = count; say(); },
    onMatched(matched) {
      clearInterval(waitTimer);
      sessionStorage.setItem(MATCH_ITEM, JSON.stringify({ ...pool, room: matched.room }));
      byId("quick-wait-text").textContent = "Table found: sitting down…";
      location.assign(matched.url);
    },
    onError(message) {
      showWaiting(false);
      seeking = null;
      byId("quick-error").textContent = message;
      loadPools();
    },
  });
}

byId("quick").addEventListener("submit", (event) => { event.preventDefault(); playNow(); });
byId("quick-cancel").addEventListener("click", () => {
  seeking?.cancel();
  seeking = null;
  showWaiting(false);
  byId("play-now").focus();
  loadPools();
});
byId("quick-rules").addEventListener("change", describePool);
byId("quick-players").addEventListener("change", describePool);

async function startQuickPlay() {
  byId("quick-name", HTMLInputElement).value = localStorage.getItem("ratscrew.name") ?? "";
  await loadPools();
  // the counts stay fresh while the page is open and not seeking (its own count comes by the socket)
  setInterval(() => { if (!seeking && document.visibilityState === "visible") loadPools(); }, 10000);
  const again = takeSeekAgain();
  if (again && !again.arena && pools.some((p) => p.rules === again.rules && p.players === again.players)) {
    byId("quick-rules", HTMLSelectElement).value = again.rules;
    byId("quick-players", HTMLSelectElement).value = String(again.players);
    playNow();
  }
}

playerKey();  // the key is made on the first visit, to be sent in every join
showYourPage();
load();
startQuickPlay();
