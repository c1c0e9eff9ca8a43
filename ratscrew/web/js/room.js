// @ts-check
/** The room page: joining, the lobby, the table and the results. It only shows what the server
 * sends (the engine's observation, events and lines) and sends what the player does; every rule
 * is decided on the server. */
import { drawPile } from "./cards.js";
import { byId, el, fetchJson } from "./dom.js";
import { cardFace, formatMs, reactionTo, remainingMs, seatStatus, keyName } from "./format.js";
import { actionFor, DEFAULT_KEYS, loadKeys, saveKeys } from "./keys.js";
import { PROTOCOL_VERSION, RoomSocket } from "./net.js";
import { beep, setSound, soundOn } from "./sound.js";

/** @typedef {import("./net.js").Message} Message */

const code = decodeURIComponent(location.pathname.split("/").pop() ?? "").toUpperCase();
const tokenKey = `ratscrew.token.${code}`;
const LOG_LIMIT = 200;

const page = {
  /** @type {number | null} */ seat: null,
  host: false,
  joined: false,
  /** @type {Message | null} */ room: null,
  /** @type {Message | null} */ state: null,
  stateArrivedAt: 0,
  /** @type {Map<number, number>} version -> performance.now() when painted */
  shown: new Map(),
  /** @type {Message | null} */ over: null,
  keys: loadKeys(),
  /** @type {string[]} */ bots: [],
  /** @type {{name: string, summary: string}[]} */ presets: [],
};

const socket = new RoomSocket(code, {
  onOpen() {
    setConnection(true);
    const token = localStorage.getItem(tokenKey);
    const name = localStorage.getItem("ratscrew.name");
    if (token && name) socket.send({ type: "join", name, token });
    else if (page.joined && page.seat === null) socket.send({ type: "watch" });
    else showJoin(true);
  },
  onMessage: handle,
  onClose(willRetry) {
    setConnection(false, willRetry ? "reconnecting…" : "disconnected");
  },
});

/** @param {boolean} online @param {string} [text] */
function setConnection(online, text) {
  const node = byId("connection");
  node.textContent = online ? "connected" : (text ?? "offline");
  node.className = `connection ${online ? "online" : "offline"}`;
}

/** @param {boolean} show */
function showJoin(show) {
  byId("join-panel").hidden = !show;
  if (show) {
    const name = byId("name", HTMLInputElement);
    name.value = localStorage.getItem("ratscrew.name") ?? "";
    name.focus();
  }
}

/** @param {string} text */
function showError(text) {
  const node = byId("error");
  node.textContent = text;
  clearTimeout(Number(node.dataset.timer ?? 0));
  node.dataset.timer = String(setTimeout(() => { node.textContent = ""; }, 5000));
}

/** @param {string} text */
function announce(text) {
  byId("announce").textContent = text;
}

/**
 * @param {Message} message
 * @param {number} arrivedAt
 */
function handle(message, arrivedAt) {
  switch (message.type) {
    case "welcome":
      if (message.protocol !== PROTOCOL_VERSION) {
        showError("This page is out of date: reload it.");
        socket.stop();
        return;
      }
      page.joined = true;
      page.seat = message.seat;
      page.host = Boolean(message.host);
      if (message.token) {
        localStorage.setItem(tokenKey, message.token);
      } else if (message.seat === null) {
        localStorage.removeItem(tokenKey);
      }
      showJoin(false);
      break;
    case "room":
      page.room = message;
      if (message.you) { page.seat = message.you.seat; page.host = message.you.host; }
      if (message.phase !== "over") page.over = null;
      renderRoom();
      break;
    case "state":
      page.state = message;
      page.stateArrivedAt = arrivedAt;
      renderTable(message);
      markShown(message.version);
      for (const line of message.lines) addLog(line, lineClass(line));
      if (message.lines.length) announce(message.lines.join(". "));
      soundFor(message.events);
      break;
    case "judgement":
      byId("judgement").textContent = message.text;
      addLog(message.text, "slap");
      break;
    case "game_over":
      page.over = message;
      renderResults(message);
      beep("win");
      break;
    case "kicked":
      localStorage.removeItem(tokenKey);
      page.seat = null;
      showError(message.message);
      break;
    case "replaced":
      showError(message.message);
      break;
    case "error":
      if (message.code === "bad_token") localStorage.removeItem(tokenKey);
      if (message.code === "bad_token" || (message.code === "wrong_phase" && !page.joined)) showJoin(true);
      showError(message.message);
      break;
    default:
      break; // a message type this page does not know: ignored, as the protocol asks
  }
}

