// @ts-check
/** The room page: joining, the lobby, the table and the results. It only shows what the server
 * sends (the engine's observation, events and lines) and sends what the player does; every rule
 * is decided on the server. */
import { cardElement, drawPile } from "./cards.js";
import { byId, el, fetchJson } from "./dom.js";
import { cardFace, formatMs, reactionTo, remainingMs, seatStatus, keyName } from "./format.js";
import { splitTerms, TERMS } from "./glossary.js";
import { actionFor, DEFAULT_KEYS, loadKeys, saveKeys } from "./keys.js";
import { LogBook } from "./logbook.js";
import { newKey, playerKey, rememberPlayerId, replaceKey, showYourPage } from "./identity.js";
import { PROTOCOL_VERSION, RoomSocket } from "./net.js";
import { beep, setSound, soundOn } from "./sound.js";

/** @typedef {import("./net.js").Message} Message */
/** @typedef {import("./logbook.js").LogItem} LogItem */

const code = decodeURIComponent(location.pathname.split("/").pop() ?? "").toUpperCase();
const tokenKey = `ratscrew.token.${code}`;
const watchKey = `ratscrew.watch.${code}`;
const LOG_LIMIT = 400;

const page = {
  /** @type {number | null} */ seat: null,
  host: false,
  joined: false,
  /** @type {"player" | "waiting" | "watching" | null} */ status: null,
  /** @type {Message | null} */ room: null,
  /** @type {Message | null} */ state: null,
  stateArrivedAt: 0,
  /** @type {Map<number, number>} version -> performance.now() when painted */
  shown: new Map(),
  /** @type {Message | null} */ over: null,
  /** whether the player chose to look at the lobby (or the table) instead of the results */
  /** @type {"results" | "lobby" | "table"} */ afterGame: "results",
  keys: loadKeys(),
  /** @type {{name: string, mean_reaction_ms: number, memory: number}[]} */ bots: [],
  /** @type {{name: string, summary: string}[]} */ presets: [],
  log: new LogBook(),
  /** a fresh history (after joining) replaces the log; an asked-for one extends it */
  freshHistory: true,
  historyAsked: false,
  /** the turn and phase when the error on screen was shown: it goes when they change */
  /** @type {string | null} */ errorContext: null,
};

