// @ts-check
/** A player's page (/players/ID): their ratings and how they moved, reaction times beside the
 * bots', slaps by pattern and the last games, drawn in inline SVG from GET /api/players/ID. The
 * key's export code is shown only in the browser that holds the key. */
import {
  bandPath, commonBins, histogram, linear, linePath, median, niceAxis, quantile, ratingPoints, stepPath,
} from "./charts.js";
import { byId, el } from "./dom.js";
import { formatMs, formatRating, ordinal, shortDate } from "./format.js";
import { importPlayer, playerId, playerKey, playerUrl } from "./identity.js";

/** The answer of GET /api/players/ID, declared from the server's own type
 * (`PlayerAnswer` in ratscrew/protocol/http.py). @typedef {import("./protocol").PlayerAnswer} Player */

const SVG = "http://www.w3.org/2000/svg";
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? "");
/** Okabe-Ito colours, "you" first; each series also has its own dash, so colour is not needed */
const SERIES = [
  { colour: "#0072b2", dash: "" },
  { colour: "#d55e00", dash: "6 3" },
  { colour: "#009e73", dash: "2 3" },
  { colour: "#cc79a7", dash: "8 3 2 3" },
  { colour: "#8a6d00", dash: "1 2" },
  { colour: "#56b4e9", dash: "10 4" },
];

/** @type {Player | null} */
let shown = null;

/**
 * An SVG element with attributes.
 * @param {string} tag
 * @param {Record<string, string | number>} [attributes]
 * @param {string} [text]
 * @returns {SVGElement}
 */
function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return /** @type {SVGElement} */ (node);
}

/**
 * A plot's frame: its size in pixels (as wide as its box, so text stays its real size on a
 * phone) and the inner area left for the data.
 * @param {HTMLElement} box
 * @param {number} height
 * @param {string} label what the plot shows, for a screen reader
 */
function frame(box, height, label) {
  const width = Math.max(260, Math.floor(box.clientWidth || 600));
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "chart" });
  const area = { left: 44, right: width - 12, top: 10, bottom: height - 34 };
  return { root, area, width };
}

/**
 * Axis lines, ticks and labels.
 * @param {SVGElement} root
 * @param {{left: number, right: number, top: number, bottom: number}} area
 * @param {{ticks: number[], at: (v: number) => number, label: (v: number) => string, title: string}} x
 * @param {{ticks: number[], at: (v: number) => number, label: (v: number) => string}} y
 */
function axes(root, area, x, y) {
  const group = svg("g", { class: "axes" });
  for (const tick of y.ticks) {
    const at = y.at(tick);
    group.append(svg("line", { x1: area.left, x2: area.right, y1: at, y2: at, class: "grid" }));
    group.append(svg("text", { x: area.left - 6, y: at + 4, "text-anchor": "end" }, y.label(tick)));
  }
  for (const tick of x.ticks) {
    const at = x.at(tick);
    group.append(svg("line", { x1: at, x2: at, y1: area.bottom, y2: area.bottom + 4, class: "tick" }));
    group.append(svg("text", { x: at, y: area.bottom + 16, "text-anchor": "middle" }, x.label(tick)));
  }
  group.append(svg("line", { x1: area.left, x2: area.right, y1: area.bottom, y2: area.bottom, class: "axis" }));
  group.append(svg("text", { x: (area.left + area.right) / 2, y: area.bottom + 30, "text-anchor": "middle", class: "axis-title" }, x.title));
  root.append(group);
}

/** @param {Player} player */
function renderSummary(player) {
  byId("player-name").textContent = player.name;
  document.title = `ratscrew · ${player.name}`;
  byId("you-note").hidden = !isMine(player);
  const list = byId("ratings");
  list.replaceChildren(...player.ratings.map((rating) => {
    const item = el("li", "rating");
    item.dataset.rules = rating.rules;
    item.append(el("span", "rules", rating.rules), el("strong", "value", formatRating(rating.rating)));
    const rank = rating.rank === null || rating.rank === undefined ? "unranked" : `rank ${rating.rank}`;
    item.append(el("span", "meta", `${rank} · ${rating.games} ${rating.games === 1 ? "game" : "games"}`));
    if (rating.provisional) {
      const mark = el("span", "tag provisional", "provisional");
      mark.title = "Few games yet: this rating may still move a lot.";
      item.append(" ", mark);
    }
    return item;
  }));
  byId("no-ratings").hidden = player.ratings.length > 0;
  byId("summary").hidden = false;
}