/** Remember when a state was actually on screen: after the next paint. @param {number} version */
function markShown(version) {
  requestAnimationFrame(() => {
    setTimeout(() => {
      page.shown.set(version, performance.now());
      for (const old of page.shown.keys()) if (old < version - 20) page.shown.delete(old);
    }, 0);
  });
}

/** @param {string} line */
function lineClass(line) {
  if (/misslap|burns/i.test(line)) return "misslap";
  if (/slap/i.test(line)) return "slap";
  return "";
}

/** @param {string} text @param {string} [className] */
function addLog(text, className) {
  const log = byId("log");
  log.append(el("li", className ?? "", text));
  while (log.children.length > LOG_LIMIT) log.firstElementChild?.remove();
  log.scrollTop = log.scrollHeight;
}

/** @param {{kind: string}[]} events */
function soundFor(events) {
  for (const event of events) {
    if (event.kind === "card_played") beep("card");
    else if (event.kind === "slap_won") beep("slap");
    else if (event.kind === "misslap") beep("miss");
  }
}

/** @param {number | null} seat */
function nameOf(seat) {
  if (seat === null || !page.room) return "";
  return page.room.seats[seat]?.name ?? `Seat ${seat + 1}`;
}

// ------------------------------------------------------------------ lobby

function renderRoom() {
  const room = page.room;
  if (!room) return;
  document.body.dataset.phase = room.phase;
  byId("room-code").textContent = `Room ${room.code}`;
  byId("rules-line").textContent = `${room.rules.name}: ${room.rules.summary}`;
  byId("invite", HTMLInputElement).value = `${location.origin}/r/${room.code}`;
  byId("lobby").hidden = room.phase !== "lobby";
  byId("table").hidden = room.phase === "lobby";
  byId("results").hidden = room.phase !== "over" || page.over === null;
  byId("host-controls").hidden = !page.host || room.phase !== "lobby";
  byId("ready-label").hidden = page.seat === null || room.phase !== "lobby";
  byId("rematch").hidden = !page.host;
  const seatsInput = byId("cfg-seats", HTMLInputElement);
  if (document.activeElement !== seatsInput) seatsInput.value = String(room.settings.seats);
  byId("cfg-pace", HTMLSelectElement).value = room.settings.pace;
  byId("cfg-judging", HTMLSelectElement).value = room.settings.judging;
  const rules = byId("cfg-rules", HTMLSelectElement);
  if (room.rules.preset) rules.value = room.rules.name;
  renderLobbySeats(room);
  renderSeats();
  byId("controls").classList.toggle("hidden", page.seat === null);
}

/** @param {Message} room */
function renderLobbySeats(room) {
  const list = byId("lobby-seats");
  list.replaceChildren();
  for (const seat of room.seats) {
    const item = el("li");
    item.dataset.kind = seat.kind;
    const who = seat.kind === "open" ? "open seat" : seat.name;
    item.append(el("span", "name", who));
    if (seat.kind === "human") {
      if (seat.host) item.append(el("span", "tag host", "host"));
      if (seat.seat === page.seat) item.append(el("span", "tag you", "you"));
      item.append(el("span", "tag", seat.connected ? (seat.ready ? "ready" : "here") : "away"));
      if (page.host && seat.seat !== page.seat) {
        const kick = el("button", "small secondary", "Kick");
        kick.addEventListener("click", () => socket.send({ type: "kick", seat: seat.seat }));
        item.append(" ", kick);
      }
    } else if (page.host) {
      const choice = /** @type {HTMLSelectElement} */ (el("select"));
      choice.setAttribute("aria-label", `Seat ${seat.seat + 1}`);
      for (const value of ["", ...page.bots]) {
        const option = /** @type {HTMLOptionElement} */ (el("option", "", value ? `${value} bot` : "open to a person"));
        option.value = value;
        choice.append(option);
      }
      choice.value = seat.kind === "bot" ? seat.bot : "";
      choice.addEventListener("change", () => socket.send({ type: "set_seat", seat: seat.seat, bot: choice.value || null }));
      item.append(" ", choice);
    }
    list.append(item);
  }
}

// ------------------------------------------------------------------ table

function renderSeats() {
  const room = page.room;
  if (!room) return;
  const observation = page.state?.observation;
  const box = byId("seats");
  box.replaceChildren();
  room.seats.forEach((/** @type {any} */ seat, /** @type {number} */ index) => {
    const node = el("div", "seat");
    node.dataset.seat = String(index);
    node.dataset.testid = `seat-${index}`;
    const cards = observation ? observation.hand_sizes[index] : 0;
    const status = observation ? observation.status[index] : "in";
    if (observation && observation.turn === index) node.classList.add("turn");
    if (status === "out") node.classList.add("out");
    if (index === page.seat) node.classList.add("you");
    node.append(el("div", "name", seat.name ?? "open seat"));
    node.append(el("div", "count", seatStatus(status, cards)));
    let meta = seat.kind === "bot" ? `${seat.bot} bot` : (seat.connected ? "connected" : "away");
    if (seat.kind === "human" && seat.ping_ms !== null && seat.ping_ms !== undefined) meta += ` · ping ${seat.ping_ms} ms`;
    node.append(el("div", "meta", meta));
    box.append(node);
  });
}

