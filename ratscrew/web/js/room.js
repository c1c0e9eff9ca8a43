// @ts-check
/** The room page: joining, the lobby, the table and the results. It only shows what the server
 * sends (the engine's observation, events and lines) and sends what the player does; every rule
 * is decided on the server. */
import { cardElement, drawPile } from "./cards.js";
import { byId, el, fetchJson } from "./dom.js";
import { cardFace, clockLeft, formatMs, mayAct, reactionTo, remainingMs, seatStatus, keyName } from "./format.js";
import { splitTerms, TERMS } from "./glossary.js";
import { collectionStatus } from "./status.js";
import { actionFor, DEFAULT_KEYS, loadKeys, saveKeys } from "./keys.js";
import { buzzFor, nextNews, withJudgement } from "./news.js";
import { RoomSession } from "./session.js";
import { importPlayer, newKey, playerKey, rememberPlayerId, replaceKey, showYourPage } from "./identity.js";
import { isOfflineTable, roomTransport } from "./offline/transport.js";
import { beep, setSound, soundOn } from "./sound.js";
import { buzz, canVibrate, setVibration, vibrationOn } from "./vibrate.js";
import { ARENA_NEXT_MS, againUrl, matchedPool, seekAgain } from "./quickplay.js";

/** @typedef {import("./protocol").ServerMessage} Message */
/** @typedef {import("./protocol").RoomMessage} RoomMessage */
/** @typedef {import("./protocol").StateMessage} StateMessage */
/** @typedef {import("./protocol").GameOverMessage} GameOverMessage */
/** @typedef {import("./protocol").ErrorMessage} ErrorMessage */
/** @typedef {import("./protocol").PublicEvent} PublicEvent */
/** @typedef {import("./logbook.js").LogItem} LogItem */
/** @typedef {import("./news.js").NewsItem} NewsItem */

const code = decodeURIComponent(location.pathname.split("/").pop() ?? "").toUpperCase();
const tokenKey = `ratscrew.token.${code}`;
const watchKey = `ratscrew.watch.${code}`;
const LOG_LIMIT = 400;

/** What this page knows of the room (seat, room, state, results, the log): see session.js. */
const session = new RoomSession();

const page = {
  /** @type {Map<number, number>} version -> performance.now() when painted */
  shown: new Map(),
  /** whether the player chose to look at the lobby (or the table) instead of the results */
  /** @type {"results" | "lobby" | "table"} */ afterGame: "results",
  keys: loadKeys(),
  /** @type {{name: string, mean_reaction_ms: number, memory: number}[]} */ bots: [],
  /** @type {{name: string, description: string, reaction: string}[]} */ agents: [],
  /** @type {{name: string, summary: string}[]} */ presets: [],
  /** the turn and phase when the error on screen was shown: it goes when they change */
  /** @type {string | null} */ errorContext: null,
  /** the lines beside the pile, newest first; they go when the next card is played */
  /** @type {NewsItem[]} */ news: [],
  /** the version of the last state in which a card was played: a judgement from before it is old */
  newsSince: 0,
  /** the room's rules before joining (GET /api/rooms/CODE), for "How to play" */
  /** @type {import("./protocol").RulesInfo | null} */ rules: null,
  /** the game the lines beside the pile are about */
  /** @type {number | undefined} */ game: undefined,
};

/** the quick-play pool this room was matched from, if this tab came by "Play now" */
const quickPool = matchedPool(code);
/** whether this room's game has begun (a matched room that closes before it did seeks again) */
let quickGameBegan = false;

const socket = roomTransport(code, {  // a websocket, or the offline table's worker on /play
  onOpen() {
    setConnection(true);
    session.connected();
    const token = localStorage.getItem(tokenKey);
    const name = localStorage.getItem("ratscrew.name");
    if (localStorage.getItem(watchKey)) { session.joined = true; socket.send({ type: "watch" }); }
    else if (token && name) socket.send({ type: "join", name, token, player_key: playerKey() });
    // matched by quick play: the seat is kept for this key, so the page sits down by itself
    else if (quickPool && name && !session.joined) socket.send({ type: "join", name, player_key: playerKey() });
    else if (session.joined && session.seat === null) socket.send({ type: "watch" });
    else showJoin(true);
  },
  onMessage: handle,
  onClose(willRetry, reason) {
    setConnection(false, willRetry ? "reconnecting…" : reason ? `disconnected: ${reason}` : "disconnected");
    // a matched table that closed before its game began (someone matched did not come): back
    // to the pool, where this player goes to the front
    if (!willRetry && quickPool && !quickGameBegan) {
      seekAgain(quickPool);
      location.assign(againUrl(quickPool));  // an arena's table: back to the arena
    }
  },
  onUnsent(_message, coming) {
    // said in full: the connection line at the page's top may be scrolled out of view
    showError(coming ? "Not sent: the connection to the server is down and reconnecting. Try again once it is back."
      : "Not sent: this page is no longer connected. Reload it to connect again.");
  },
});