/** @param {Player} player */
function renderHistory(player) {
  const box = byId("history");
  box.replaceChildren();
  const rated = player.ratings.filter((r) => r.history.length > 0);
  byId("history-panel").hidden = rated.length === 0;
  for (const rating of rated) {
    const figure = el("figure", "plot");
    figure.dataset.rules = rating.rules;
    const caption = el("figcaption", "", `${rating.rules}: ${formatRating(rating.rating)} after ${rating.history.length} ${rating.history.length === 1 ? "game" : "games"}`);
    figure.append(caption);
    box.append(figure);
    const points = ratingPoints(rating.history);
    const short = rating.history.length < 3;
    const { root, area } = frame(figure, short ? 150 : 200, `${rating.rules} rating over ${rating.history.length} games, from ${formatRating(points[0].rating)} to ${formatRating(rating.rating)}`);
    const yAxis = niceAxis(Math.min(...points.map((p) => p.low)), Math.max(...points.map((p) => p.high)), short ? 3 : 4);
    const last = points.length - 1;
    const xAxis = niceAxis(0, last, Math.min(last, 6));
    const x = linear([0, Math.max(1, last)], [area.left + 4, area.right - 4]);
    const y = linear([yAxis.min, yAxis.max], [area.bottom, area.top]);
    axes(root, area,
      { ticks: xAxis.ticks.filter((t) => Number.isInteger(t) && t <= last), at: x, label: String, title: "rated games played" },
      { ticks: yAxis.ticks, at: y, label: (v) => formatRating(v).replace(".0", "") });
    const rated1 = points.slice(1);
    root.append(svg("path", { d: bandPath(rated1.map((p) => ({ x: x(p.game), low: y(p.low), high: y(p.high) }))), class: "band" }));
    root.append(svg("path", { d: linePath(points.map((p) => ({ x: x(p.game), y: y(p.rating) }))), class: "line" }));
    for (const [index, p] of points.entries()) {
      const dot = svg("circle", { cx: x(p.game), cy: y(p.rating), r: points.length > 40 ? 2 : 3.5, class: "dot" });
      const entry = index === 0 ? null : rating.history[index - 1];
      const game = entry === null ? "start" : `game ${entry.game_id}, ${shortDate(entry.at)}`;
      dot.append(svg("title", {}, `${game}: ${formatRating(p.rating)}`));
      root.append(dot);
    }
    figure.append(root);
  }
}

/** @param {Player} player */
function renderReactions(player) {
  const series = [{ name: "you", values: player.reactions.you ?? [] },
    ...Object.entries(player.reactions.bots ?? {}).map(([level, values]) => ({ name: `${level} bot`, values }))]
    .filter((s) => s.name === "you" || s.values.length > 0);
  const any = series.some((s) => s.values.length > 0);
  byId("reactions-panel").hidden = !any;
  if (!any) return;
  const box = byId("reactions");
  box.replaceChildren();
  // the slowest 2% (someone looked away) would stretch the axis: they go in the last bar
  const all = series.flatMap((s) => s.values);
  const cap = Math.max(100, Math.ceil((quantile(all, 0.98) ?? 2000) / 50) * 50);
  const found = commonBins(series.map((s) => s.values), { bins: 14, cap });
  // one empty bar before the fastest, so no outline (or the referee's line) starts on the axis
  const bins = found.start >= found.width ? { ...found, start: found.start - found.width, count: found.count + 1 } : found;
  const hists = series.map((s) => histogram(s.values, bins, cap));
  // a level that always reacts in the same time (the referee bot) is a line at that time, not a
  // bar that would flatten everyone else's shape
  const constant = series.map((s) => s.values.length > 1 && s.values.every((v) => v === s.values[0]));
  const capped = all.some((v) => v > cap);
  byId("reactions-cap").hidden = !capped;
  byId("reactions-cap").textContent = `Slaps slower than ${formatMs(cap)} are counted in the last bar.`;
  const top = Math.max(...hists.flatMap((h, i) => (constant[i] ? [] : h.shares)), 0.01);
  const { root, area } = frame(box, 220, `Reaction times: ${series.map((s) => `${s.name} median ${formatMs(median(s.values))}`).join(", ")}`);
  const end = bins.start + bins.width * bins.count;
  const xMs = linear([bins.start, end], [area.left, area.right]);
  const yAxis = niceAxis(0, top, 4);
  const y = linear([0, yAxis.max], [area.bottom, area.top]);
  const xAxis = niceAxis(bins.start, end, Math.max(3, Math.floor((area.right - area.left) / 60)));
  axes(root, area,
    { ticks: xAxis.ticks.filter((t) => t >= bins.start && t <= end), at: xMs, label: String, title: "reaction time (ms)" },
    { ticks: yAxis.ticks, at: y, label: (v) => `${Math.round(v * 100)}%` });
  const binX = (/** @type {number} */ bin) => xMs(bins.start + bin * bins.width);
  hists.forEach((h, index) => {
    const style = SERIES[index % SERIES.length];
    if (constant[index]) {
      const at = xMs(Math.min(series[index].values[0], cap));
      root.append(svg("path", { d: `M${at},${area.bottom}L${at},${area.top}`, class: "outline", stroke: style.colour,
        "stroke-dasharray": style.dash, "stroke-width": 3, "data-series": series[index].name }));
      return;
    }
    const d = stepPath(h.shares, binX, y);
    if (index === 0) root.append(svg("path", { d, class: "you-fill", fill: style.colour }));
    root.append(svg("path", { d, class: "outline", stroke: style.colour, "stroke-dasharray": style.dash,
      "stroke-width": index === 0 ? 2.5 : 2, "data-series": series[index].name }));
  });
  box.append(root);
  byId("reactions-legend").replaceChildren(...series.map((s, index) => {
    const style = SERIES[index % SERIES.length];
    const swatch = svg("svg", { width: 28, height: 12, "aria-hidden": "true", class: "swatch" });
    swatch.append(svg("line", { x1: 1, x2: 27, y1: 6, y2: 6, stroke: style.colour, "stroke-width": 3, "stroke-dasharray": style.dash }));
    const item = el("li");
    item.append(swatch, el("span", "", `${s.name}: `),
      el("span", "meta", describeSample(s.values, constant[index])));
    return item;
  }));
}