const socket = new RoomSocket(code, {
  onOpen() {
    setConnection(true);
    page.freshHistory = true;
    page.historyAsked = false;
    const token = localStorage.getItem(tokenKey);
    const name = localStorage.getItem("ratscrew.name");
    if (localStorage.getItem(watchKey)) { page.joined = true; socket.send({ type: "watch" }); }
    else if (token && name) socket.send({ type: "join", name, token, player_key: playerKey() });
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

/** What the error on screen is about: when this changes, the error is stale and goes. */
function errorContext() {
  const observation = page.state?.observation;
  return `${page.room?.phase}|${observation?.turn}|${observation?.cards_played}`;
}

/** @param {string} text */
function showError(text) {
  const node = byId("error");
  node.textContent = text;
  page.errorContext = errorContext();
  clearTimeout(Number(node.dataset.timer ?? 0));
  node.dataset.timer = String(setTimeout(clearError, 6000));
}

function clearError() {
  byId("error").textContent = "";
  page.errorContext = null;
}

/** An error about the game goes as soon as the game moved on (the turn, a card, the phase). */
function clearStaleError() {
  if (page.errorContext !== null && page.errorContext !== errorContext()) clearError();
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
      page.status = message.status ?? (message.seat === null ? "watching" : "player");
      if (message.token) {
        localStorage.setItem(tokenKey, message.token);
      } else if (page.status === "watching" && !message.name) {
        localStorage.removeItem(tokenKey);
      }
      rememberPlayerId(message.player_id);
      showYourPage();
      byId("name-error").textContent = "";
      byId("new-key").hidden = true;
      showJoin(false);
      break;
    case "room":
      page.room = message;
      if (message.you) {
        page.seat = message.you.seat;
        page.host = message.you.host;
        page.status = message.you.status ?? page.status;
      }
      if (message.phase !== "over") { page.over = null; page.afterGame = "results"; }
      clearStaleError();
      renderRoom();
      break;
    case "state": {
      page.state = message;
      page.stateArrivedAt = arrivedAt;
      renderTable(message);
      markShown(message.version);
      const { items, missing } = page.log.state(/** @type {any} */ (message));
      drawLog(items);
      if (missing !== null && !page.historyAsked) {
        page.historyAsked = true;
        socket.send({ type: "history", since: missing });
      }
      if (message.lines.length) announce(message.lines.join(". "));
      soundFor(message.events);
      clearStaleError();
      break;
    }
    case "history":
      if (page.freshHistory) {
        page.log.reset();
        byId("log").replaceChildren();
        page.freshHistory = false;
      }
      page.historyAsked = false;
      drawLog(page.log.history(/** @type {any} */ (message)));
      break;
    case "judgement":
      byId("judgement").textContent = message.text;
      drawLog(page.log.judgement(/** @type {any} */ (message)));
      break;
    case "game_over":
      page.over = message;
      renderResults(message);
      renderRoom();
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
      if (message.code === "name_taken" || message.code === "bad_key") {
        refusedJoin(message);
        break;
      }
      if (message.code === "bad_token") localStorage.removeItem(tokenKey);
      if (message.code === "bad_token" || (message.code === "wrong_phase" && !page.joined)) showJoin(true);
      if (!byId("join-panel").hidden && message.code === "bad_message") byId("name-error").textContent = message.message;
      showError(message.message);
      break;
    default:
      break; // a message type this page does not know: ignored, as the protocol asks
  }
}

/**
 * The server refused to seat this key: its name belongs to another player (`name_taken`), or
 * the key saved here is damaged (`bad_key`). The join box says so and lets the player answer.
 * @param {Message} message
 */
function refusedJoin(message) {
  page.joined = false;
  showJoin(true);
  const nameError = byId("name-error");
  if (message.code === "name_taken") {
    // the server's words, as a sentence; they ask for another name, and the page says so if not
    const said = String(message.message ?? "another player already has this name").trim();
    const sentence = `${said.charAt(0).toUpperCase()}${said.slice(1)}${/[.!?]$/.test(said) ? "" : "."}`;
    nameError.textContent = /another name/i.test(sentence) ? sentence : `${sentence} Choose another name.`;
    const name = byId("name", HTMLInputElement);
    name.select();
  } else {
    nameError.textContent = "The player key saved in this browser is damaged, so the server cannot "
      + "tell who you are. Make a new key to play (the record of the damaged key cannot be reached), "
      + "or import your key on your player page.";
    byId("new-key").hidden = false;
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
  if (/slapped too/i.test(line)) return "late";
  if (/misslap|burns|no pattern|empty pile/i.test(line)) return "misslap";
  if (/slap/i.test(line)) return "slap";
  return "";
}

/**
 * Text with the glossary's words turned into buttons that explain themselves.
 * @param {string} text
 * @returns {DocumentFragment}
 */
function withTerms(text) {
  const fragment = document.createDocumentFragment();
  for (const part of splitTerms(text)) {
    if (part.term === null || !(part.term in TERMS)) { fragment.append(part.text); continue; }
    const term = el("button", "term", part.text);
    term.setAttribute("type", "button");
    term.dataset.term = part.term;
    term.setAttribute("aria-label", `${part.text}: ${TERMS[part.term]}`);
    fragment.append(term);
  }
  return fragment;
}

/** @param {LogItem[]} items */
function drawLog(items) {
  if (!items.length) return;
  const log = byId("log");
  for (const item of items) {
    if (item.kind === "divider") {
      const divider = el("li", "divider", item.text);
      divider.setAttribute("role", "separator");
      log.append(divider);
      continue;
    }
    const line = el("li", item.kind === "judgement" ? "judged" : lineClass(item.text));
    line.append(withTerms(item.text));
    log.append(line);
  }
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

// ------------------------------------------------------------------ who you are

function renderYou() {
  const bar = byId("you-bar");
  const room = page.room;
  bar.hidden = !page.joined || !room;
  if (!room) return;
  const playing = room.phase === "playing";
  let text;
  if (page.status === "player" && page.seat !== null) {
    text = `You play in seat ${page.seat + 1}${page.host ? " and host this room" : ""}.`;
  } else if (page.status === "waiting") {
    text = playing
      ? "A game is on: you will be dealt into the next one (a free seat, or a bot's). Watch this one meanwhile."
      : "You are waiting for a seat: the host can open one for you.";
  } else {
    text = "You are watching.";
  }
  byId("you-status").textContent = text;
  byId("take-seat").hidden = page.status !== "watching";
  byId("stand").hidden = page.status === "watching" || (playing && page.status === "player");
  bar.dataset.status = page.status ?? "";
}

// ------------------------------------------------------------------ lobby

function renderRoom() {
  const room = page.room;
  if (!room) return;
  const over = room.phase === "over";
  const showLobby = room.phase === "lobby" || (over && page.afterGame === "lobby");
  document.body.dataset.phase = room.phase;
  byId("room-code").textContent = `Room ${room.code}`;
  // custom rules, even under a preset's name, are played unrated (issue 30)
  byId("rules-line").textContent = `${room.rules.name}: ${room.rules.summary}` +
    (room.rules.unrated ? ` · ${room.rules.unrated}` : "");
  byId("invite", HTMLInputElement).value = `${location.origin}/r/${room.code}`;
  byId("lobby").hidden = !showLobby;
  byId("table").hidden = room.phase === "lobby" || showLobby;
  byId("results").hidden = !over || page.over === null || page.afterGame !== "results";
  byId("host-controls").hidden = !page.host || !showLobby;
  byId("lobby-wait").hidden = page.host || !showLobby;
  byId("start").textContent = over ? "Start the next game" : "Start the game";
  byId("ready-label").hidden = page.seat === null || !showLobby;
  byId("rematch").hidden = !page.host;
  byId("rematch-wait").hidden = page.host;
  const seatsInput = byId("cfg-seats", HTMLInputElement);
  if (document.activeElement !== seatsInput) seatsInput.value = String(room.settings.seats);
  byId("cfg-pace", HTMLSelectElement).value = room.settings.pace;
  byId("cfg-judging", HTMLSelectElement).value = room.settings.judging;
  const rules = byId("cfg-rules", HTMLSelectElement);
  if (room.rules.preset) rules.value = room.rules.name;
  renderLobbySeats(room);
  renderWaiting(room);
  renderSeats();
  renderYou();
  renderHelp();
  byId("controls").classList.toggle("hidden", page.seat === null);
}

/** @param {Message} room */
function renderWaiting(room) {
  const line = byId("waiting-line");
  const waiting = /** @type {{name: string, you: boolean}[]} */ (room.waiting ?? []);
  line.hidden = waiting.length === 0;
  line.textContent = `Waiting for a seat: ${waiting.map((w) => (w.you ? `${w.name} (you)` : w.name)).join(", ")}`;
}

/**
 * A host's button that sends one message.
 * @param {string} text @param {string} label @param {Record<string, unknown>} message
 */
function hostButton(text, label, message) {
  const button = el("button", "small secondary", text);
  button.setAttribute("type", "button");
  button.append(el("span", "sr-only", ` ${label}`));  // the name says what, and keeps the visible text
  button.addEventListener("click", () => socket.send(message));
  return button;
}

/** @param {Message} room */
function renderLobbySeats(room) {
  const list = byId("lobby-seats");
  list.replaceChildren();
  const last = room.seats.length - 1;
  for (const seat of room.seats) {
    const item = el("li");
    item.dataset.kind = seat.kind;
    item.dataset.seat = String(seat.seat);
    const who = seat.kind === "open" ? "open seat: waiting for a friend" : seat.name;
    item.append(el("span", "name", who));
    if (seat.kind === "human") {
      if (seat.host) item.append(el("span", "tag host", "host"));
      if (seat.you || seat.seat === page.seat) item.append(el("span", "tag you", "you"));
      item.append(el("span", "tag", seat.connected ? (seat.ready ? "ready" : "here") : "away"));
    }
    if (page.host) {
      const tools = el("span", "seat-tools");
      if (seat.kind === "human" && seat.seat !== page.seat) {
        tools.append(hostButton("Kick", `${seat.name} out of the room`, { type: "kick", seat: seat.seat }));
      } else if (seat.kind !== "human") {
        const choice = /** @type {HTMLSelectElement} */ (el("select"));
        choice.setAttribute("aria-label", `Seat ${seat.seat + 1}: open or a bot`);
        choice.dataset.testid = `seat-${seat.seat}-choice`;
        for (const value of ["", ...page.bots.map((b) => b.name)]) {
          const option = /** @type {HTMLOptionElement} */ (el("option", "", value ? `${value} bot` : "open to a person"));
          option.value = value;
          choice.append(option);
        }
        choice.value = seat.kind === "bot" ? seat.bot : "";
        choice.addEventListener("change", () => socket.send({ type: "set_seat", seat: seat.seat, bot: choice.value || null }));
        tools.append(choice);
      }
      if (seat.seat > 0) tools.append(hostButton("↑", `move seat ${seat.seat + 1} up`, { type: "move_seat", from: seat.seat, to: seat.seat - 1 }));
      if (seat.seat < last) tools.append(hostButton("↓", `move seat ${seat.seat + 1} down`, { type: "move_seat", from: seat.seat, to: seat.seat + 1 }));
      item.append(" ", tools);
    }
    list.append(item);
  }
}

// ------------------------------------------------------------------ teaching

let helpFor = "";

/** Fill the "How to play" panel for the room's rules (once per ruleset). */
function renderHelp() {
  const room = page.room;
  if (!room || helpFor === room.rules.toml + page.bots.length) return;
  helpFor = room.rules.toml + page.bots.length;
  const patterns = byId("help-patterns");
  patterns.replaceChildren();
  for (const pattern of /** @type {{name: string, text: string, example: string[]}[]} */ (room.rules.patterns ?? [])) {
    const item = el("li", "pattern");
    const cards = el("div", "example");
    cards.setAttribute("role", "img");
    cards.setAttribute("aria-label", `${pattern.name}: ${pattern.example.map((c) => cardFace(c).label).join(" ")}`);
    for (const card of pattern.example) cards.append(cardElement(card));
    item.append(el("strong", "", pattern.name.replaceAll("_", " ")), el("span", "", `: ${pattern.text}`), cards);
    patterns.append(item);
  }
  const rules = byId("help-rules");
  rules.replaceChildren();
  for (const line of /** @type {string[]} */ (room.rules.lines)) {
    const item = el("li", line.endsWith(":") ? "heading" : "");
    item.append(withTerms(line.replace(/^- /, "")));
    rules.append(item);
  }
  const bots = byId("help-bots");
  bots.replaceChildren(...page.bots.map((bot) => el("li", "",
    `${bot.name}: reacts in about ${formatMs(bot.mean_reaction_ms)}, ${bot.memory ? `remembers up to ${bot.memory} cards` : "remembers no cards"}.`)));
  const terms = byId("help-terms");
  terms.replaceChildren();
  for (const [term, text] of Object.entries(TERMS)) terms.append(el("dt", "", term), el("dd", "", text));
  byId("help-play-key").textContent = page.keys.play;
  byId("help-slap-key").textContent = page.keys.slap;
}

const tip = byId("term-tip");
/** @param {HTMLElement} term */
function showTip(term) {
  const text = TERMS[term.dataset.term ?? ""];
  if (!text) return;
  tip.textContent = text;
  tip.hidden = false;
  const box = term.getBoundingClientRect();
  const width = Math.min(320, window.innerWidth - 16);
  tip.style.maxWidth = `${width}px`;
  tip.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`;
  tip.style.top = `${box.bottom + window.scrollY + 6}px`;
}
function hideTip() { tip.hidden = true; }
document.addEventListener("click", (event) => {
  const term = /** @type {HTMLElement} */ (event.target).closest?.(".term");
  if (term instanceof HTMLElement) { event.preventDefault(); showTip(term); }  // a tap shows it...
  else hideTip();  // ...a tap anywhere else hides it
});
// hovering explains a word with a mouse; a touch screen has no hover, only the tap above
document.addEventListener("pointerover", (event) => {
  const term = /** @type {HTMLElement} */ (event.target).closest?.(".term");
  if (event.pointerType === "mouse" && term instanceof HTMLElement) showTip(term);
});
document.addEventListener("pointerout", (event) => {
  if (event.pointerType === "mouse" && /** @type {HTMLElement} */ (event.target).closest?.(".term")) hideTip();
});
document.addEventListener("focusin", (event) => {
  const term = /** @type {HTMLElement} */ (event.target).closest?.(".term");
  if (term instanceof HTMLElement) showTip(term); else hideTip();
});
document.addEventListener("keydown", (event) => { if (event.key === "Escape") hideTip(); });
for (const label of document.querySelectorAll("[data-term-text]")) {
  const text = /** @type {HTMLElement} */ (label).dataset.termText ?? "";
  label.replaceChildren(withTerms(text));
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
    const name = el("div", "name", seat.name ?? "open seat");
    if (index === page.seat) {
      node.classList.add("you");
      name.append(" ", el("span", "tag you", "you"));
    }
    node.append(name);
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
  byId("deck-count").textContent = page.seat === null ? "" : `${mine} card${mine === 1 ? "" : "s"}`;
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
  const winner = over.winner === null ? null : over.results.find((/** @type {any} */ r) => r.seat === over.winner);
  byId("winner").textContent = winner ? `${winner.name}${winner.seat === page.seat ? " (you)" : ""} wins!` : "Nobody wins";
  const body = byId("results-body");
  body.replaceChildren();
  for (const result of over.results) {
    const row = el("tr", result.seat === over.winner ? "winner" : "");
    const name = el("th", "", result.name);
    name.setAttribute("scope", "row");
    if (result.seat === page.seat) name.append(" ", el("span", "tag you", "you"));
    row.append(name, el("td", "", String(result.slaps)), el("td", "", String(result.misslaps)),
      el("td", "", formatMs(result.median_reaction_ms)), el("td", "wide", formatMs(result.best_reaction_ms)),
      el("td", "", result.cards_won === undefined ? "–" : String(result.cards_won)));
    body.append(row);
  }
  byId("record", HTMLAnchorElement).href = over.record_url;
  byId("replay-link", HTMLAnchorElement).href = over.replay_url;
  page.afterGame = "results";
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
  if (!name) {
    byId("name-error").textContent = "Type a name with at least one letter or digit: it is how the table knows you.";
    byId("name").focus();
    return;
  }
  byId("name-error").textContent = "";
  localStorage.setItem("ratscrew.name", name);
  localStorage.removeItem(watchKey);
  socket.send({ type: "join", name, player_key: playerKey() });
});
byId("new-key").addEventListener("click", () => {
  replaceKey(newKey());
  byId("new-key").hidden = true;
  byId("name-error").textContent = "A new key is saved in this browser: sit down again.";
  showYourPage();
});
byId("watch").addEventListener("click", () => {
  page.joined = true;
  localStorage.setItem(watchKey, "1");
  socket.send({ type: "watch" });
  showJoin(false);
});
byId("take-seat").addEventListener("click", () => {
  localStorage.removeItem(watchKey);
  const name = localStorage.getItem("ratscrew.name");
  if (name) {
    socket.send({ type: "join", name, player_key: playerKey(),
      ...(localStorage.getItem(tokenKey) ? { token: localStorage.getItem(tokenKey) } : {}) });
  }
  else showJoin(true);
});
byId("stand").addEventListener("click", () => { localStorage.setItem(watchKey, "1"); socket.send({ type: "stand" }); });

const openSeatsDialog = byId("open-seats-dialog", HTMLDialogElement);
byId("start").addEventListener("click", () => {
  const room = page.room;
  if (room?.phase === "over") { socket.send({ type: "rematch" }); return; }
  const open = room?.open_seats ?? 0;
  if (!open) { socket.send({ type: "start" }); return; }
  byId("open-seats-text").textContent = open === 1
    ? "One seat has nobody in it. Fill it with a bot, or play without it?"
    : `${open} seats have nobody in them. Fill them with bots, or play without them?`;
  openSeatsDialog.returnValue = "";
  openSeatsDialog.showModal();
});
openSeatsDialog.addEventListener("close", () => {
  const choice = openSeatsDialog.returnValue;
  if (choice === "bots") socket.send({ type: "start", open_seats: "bots", bot: byId("fill-level", HTMLSelectElement).value });
  else if (choice === "remove") socket.send({ type: "start", open_seats: "remove" });
});
byId("rematch").addEventListener("click", () => { page.over = null; byId("results").hidden = true; socket.send({ type: "rematch" }); });
byId("to-lobby").addEventListener("click", () => { page.afterGame = "lobby"; renderRoom(); });
byId("see-table").addEventListener("click", () => { page.afterGame = "table"; renderRoom(); });
const helpDialog = byId("help-dialog", HTMLDialogElement);
byId("help-button").addEventListener("click", () => { renderHelp(); helpDialog.showModal(); });
for (const opener of document.querySelectorAll("[data-help=open]")) {
  opener.addEventListener("click", () => { renderHelp(); helpDialog.showModal(); });
}
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
  byId("help-play-key").textContent = page.keys.play;
  byId("help-slap-key").textContent = page.keys.slap;
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
    page.bots = bots.levels;
    const fill = byId("fill-level", HTMLSelectElement);
    for (const level of page.bots) {
      const option = /** @type {HTMLOptionElement} */ (el("option", "", level.name));
      option.value = level.name;
      fill.append(option);
    }
    fill.value = "casual";
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
showYourPage();
loadChoices();
socket.connect();