/** @param {boolean} online @param {string} [text] */
function setConnection(online, text) {
  const node = byId("connection");
  node.textContent = online ? "connected" : (text ?? "offline");
  node.className = `connection ${online ? "online" : "offline"}`;
  // the lobby's seats are what the server last said: while it cannot say more, say so there
  // too (on a phone the connection line is scrolled out of view)
  const note = byId("lobby-offline");
  note.hidden = online;
  note.textContent = online ? "" : `Not connected (${text ?? "offline"}): the seats below are as they were when the connection dropped.`;
  byId("lobby-seats").classList.toggle("stale", !online);
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
  const observation = session.state?.observation;
  return `${session.room?.phase}|${observation?.turn}|${observation?.cards_played}`;
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
 * One message from the room: the session keeps what it says (session.js), and the page draws it.
 * @param {Message} message
 * @param {number} arrivedAt
 */
function handle(message, arrivedAt) {
  if (message.type === "state") quickGameBegan = true;
  const update = session.receive(message, arrivedAt);
  if (update.outdated) {
    showError("This page is out of date: reload it.");
    socket.stop();
    return;
  }
  if (update.token !== null) localStorage.setItem(tokenKey, update.token);
  if (update.forgetToken) localStorage.removeItem(tokenKey);
  if (update.resetLog) byId("log").replaceChildren();
  switch (message.type) {
    case "welcome":
      rememberPlayerId(message.player_id);
      showYourPage();
      byId("name-error").textContent = "";
      byId("new-key").hidden = true;
      byId("bring-player").hidden = true;
      showJoin(false);
      break;
    case "room":
      if (message.phase !== "over") page.afterGame = "results";
      clearStaleError();
      renderRoom();
      break;
    case "lobby_change":  // only the people changed: the waiting list and how many watch
      if (session.room) renderRoom();
      break;
    case "state":
      cuesBefore(update.previousState, message);
      renderTable(message);
      renderNews(message);
      markShown(message.version);
      break;
    case "judgement":
      if ((message.version ?? 0) >= page.newsSince) {
        page.news = withJudgement(page.news, message.text);
        drawNews();
      }
      byId("judgement").title = message.details ?? "";  // the figures and link compensation, on demand
      break;
    case "game_over":
      renderResults(message);
      renderRoom();
      beep("win");
      // an arena's table: back to the arena, which pairs the player again at once (issue 50)
      if (quickPool?.arena) setTimeout(() => byId("play-again").click(), ARENA_NEXT_MS);
      break;
    case "kicked":
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
      if (message.code === "bad_token" || ((message.code === "wrong_phase" || message.code === "room_full") && !session.joined)) showJoin(true);
      if (!byId("join-panel").hidden && message.code === "bad_message") byId("name-error").textContent = message.message;
      showError(message.message);
      break;
    default:
      break; // a message type this page does not know: ignored, as the protocol asks
  }
  drawLog(update.log);
  for (const reply of update.send) socket.send(reply);
  if (message.type === "state") {
    if (message.lines.length) announce(message.lines.join(". "));
    soundFor(message.events);
    clearStaleError();
  } else if (message.type === "notice" && update.log.length) {
    announce(update.log[0].text);
  }
}

/**
 * The server refused to seat this key: its name belongs to another player (`name_taken`), or
 * the key saved here is damaged (`bad_key`). The join box says so and lets the player answer.
 * @param {ErrorMessage} message
 */
function refusedJoin(message) {
  showJoin(true);
  const nameError = byId("name-error");
  if (message.code === "name_taken") {
    // the server's words, as a sentence; they ask for another name, and the page says so if not
    const said = String(message.message ?? "another player already has this name").trim();
    const sentence = `${said.charAt(0).toUpperCase()}${said.slice(1)}${/[.!?]$/.test(said) ? "" : "."}`;
    nameError.textContent = /another name/i.test(sentence) ? sentence : `${sentence} Choose another name.`;
    byId("bring-player").hidden = false; // the same person on a new device: their import code
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

/** How a log line looks, by the kind of event it tells (never by its words); see logbook.js. */
const LINE_CLASSES = /** @type {Record<string, string>} */ ({
  slap_won: "slap", slap_tie: "slap", slapped_in: "slap",
  misslap: "misslap", locked_out: "misslap", player_barred: "misslap",
  slap_ignored: "late",
  judgement: "judged",
  // the room's own notes (a state's `note_kinds`): someone away or the game given up, someone back
  seat_away: "away", game_abandoned: "away", seat_back: "back",
});

/** @param {LogItem} item */
function lineClass(item) {
  if (item.kind === "notice") return "notice";
  return LINE_CLASSES[item.eventKind ?? ""] ?? "";
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
  // follow new lines only while the reader is at the bottom: scrolling back is respected
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  for (const item of items) {
    if (item.kind === "divider") {
      const divider = el("li", "divider", item.text);
      divider.setAttribute("role", "separator");
      log.append(divider);
      continue;
    }
    const line = el("li", lineClass(item));
    if (item.eventKind) line.dataset.kind = item.eventKind;
    // each game's lines are numbered from 1 (the divider, an item of the list, takes no number)
    if (log.lastElementChild?.classList.contains("divider")) line.setAttribute("value", "1");
    line.append(withTerms(item.text));
    log.append(line);
  }
  while (log.children.length > LOG_LIMIT) log.firstElementChild?.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

// The table around the log changes size after lines came (the results, the finished table, a
// phone's rows): a log that was following its newest line keeps it in view; one scrolled back stays.
let logFollowing = true;
byId("log").addEventListener("scroll", () => {
  const log = byId("log");
  logFollowing = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
});
new ResizeObserver(() => {
  const log = byId("log");
  if (logFollowing) log.scrollTop = log.scrollHeight;
}).observe(byId("log"));

// ------------------------------------------------------------------ beside the pile

/** Update the lines beside the pile from a state's events (a card clears them). @param {StateMessage} state */
function renderNews(state) {
  const events = state.events ?? [];
  const lines = state.lines ?? [];
  if (events.some((event) => event.kind === "card_played")) page.newsSince = state.version;
  const before = page.game === state.game ? page.news : [];  // a new game starts with nothing said
  page.game = state.game;
  page.news = nextNews(before, events, lines);
  drawNews();
  const fresh = page.news.filter((item) => !before.includes(item));
  buzz(buzzFor(fresh, session.seat));
}

function drawNews() {
  const box = byId("judgement");
  box.replaceChildren(...page.news.map((item) => {
    const line = el("div", `news ${item.kind}`);
    line.append(withTerms(item.text));
    return line;
  }));
}

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

/**
 * Brief cues drawn from the events, before the table is redrawn: a misslap shakes the pile, a
 * won pile flies to its winner's seat. Nothing moves for those who ask for reduced motion.
 * @param {StateMessage | null} previous @param {StateMessage} state
 */
function cuesBefore(previous, state) {
  if (reducedMotion.matches || previous === null) return;
  const events = state.events ?? [];
  const pile = byId("pile");
  const won = events.find((event) => event.kind === "pile_won");
  if (won && won.seat !== null && won.seat !== undefined) {
    const seat = document.querySelector(`#seats [data-seat="${won.seat}"]`);
    const cards = [...pile.querySelectorAll(".card")];
    if (seat && cards.length) {
      const from = pile.getBoundingClientRect();
      const to = seat.getBoundingClientRect();
      const ghost = el("div", "pile-ghost");
      ghost.setAttribute("aria-hidden", "true");
      Object.assign(ghost.style, { left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px` });
      ghost.append(...cards.map((card) => card.cloneNode(true)));
      document.body.append(ghost);
      const dx = to.left + to.width / 2 - (from.left + from.width / 2);
      const dy = to.top + to.height / 2 - (from.top + from.height / 2);
      ghost.animate([{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(.35)`, opacity: 0.2 }],
        { duration: 450, easing: "ease-in" }).finished.finally(() => ghost.remove());
    }
  }
  if (events.some((event) => event.kind === "misslap")) {
    pile.animate([{ transform: "none" }, { transform: "translateX(-8px)" }, { transform: "translateX(8px)" },
      { transform: "translateX(-5px)" }, { transform: "translateX(5px)" }, { transform: "none" }], { duration: 350 });
  }
}

/** @param {PublicEvent[]} events */
function soundFor(events) {
  for (const event of events) {
    if (event.kind === "card_played") beep("card");
    else if (event.kind === "slap_won") beep("slap");
    else if (event.kind === "misslap") beep("miss");
  }
}

/** @param {number | null} seat */
function nameOf(seat) {
  if (seat === null || !session.room) return "";
  return session.room.seats[seat]?.name ?? `Seat ${seat + 1}`;
}

// ------------------------------------------------------------------ who you are

function renderYou() {
  const bar = byId("you-bar");
  const room = session.room;
  bar.hidden = !session.joined || !room;
  if (!room) return;
  const playing = room.phase === "playing";
  let text;
  if (session.status === "player" && session.seat !== null) {
    text = `You play in seat ${session.seat + 1}${session.host ? " and host this room" : ""}.`;
  } else if (session.status === "waiting") {
    text = playing
      ? "A game is on: you will be dealt into the next one (a free seat, or a bot's). Watch this one meanwhile."
      : "You are waiting for a seat: the host can open one for you.";
  } else {
    text = "You are watching.";
  }
  byId("you-status").textContent = text;
  byId("take-seat").hidden = session.status !== "watching";
  byId("stand").hidden = session.status === "watching" || (playing && session.status === "player");
  bar.dataset.status = session.status ?? "";
}

// ------------------------------------------------------------------ lobby

function renderRoom() {
  const room = session.room;
  if (!room) return;
  const over = room.phase === "over";
  const showLobby = room.phase === "lobby" || (over && page.afterGame === "lobby");
  document.body.dataset.phase = room.phase;
  byId("room-code").textContent = `Room ${room.code}`;
  // custom rules, even under a preset's name, are played unrated (issue 30)
  byId("rules-line").textContent = `${room.rules.name}: ${room.rules.summary}` +
    (room.rules.unrated ? ` · ${room.rules.unrated}` : "");
  byId("seeded-note").hidden = !room.settings.seeded;
  const expected = room.expected_length;  // from the lab's simulation of these rules, seats and bots
  byId("expected-length").textContent = expected
    ? `A game here lasts about ${expected.median_minutes} minutes (1 game in 10 lasts over ${expected.p90_minutes} minutes), from simulated games with these rules and seats.`
    : "Working out how long a game here lasts…";
  byId("invite", HTMLInputElement).value = `${location.origin}/r/${room.code}`;
  byId("lobby").hidden = !showLobby;
  byId("table").hidden = room.phase === "lobby" || showLobby;
  const results = byId("results");
  const resultsWereHidden = results.hidden;
  results.hidden = !over || session.over === null || page.afterGame !== "results";
  if (resultsWereHidden && !results.hidden) focusResults();  // the results just appeared: focus goes there
  byId("back-to-results").hidden = !over || session.over === null || page.afterGame !== "table";
  byId("host-controls").hidden = !session.host || !showLobby;
  byId("lobby-wait").hidden = session.host || !showLobby;
  byId("start").textContent = over ? "Start the next game" : "Start the game";
  byId("ready-label").hidden = session.seat === null || !showLobby;
  byId("rematch").hidden = !session.host || quickPool !== null;
  byId("rematch-wait").hidden = session.host || quickPool !== null;
  byId("play-again").hidden = quickPool === null;
  const seatsInput = byId("cfg-seats", HTMLInputElement);
  if (document.activeElement !== seatsInput) seatsInput.value = String(room.settings.seats);
  byId("cfg-pace", HTMLSelectElement).value = room.settings.pace;
  byId("cfg-judging", HTMLSelectElement).value = room.settings.judging;
  renderTimeLimit(room.settings.time_limit_ms ?? 0);
  const rules = byId("cfg-rules", HTMLSelectElement);
  if (room.rules.preset) rules.value = room.rules.name;
  renderLobbySeats(room);
  renderWaiting(room);
  renderSeats();
  renderYou();
  renderHelp();
  byId("controls").classList.toggle("hidden", session.seat === null);
  followOpenSeats(room);
  placeResults();
}

/** The results card starts below the you-bar (or the header), so "who you are" stays in view. */
function placeResults() {
  const bar = byId("you-bar");
  const above = bar.hidden ? document.querySelector("header") : bar;
  const bottom = above ? Math.max(0, above.getBoundingClientRect().bottom) : 0;
  document.documentElement.style.setProperty("--results-top", `${Math.round(bottom)}px`);
}
window.addEventListener("resize", placeResults);

/** The room's time limit: the host's select, and a line that says it to everyone. @param {number} ms */
function renderTimeLimit(ms) {
  const select = byId("cfg-time-limit", HTMLSelectElement);
  const minutes = `${Math.round(ms / 60000)} min`;
  if (![...select.options].some((option) => option.value === String(ms))) {
    const option = /** @type {HTMLOptionElement} */ (el("option", "", minutes));
    option.value = String(ms);
    select.append(option);  // a limit set through the API that the list does not offer
  }
  select.value = String(ms);
  const line = byId("time-limit-line");
  line.hidden = ms === 0;
  line.textContent = `Time limit: ${minutes}. When it is up, the player holding the most cards wins (on a tie, the next of them to play).`;
}

/** @param {RoomMessage} room */
function renderWaiting(room) {
  const line = byId("waiting-line");
  const waiting = /** @type {{name: string, you: boolean}[]} */ (room.waiting ?? []);
  const names = waiting.map((w) => (w.you ? `${w.name} (you)` : w.name)).join(", ");
  line.hidden = waiting.length === 0;
  line.textContent = `Waiting for a seat: ${names}`;
  // during a game, the table tells the host (and everyone) who waits to be dealt into the next
  const atTable = byId("table-waiting");
  atTable.hidden = waiting.length === 0 || room.phase !== "playing";
  atTable.textContent = waiting.length === 1
    ? `${names} waits to be dealt into the next game.`
    : `${names} wait to be dealt into the next game.`;
}

/**
 * A host's button that sends one message.
 * @param {string} text @param {string} label @param {import("./protocol").ClientMessage} message
 */
function hostButton(text, label, message) {
  const button = el("button", "small secondary", text);
  button.setAttribute("type", "button");
  button.append(el("span", "sr-only", ` ${label}`));  // the name says what, and keeps the visible text
  button.addEventListener("click", () => socket.send(message));
  return button;
}

/** @param {RoomMessage} room */
function renderLobbySeats(room) {
  const list = byId("lobby-seats");
  list.replaceChildren();
  const last = room.seats.length - 1;
  for (const seat of room.seats) {
    const item = el("li");
    item.dataset.kind = seat.kind;
    item.dataset.seat = String(seat.seat);
    const who = seat.kind === "open" ? "open seat: waiting for a friend" : seat.name ?? "";
    item.append(el("span", "seat-number", `Seat ${seat.seat + 1}`), el("span", "name", who));
    if (seat.kind === "human") {
      if (seat.host) item.append(el("span", "tag host", "host"));
      if (seat.you || seat.seat === session.seat) item.append(el("span", "tag you", "you"));
      item.append(el("span", "tag", seat.connected ? (seat.ready ? "ready" : "here") : "away"));
    }
    if (session.host) {
      const tools = el("span", "seat-tools");
      if (seat.kind === "human" && seat.seat !== session.seat) {
        tools.append(hostButton("Kick", `${seat.name} out of the room`, { type: "kick", seat: seat.seat }));
      } else if (seat.kind !== "human") {
        const choice = /** @type {HTMLSelectElement} */ (el("select"));
        choice.setAttribute("aria-label", `Seat ${seat.seat + 1}: open or a bot`);
        choice.dataset.testid = `seat-${seat.seat}-choice`;
        for (const value of ["", ...page.bots.map((b) => b.name), ...page.agents.map((a) => a.name)]) {
          const label = value.startsWith("agent:") ? `${value.slice("agent:".length)} agent` : `${value} bot`;
          const option = /** @type {HTMLOptionElement} */ (el("option", "", value ? label : "open to a person"));
          option.value = value;
          choice.append(option);
        }
        choice.value = seat.kind === "bot" ? seat.bot ?? "" : "";
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
  // before joining, the rules come from GET /api/rooms/CODE; after, from the room messages
  const ruleset = session.room?.rules ?? page.rules;
  if (!ruleset || helpFor === ruleset.toml + page.bots.length) return;
  helpFor = ruleset.toml + page.bots.length;
  const patterns = byId("help-patterns");
  patterns.replaceChildren();
  for (const pattern of /** @type {{name: string, text: string, example: string[]}[]} */ (ruleset.patterns ?? [])) {
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
  for (const line of /** @type {string[]} */ (ruleset.lines)) {
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
  // a modal dialog lies in the top layer, above everything outside it: the tip goes inside the
  // dialog its word is in, so it shows above the dialog
  const home = term.closest("dialog") ?? document.body;
  if (tip.parentElement !== home) home.append(tip);
  tip.hidden = false;
  const box = term.getBoundingClientRect();
  const width = Math.min(320, window.innerWidth - 16);
  tip.style.maxWidth = `${width}px`;
  tip.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`;
  // below the word if it fits in the window, else above it; never outside the window
  const height = tip.getBoundingClientRect().height;
  const below = box.bottom + 6;
  const top = below + height <= window.innerHeight - 8 ? below : box.top - 6 - height;
  tip.style.top = `${Math.max(8, Math.min(top, window.innerHeight - height - 8))}px`;
}
window.addEventListener("scroll", () => { tip.hidden = true; }, { passive: true });
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
  const room = session.room;
  if (!room) return;
  const observation = session.state?.observation;
  const box = byId("seats");
  box.replaceChildren();
  room.seats.forEach((seat, index) => {
    // a finished game is drawn with its own seats: one added in the lobby since plays from the next
    if (observation && index >= observation.hand_sizes.length) return;
    const node = el("div", "seat");
    node.dataset.seat = String(index);
    node.dataset.testid = `seat-${index}`;
    const cards = observation ? observation.hand_sizes[index] : 0;
    const status = observation ? observation.status[index] : "in";
    if (observation && observation.turn === index) node.classList.add("turn");
    if (status === "out") node.classList.add("out");
    const name = el("div", "name", seat.name ?? "open seat");
    name.title = seat.name ?? "open seat";  // a long name is cut to one line: the whole of it on hover
    if (index === session.seat) {
      node.classList.add("you");
      name.append(" ", el("span", "tag you", "you"));
    }
    node.append(name);
    node.append(el("div", "count", seatStatus(status, cards)));
    let meta = seat.kind === "bot" ? `${seat.bot} bot` : (seat.connected ? "connected" : "away");
    if (seat.kind === "human" && seat.stand_in) meta = `away: a ${seat.stand_in} bot plays`;
    if (seat.kind === "human" && seat.ping_ms !== null && seat.ping_ms !== undefined) meta += ` · ping ${seat.ping_ms} ms`;
    node.append(el("div", "meta", meta));
    box.append(node);
  });
}

/** @param {StateMessage} state */
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
  const mine = session.seat === null ? 0 : observation.hand_sizes[session.seat] ?? 0;
  byId("deck-count").textContent = session.seat === null ? "" : `${mine} card${mine === 1 ? "" : "s"}`;
  byId("deck").dataset.cards = String(mine);
  const live = !observation.over && session.seat !== null;
  // who may play or slap is the engine's word (`Game.may`), carried by the observation
  const may = mayAct(observation, session.seat);
  byId("play-btn", HTMLButtonElement).disabled = !may.play;
  byId("slap-btn", HTMLButtonElement).disabled = !may.slap;
  byId("resign", HTMLButtonElement).disabled = !live || mine === 0;  // resigning gives up one's cards
  byId("table").dataset.turn = observation.turn === null ? "" : String(observation.turn);
  byId("table").dataset.cardsPlayed = String(observation.cards_played);
  renderSeats();
  renderStatus();
}

function renderStatus() {
  const state = session.state;
  if (!state) return;
  const observation = state.observation;
  const since = performance.now() - session.stateArrivedAt;
  const node = byId("status");
  /** @type {string} */
  let text;
  if (observation.over) {
    // the winner by the game's own names: the lobby may have moved its seats since
    const winner = session.over?.results.find((r) => r.seat === observation.winner)?.name
      ?? nameOf(observation.winner);
    text = observation.winner === null ? "The game is over." : `${winner} wins!`;
  } else if (observation.collection) {
    text = collectionStatus(observation.collection, nameOf,
      (deadline) => remainingMs(deadline, state.sent_at, since));
  } else if (observation.challenge) {
    const ch = observation.challenge;
    const chances = ch.chances_left === 1 ? "1 chance" : `${ch.chances_left} chances`;
    text = `${nameOf(ch.challenger)} played ${cardFace(ch.card).label}: ${nameOf(ch.target)} has ${chances} to answer`;
  } else if (observation.turn !== null) {
    text = observation.turn === session.seat ? "Your turn: play a card" : `${nameOf(observation.turn)}'s turn`;
  } else {
    text = "";
  }
  if (observation.tie_window_until !== null && observation.tie_window_until !== undefined) {
    const left = remainingMs(observation.tie_window_until, state.sent_at, since);
    if (left > 0) text += ` · tie window ${formatMs(left)}`;
  }
  const limit = session.room?.settings.time_limit_ms ?? 0;  // in table time, shown a settling window later
  if (limit && !observation.over) text += ` · ${clockLeft(remainingMs(limit + (state.settle_ms ?? 0), state.sent_at, since))} left`;
  if (node.textContent !== text) node.textContent = text;  // ten times a second: repaint only a change
}

// ------------------------------------------------------------------ results

/** @param {GameOverMessage} over */
function renderResults(over) {
  const winner = over.winner === null ? null : over.results.find((r) => r.seat === over.winner);
  byId("winner").textContent = winner ? `${winner.name}${winner.seat === session.seat ? " (you)" : ""} wins!` : "Nobody wins";
  const body = byId("results-body");
  body.replaceChildren();
  for (const result of over.results) {
    const row = el("tr", result.seat === over.winner ? "winner" : "");
    const name = el("th", "", result.name);
    name.setAttribute("scope", "row");
    if (result.seat === session.seat) name.append(" ", el("span", "tag you", "you"));
    row.append(name, el("td", "", String(result.slaps)), el("td", "", String(result.misslaps)),
      el("td", "", formatMs(result.median_reaction_ms)), el("td", "wide", formatMs(result.best_reaction_ms)),
      el("td", "", result.cards_won === undefined ? "–" : String(result.cards_won)));
    body.append(row);
  }
  byId("record", HTMLAnchorElement).href = over.record_url;
  byId("replay-link", HTMLAnchorElement).href = over.replay_url;
  page.afterGame = "results";
}

/** The results just appeared: focus goes to them (the winner's line, then Rematch is one Tab on). */
function focusResults() {
  requestAnimationFrame(() => byId("winner").focus());
}

// ------------------------------------------------------------------ input

/** @param {"play" | "slap" | "resign"} kind @param {number} eventTime */
function act(kind, eventTime) {
  if (session.seat === null) return;
  const stamp = reactionTo(page.shown, eventTime);
  socket.send(stamp === null ? { type: kind } : { type: kind, ...stamp });
}

document.addEventListener("keydown", (event) => {
  const target = /** @type {HTMLElement} */ (event.target);
  if (event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
  if (target.closest("input, select, textarea, dialog")) return;
  const action = actionFor(page.keys, event.key);
  if (action === null || session.room?.phase !== "playing") return;
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
byId("bring").addEventListener("click", async () => {
  const answer = await importPlayer(byId("bring-code", HTMLInputElement).value);
  byId("bring-error").textContent = "error" in answer ? answer.error : "";
  if ("error" in answer) return;
  byId("bring-player").hidden = true;
  byId("name", HTMLInputElement).value = answer.name;
  byId("name-error").textContent = "";
  showYourPage();
  byId("join-form", HTMLFormElement).requestSubmit(); // sit down as that player
});
byId("new-key").addEventListener("click", () => {
  replaceKey(newKey());
  byId("new-key").hidden = true;
  byId("name-error").textContent = "A new key is saved in this browser: sit down again.";
  showYourPage();
});
byId("watch").addEventListener("click", () => {
  session.joined = true;
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
  const room = session.room;
  if (room?.phase === "over") { socket.send({ type: "rematch" }); return; }
  const open = room?.open_seats ?? 0;
  if (!open) { socket.send({ type: "start" }); return; }
  askAboutOpenSeats(open);
  openSeatsDialog.returnValue = "";
  openSeatsDialog.showModal();
});
/** @param {number} open how many seats have nobody in them */
function askAboutOpenSeats(open) {
  byId("open-seats-text").textContent = open === 1
    ? "One seat has nobody in it. Fill it with a bot, or play without it?"
    : `${open} seats have nobody in them. Fill them with bots, or play without them?`;
}
/**
 * The host clicked start a moment before a friend's seat reached this page (or a friend sat
 * down while the host was asked): the question follows the room, and once no seat is open it
 * no longer applies, and the game the host asked for starts.
 * @param {RoomMessage} room
 */
function followOpenSeats(room) {
  const dialog = byId("open-seats-dialog", HTMLDialogElement);
  if (!dialog.open) return;
  if (room.phase !== "lobby" || !session.host) { dialog.close("cancel"); return; }
  if (room.open_seats > 0) { askAboutOpenSeats(room.open_seats); return; }
  dialog.close("cancel");
  socket.send({ type: "start" });
}
openSeatsDialog.addEventListener("close", () => {
  const choice = openSeatsDialog.returnValue;
  if (choice === "bots") socket.send({ type: "start", open_seats: "bots", bot: byId("fill-level", HTMLSelectElement).value });
  else if (choice === "remove") socket.send({ type: "start", open_seats: "remove" });
});
byId("play-again").addEventListener("click", () => {
  if (quickPool) seekAgain(quickPool);
  location.assign(againUrl(quickPool));
});
if (quickPool?.arena) byId("play-again").textContent = "Next arena game";
byId("rematch").addEventListener("click", () => { session.over = null; byId("results").hidden = true; socket.send({ type: "rematch" }); });
byId("to-lobby").addEventListener("click", () => { page.afterGame = "lobby"; renderRoom(); });
byId("see-table").addEventListener("click", () => { page.afterGame = "table"; renderRoom(); byId("back-to-results").focus(); });
byId("back-to-results").addEventListener("click", () => { page.afterGame = "results"; renderRoom(); });
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
  socket.send({ type: "configure", pace: /** @type {import("./protocol").Pace} */ (/** @type {HTMLSelectElement} */ (event.target).value) }));
byId("cfg-judging", HTMLSelectElement).addEventListener("change", (event) =>
  socket.send({ type: "configure", judging: /** @type {import("./protocol").Judging} */ (/** @type {HTMLSelectElement} */ (event.target).value) }));
byId("cfg-time-limit", HTMLSelectElement).addEventListener("change", (event) =>
  socket.send({ type: "configure", time_limit_ms: Number(/** @type {HTMLSelectElement} */ (event.target).value) }));
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

// vibration, beside the sound: offered only where the browser can vibrate
const vibrate = byId("vibrate");
function renderVibrate() {
  vibrate.hidden = !canVibrate();
  vibrate.textContent = vibrationOn() ? "Vibrate: on" : "Vibrate: off";
  vibrate.setAttribute("aria-pressed", String(vibrationOn()));
}
vibrate.addEventListener("click", () => { setVibration(!vibrationOn()); renderVibrate(); });
renderVibrate();

// key remapping
const MODIFIERS = new Set(["Shift", "Control", "Alt", "AltGraph", "Meta", "OS", "CapsLock", "NumLock", "ScrollLock", "Fn", "Hyper", "Super", "Dead", "Unidentified"]);
/** Whether a key press may become a play or slap key. @param {KeyboardEvent} event */
function bindable(event) {
  if (event.key === "Tab" || event.key === "Escape" || event.key === "Enter") return false;
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  return !MODIFIERS.has(event.key);
}
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
    // Tab moves on and Escape closes the dialog, as everywhere; a modifier alone (or a
    // shortcut with one) is no key to play with, and the browser keeps it
    if (!bindable(event)) return;
    event.preventDefault();
    const name = keyName(event.key);
    const other = which === "play" ? "slap" : "play";
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

/** The room's rules before joining, so "How to play" is filled for someone still deciding. */
async function loadRules() {
  try {
    page.rules = /** @type {RoomMessage} */ (await fetchJson(`/api/rooms/${encodeURIComponent(code)}`)).rules;
    renderHelp();
  } catch { /* no such room: the socket's answer says so */ }
}

async function loadChoices() {
  try {
    const [presets, bots] = await Promise.all([fetchJson("/api/presets"), fetchJson("/api/bots")]);
    page.presets = presets.presets;
    page.bots = bots.levels;
    page.agents = bots.agents ?? []; // saved agents (ERS-Bench), seated by name
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
    renderHelp();
  } catch (error) {
    showError(`Could not load the rule and bot lists: ${error instanceof Error ? error.message : error}`);
  }
}

byId("room-code").textContent = `Room ${code}`;
showYourPage();
loadChoices();
if (!isOfflineTable()) loadRules();  // the offline table's rules come with its first room message
socket.connect();