/**
 * A legend's words for one sample.
 * @param {number[]} values
 * @param {boolean} constant
 */
function describeSample(values, constant) {
  if (values.length === 0) return "no timed slap yet";
  const slaps = `${values.length} ${values.length === 1 ? "slap" : "slaps"}`;
  if (constant) return `always ${formatMs(values[0])} (${slaps}): the line`;
  return `median ${formatMs(median(values))} over ${slaps}`;
}

/** @param {Player} player */
function renderSlaps(player) {
  const body = byId("slaps");
  body.replaceChildren(...player.slaps.map((row) => {
    const tr = el("tr");
    // "none": a slap on no pattern at all, which can only be a misslap
    const name = el("th", "", row.pattern === "none" ? "no pattern" : row.pattern.replaceAll("_", " "));
    name.setAttribute("scope", "row");
    tr.append(name, el("td", "", String(row.won)), el("td", "", String(row.lost)), el("td", "", String(row.misslaps)));
    return tr;
  }));
  byId("no-slaps").hidden = player.slaps.length > 0;
  byId("slaps-table").hidden = player.slaps.length === 0;
  byId("slaps-panel").hidden = false;
}

/**
 * An integrity flag, when there is one: why, in the review's own sentences (issue 30).
 * @param {Player} player
 */
function renderIntegrity(player) {
  const integrity = player.integrity;
  const flagged = integrity !== undefined && integrity.flagged;
  byId("integrity-panel").hidden = !flagged;
  if (!flagged) return;
  byId("integrity-reasons").replaceChildren(...integrity.reasons.map((reason) => el("li", "", reason)));
  byId("integrity-checked").textContent = `${integrity.checked_slaps} slaps checked.`;
}

/** @param {Player} player */
function renderGames(player) {
  const body = byId("games");
  body.replaceChildren(...player.games.map((game) => {
    const tr = el("tr");
    const cell = el("td");
    const link = /** @type {HTMLAnchorElement} */ (el("a", "", `#${game.id}`));
    link.href = game.replay;
    link.setAttribute("aria-label", `Replay game ${game.id}`);
    cell.append(link);
    const rules = el("td", "", game.rules);
    if (game.unrated) {  // why the game changed no rating (issue 30)
      const tag = el("span", "tag unrated", "unrated");
      tag.title = game.unrated;
      rules.append(" ", tag);
      rules.dataset.unrated = game.unrated;
    } else if (game.note) {  // why this player's part changed no rating (issue 46)
      const tag = el("span", "tag unrated", game.note.startsWith("left") ? "left early" : "no gain");
      tag.title = game.note;
      rules.append(" ", tag);
      rules.dataset.note = game.note;
    }
    tr.append(cell, el("td", game.place === 1 ? "first" : "", `${ordinal(game.place)} of ${game.players}`),
      rules, el("td", "", shortDate(game.finished_at)));
    return tr;
  }));
  byId("no-games").hidden = player.games.length > 0;
  byId("games-table").hidden = player.games.length === 0;
  byId("games-panel").hidden = false;
}