/** @param {Message} state */
function renderTable(state) {
  const observation = state.observation;
  byId("table").hidden = false;
  byId("lobby").hidden = true;
  drawPile(byId("pile"), observation.pile);
  const burned = byId("burned");
  burned.replaceChildren(...observation.burned.slice(-8).map((/** @type {string} */ card) =>
    el("span", `mini card-${cardFace(card).suitName}`, cardFace(card).label)));
  if (observation.burned.length > 8) burned.prepend(`${observation.burned.length} cards, last: `);
  if (observation.burned.length === 0) burned.textContent = "none";
  byId("penalty").textContent = String(observation.penalty_pile);
  const mine = page.seat === null ? 0 : observation.hand_sizes[page.seat];
  byId("deck-count").textContent = page.seat === null ? "" : String(mine);
  byId("deck").dataset.cards = String(mine);
  const playing = !observation.over && page.seat !== null && observation.status[page.seat] !== "out";
  byId("play-btn", HTMLButtonElement).disabled = !playing || observation.turn !== page.seat;
  byId("slap-btn", HTMLButtonElement).disabled = !playing;
  byId("resign", HTMLButtonElement).disabled = !playing;
  byId("table").dataset.turn = observation.turn === null ? "" : String(observation.turn);
  byId("table").dataset.cardsPlayed = String(observation.cards_played);
  renderSeats();
  renderStatus();
}

function renderStatus() {
  const state = page.state;
  if (!state) return;
  const observation = state.observation;
  const since = performance.now() - page.stateArrivedAt;
  const node = byId("status");
  /** @type {string} */
  let text;
  if (observation.over) {
    text = observation.winner === null ? "The game is over." : `${nameOf(observation.winner)} wins!`;
  } else if (observation.collection) {
    const c = observation.collection;
    const left = formatMs(remainingMs(c.collect_at, state.sent_at, since));
    text = c.open_to_all
      ? `Anyone may slap to claim the pile: ${left}`
      : `${nameOf(c.winner)} takes the pile in ${left}`;
    if (c.exclusive_until !== null && c.exclusive_until !== undefined) {
      text = `${nameOf(c.winner)} may slap to claim the pile: ${formatMs(remainingMs(c.exclusive_until, state.sent_at, since))}`;
    }
  } else if (observation.challenge) {
    const ch = observation.challenge;
    const chances = ch.chances_left === 1 ? "1 chance" : `${ch.chances_left} chances`;
    text = `${nameOf(ch.challenger)} played ${cardFace(ch.card).label}: ${nameOf(ch.target)} has ${chances} to answer`;
  } else if (observation.turn !== null) {
    text = observation.turn === page.seat ? "Your turn: play a card" : `${nameOf(observation.turn)}'s turn`;
  } else {
    text = "";
  }
  if (observation.tie_window_until !== null && observation.tie_window_until !== undefined) {
    const left = remainingMs(observation.tie_window_until, state.sent_at, since);
    if (left > 0) text += ` · tie window ${formatMs(left)}`;
  }
  node.textContent = text;
}

// ------------------------------------------------------------------ results

/** @param {Message} over */
function renderResults(over) {
  byId("results").hidden = false;
  byId("winner").textContent = over.winner === null ? "Nobody wins" : `${nameOf(over.winner)} wins`;
  const body = byId("results-body");
  body.replaceChildren();
  for (const result of over.results) {
    const row = el("tr");
    row.append(el("td", "", result.name), el("td", "", String(result.slaps)), el("td", "", String(result.misslaps)),
      el("td", "", formatMs(result.median_reaction_ms)), el("td", "", formatMs(result.best_reaction_ms)));
    body.append(row);
  }
  byId("record", HTMLAnchorElement).href = over.record_url;
  byId("replay-link", HTMLAnchorElement).href = over.replay_url;
  byId("rematch").hidden = !page.host;
}

// ------------------------------------------------------------------ input

/** @param {"play" | "slap" | "resign"} kind @param {number} eventTime */
function act(kind, eventTime) {
  if (page.seat === null) return;
  const stamp = reactionTo(page.shown, eventTime);
  socket.send(stamp === null ? { type: kind } : { type: kind, ...stamp });
}