/** The player's final standings in finished arenas (issue 50), latest first. @param {Player} player */
function renderArenas(player) {
  const rows = player.arenas ?? [];
  byId("arenas").replaceChildren(...rows.map((row) => {
    const tr = el("tr");
    const cell = el("td");
    const link = /** @type {HTMLAnchorElement} */ (
      el("a", "", `${row.rules} · ${row.players} players · ${shortDate(new Date(row.starts_at * 1000).toISOString())}`));
    link.href = `/arenas/${encodeURIComponent(row.arena_id)}`;
    cell.append(link);
    tr.append(cell, el("td", row.rank === 1 ? "first" : "", `${ordinal(row.rank)} of ${row.entrants}`),
      el("td", "num", String(row.score)), el("td", "num", String(row.games)), el("td", "num", String(row.wins)));
    return tr;
  }));
  byId("arenas-panel").hidden = rows.length === 0;
}

/**
 * Whether this browser holds the page's player's key: the server told it this id for its key.
 * @param {Player} player
 */
function isMine(player) {
  return playerId() === player.player_id;
}

/** @param {Player} player */
function renderKey(player) {
  const mine = isMine(player);
  byId("key-panel").hidden = !mine;
  if (mine) {
    byId("key-warning").textContent = `Your record lives in this browser's player key: ${player.export_hint ?? "losing your key loses your record"}. To keep it, copy this code somewhere safe.`;
    showExportCode();
  }
  showImport(mine);
}

/** Ask the server for this browser's key's code (the key and a check of this server's id). */
async function showExportCode() {
  const field = byId("export-code", HTMLInputElement);
  const error = byId("export-error");
  error.textContent = "";
  try {
    const response = await fetch("/api/players/export", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ player_key: playerKey() }),
    });
    /** @type {Partial<import("./protocol").PlayerExported & import("./protocol").CodedError>} either */
    const answer = await response.json().catch(() => ({ error: "server", message: `the server answered ${response.status}` }));
    if (!response.ok || !answer.code) throw new Error(answer.message ?? answer.error ?? `the server answered ${response.status}`);
    field.value = answer.code;
    byId("copy-code", HTMLButtonElement).disabled = false;
  } catch (failure) {
    field.value = "";
    byId("copy-code", HTMLButtonElement).disabled = true;
    error.textContent = `Could not make the code: ${failure instanceof Error ? failure.message : failure}`;
  }
}

/**
 * The import field: on someone else's page it asks "is this you?"; this browser's own key (if
 * it has played) is replaced by an imported one, and the page says so.
 * @param {boolean} mine
 */
function showImport(mine) {
  const own = playerId();
  byId("import-title").textContent = mine ? "Use a code from another browser" : "Is this you? Play as yourself in this browser";
  byId("import-replaces").hidden = own === null;
  byId("own-page-link").hidden = mine;
  if (own !== null) byId("own-page", HTMLAnchorElement).href = playerUrl(own);
  byId("import-panel").hidden = false;
}

function render() {
  if (!shown) return;
  renderSummary(shown);
  renderIntegrity(shown);
  renderHistory(shown);
  renderReactions(shown);
  renderSlaps(shown);
  renderGames(shown);
  renderArenas(shown);
  renderKey(shown);
}

byId("copy-code").addEventListener("click", async () => {
  const field = byId("export-code", HTMLInputElement);
  try {
    await navigator.clipboard.writeText(field.value);
    byId("copy-code").textContent = "Copied";
  } catch {
    field.select();
    byId("copy-code").textContent = "Select and copy";
  }
});

byId("import").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = byId("import-error");
  error.textContent = "";
  const answer = await importPlayer(byId("import-code", HTMLInputElement).value);
  if ("error" in answer) { error.textContent = answer.error; return; }
  location.assign(playerUrl(answer.player_id));
});

let resizeTimer = 0;
let lastWidth = window.innerWidth;
window.addEventListener("resize", () => {
  if (window.innerWidth === lastWidth) return;  // a phone's toolbar sliding away: same width
  lastWidth = window.innerWidth;
  clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(() => { if (shown) { renderHistory(shown); renderReactions(shown); } }, 150);
});

async function load() {
  const main = byId("main");
  try {
    const response = await fetch(`/api/players/${encodeURIComponent(id)}`);
    if (response.status === 404) {
      byId("unknown-id").textContent = id;
      byId("unknown").hidden = false;
      document.title = "ratscrew · no such player";
      showImport(false);
      return;
    }
    const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
    if (!response.ok) throw new Error(data.message ?? data.error ?? `the server answered ${response.status}`);
    shown = /** @type {Player} */ (data);
    render();
  } catch (error) {
    byId("error").textContent = `Could not load this player: ${error instanceof Error ? error.message : error}`;
  } finally {
    main.setAttribute("aria-busy", "false");
  }
}

load();