document.addEventListener("keydown", (event) => {
  const target = /** @type {HTMLElement} */ (event.target);
  if (event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
  if (target.closest("input, select, textarea, dialog")) return;
  const action = actionFor(page.keys, event.key);
  if (action === null || page.room?.phase !== "playing") return;
  event.preventDefault();
  act(action, event.timeStamp);
});
byId("deck").addEventListener("pointerdown", (event) => { event.preventDefault(); act("play", event.timeStamp); });
byId("pile").addEventListener("pointerdown", (event) => { event.preventDefault(); act("slap", event.timeStamp); });
byId("play-btn").addEventListener("click", (event) => act("play", event.timeStamp));
byId("slap-btn").addEventListener("click", (event) => act("slap", event.timeStamp));
byId("resign").addEventListener("click", (event) => {
  if (confirm("Resign this game? Your cards are burned under the pile.")) act("resign", event.timeStamp);
});

byId("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = byId("name", HTMLInputElement).value.trim();
  if (!name) return;
  localStorage.setItem("ratscrew.name", name);
  socket.send({ type: "join", name });
});
byId("watch").addEventListener("click", () => { page.joined = true; socket.send({ type: "watch" }); showJoin(false); });
byId("start").addEventListener("click", () => socket.send({ type: "start" }));
byId("rematch").addEventListener("click", () => { page.over = null; byId("results").hidden = true; socket.send({ type: "rematch" }); });
byId("ready", HTMLInputElement).addEventListener("change", (event) =>
  socket.send({ type: "ready", ready: /** @type {HTMLInputElement} */ (event.target).checked }));
byId("cfg-seats", HTMLInputElement).addEventListener("change", (event) =>
  socket.send({ type: "configure", seats: Number(/** @type {HTMLInputElement} */ (event.target).value) }));
byId("cfg-rules", HTMLSelectElement).addEventListener("change", (event) =>
  socket.send({ type: "configure", rules: /** @type {HTMLSelectElement} */ (event.target).value }));
byId("cfg-pace", HTMLSelectElement).addEventListener("change", (event) =>
  socket.send({ type: "configure", pace: /** @type {HTMLSelectElement} */ (event.target).value }));
byId("cfg-judging", HTMLSelectElement).addEventListener("change", (event) =>
  socket.send({ type: "configure", judging: /** @type {HTMLSelectElement} */ (event.target).value }));
byId("copy").addEventListener("click", async () => {
  const link = byId("invite", HTMLInputElement);
  try {
    await navigator.clipboard.writeText(link.value);
    byId("copy").textContent = "Copied";
  } catch {
    link.select();
    byId("copy").textContent = "Select and copy";
  }
});

const mute = byId("mute");
function renderMute() {
  mute.textContent = soundOn() ? "Sound: on" : "Sound: off";
  mute.setAttribute("aria-pressed", String(!soundOn()));
}
mute.addEventListener("click", () => { setSound(!soundOn()); renderMute(); });
renderMute();

// key remapping
const dialog = byId("keys-dialog", HTMLDialogElement);
function renderKeys() {
  byId("play-key").textContent = page.keys.play;
  byId("slap-key").textContent = page.keys.slap;
  byId("key-play", HTMLInputElement).value = page.keys.play;
  byId("key-slap", HTMLInputElement).value = page.keys.slap;
}
for (const which of /** @type {const} */ (["play", "slap"])) {
  byId(`key-${which}`).addEventListener("keydown", (event) => {
    event.preventDefault();
    const name = keyName(event.key);
    const other = which === "play" ? "slap" : "play";
    if (name === "Escape" || name === "Tab") return;
    if (name === page.keys[other]) { showError(`${name} is already the ${other} key`); return; }
    page.keys = { ...page.keys, [which]: name };
    saveKeys(page.keys);
    renderKeys();
  });
}
byId("keys-reset").addEventListener("click", () => { page.keys = { ...DEFAULT_KEYS }; saveKeys(page.keys); renderKeys(); });
byId("keys-button").addEventListener("click", () => dialog.showModal());
renderKeys();

setInterval(renderStatus, 100);

async function loadChoices() {
  try {
    const [presets, bots] = await Promise.all([fetchJson("/api/presets"), fetchJson("/api/bots")]);
    page.presets = presets.presets;
    page.bots = bots.levels.map((/** @type {{name: string}} */ level) => level.name);
    const rules = byId("cfg-rules", HTMLSelectElement);
    for (const preset of page.presets) {
      const option = /** @type {HTMLOptionElement} */ (el("option", "", preset.name));
      option.value = preset.name;
      rules.append(option);
    }
    renderRoom();
  } catch (error) {
    showError(`Could not load the rule and bot lists: ${error instanceof Error ? error.message : error}`);
  }
}

byId("room-code").textContent = `Room ${code}`;
loadChoices();
socket.connect();
