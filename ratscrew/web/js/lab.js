// @ts-check
/** The house-rule lab page: edit a preset's settings, simulate them on the server (a lab job,
 * polled for progress), draw the report, share the rules by link, open a room with them. */
import { byId, el, fetchJson } from "./dom.js";
import { linear, niceAxis } from "./charts.js";
import { changedSettings, decodeShare, encodeShare, figureAt, figureLabel, parseSetting, rulesToml, settingLabel } from "./labrules.js";

/**
 * @typedef {import("./labrules.js").Setting} Setting
 * @typedef {import("./labrules.js").Values} Values
 * @typedef {import("./labrules.js").LabState} LabState
 * @typedef {import("./protocol").Figure} Figure
 * @typedef {import("./protocol").WinShare} Share
 * @typedef {import("./protocol").LabFigures} Figures
 * @typedef {import("./protocol").LabReport} Report
 * @typedef {import("./protocol").LabSettingsAnswer} LabSettingsAnswer
 * @typedef {import("./protocol").LabJobStarted} LabJobStarted
 * @typedef {import("./protocol").LabJobStatus} LabJobStatus
 * @typedef {import("./protocol").FigureInfo} FigureInfo
 */

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#0072b2", "#e69f00"];
const POLL_MS = 500;

/** @type {Pick<LabSettingsAnswer, "settings" | "patterns" | "levels" | "figures"> & {presets: Record<string, Values>, summaries: Record<string, string>}} */
const meta = { settings: [], patterns: [], presets: {}, levels: [], summaries: {}, figures: [] };
/** @type {LabState} */
let state = { preset: "classic", values: {}, players: 4, bots: "casual", games: 2000 };
let busy = false;

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attributes]
 * @param {string} [text]
 * @returns {SVGElement}
 */
function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {string} message */
function showError(message) {
  byId("error").textContent = message;
}

function presetValues() {
  return meta.presets[state.preset];
}

function changed() {
  return changedSettings(meta.settings, state.values, presetValues());
}

/** The rules to send: the preset's name when nothing changed, else TOML named after it. */
function rulesText() {
  const names = changed();
  if (names.length === 0) return state.preset;
  const summary = `${state.preset} with changes: ${names.map((name) => `${settingLabel(name).toLowerCase()} ${describeValue(state.values[name])}`).join("; ")}`;
  return rulesToml(state.values, `${state.preset} + house rules`, summary);
}

/** @param {boolean | number | string | string[]} value */
function describeValue(value) {
  if (Array.isArray(value)) return value.length ? value.join(", ").replaceAll("_", " ") : "none";
  if (typeof value === "boolean") return value ? "on" : "off";
  return String(value).replaceAll("_", " ");
}

// ------------------------------------------------------------------------------ the editor

function fillSelects() {
  const preset = byId("preset", HTMLSelectElement);
  preset.replaceChildren(...Object.keys(meta.presets).map((name) => new Option(name, name)));
  const players = byId("players", HTMLSelectElement);
  players.replaceChildren(...[2, 3, 4, 5, 6, 7, 8].map((n) => new Option(String(n), String(n))));
  const bots = byId("bots", HTMLSelectElement);
  bots.replaceChildren(...meta.levels.map((level) => new Option(level, level)));
}

/** @param {Setting} setting */
function settingControl(setting) {
  const value = state.values[setting.name];
  const id = `set-${setting.name}`;
  if (setting.kind === "patterns") {
    const box = el("fieldset", "patterns");
    box.setAttribute("aria-describedby", `${id}-text`);
    box.append(el("legend", "", settingLabel(setting.name)));
    const chosen = /** @type {string[]} */ (value);
    for (const pattern of meta.patterns) {
      const label = el("label", "check");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.name = "slaps";
      input.value = pattern.name;
      input.checked = chosen.includes(pattern.name);
      input.dataset.testid = `pattern-${pattern.name}`;
      label.append(input, " ", el("strong", "", pattern.name.replaceAll("_", " ")), el("span", "hint", `: ${pattern.text}`));
      box.append(label);
    }
    return box;
  }
  let input;
  if (setting.kind === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = Boolean(value);
  } else if (setting.kind === "choice") {
    input = document.createElement("select");
    input.append(...(setting.choices ?? []).map((choice) => new Option(choice.replaceAll("_", " "), choice)));
    input.value = String(value);
  } else {
    input = document.createElement("input");
    input.type = "number";
    input.min = "0";
    input.step = "1";
    input.inputMode = "numeric";
    input.value = String(value);
  }
  input.id = id;
  input.name = setting.name;
  input.dataset.testid = id;
  input.setAttribute("aria-describedby", `${id}-text`);
  if (setting.kind === "bool") {  // the whole row is the label: a finger-sized target
    const row = el("label", "check-row");
    row.append(input, el("span", "name", settingLabel(setting.name)));
    return row;
  }
  const label = el("label", "", settingLabel(setting.name));
  label.setAttribute("for", id);
  const row = el("div", "field-row");
  row.append(label, input);
  return row;
}

function renderSettings() {
  const form = byId("settings", HTMLFormElement);
  form.replaceChildren(...meta.settings.map((setting) => {
    const item = el("div", "setting");
    item.dataset.setting = setting.name;
    item.append(settingControl(setting));
    const text = el("p", "hint", setting.text);
    text.id = `set-${setting.name}-text`;
    const mark = el("span", "changed-mark", "changed");
    item.append(mark, text);
    return item;
  }));
  markChanged();
}

function markChanged() {
  const names = new Set(changed());
  for (const item of byId("settings").querySelectorAll("[data-setting]")) {
    if (!(item instanceof HTMLElement)) continue;
    const on = names.has(item.dataset.setting ?? "");
    item.classList.toggle("changed", on);
    const mark = item.querySelector(".changed-mark");
    if (mark instanceof HTMLElement) mark.hidden = !on;
  }
  byId("changed-count").textContent = names.size === 0 ? `No rule changed from ${state.preset}.`
    : `${names.size} ${names.size === 1 ? "rule" : "rules"} changed from ${state.preset}: ${[...names].map(settingLabel).join(", ")}.`;
  byId("reset", HTMLButtonElement).disabled = names.size === 0;
  const fragment = encodeShare(meta.settings, state, presetValues());
  byId("share", HTMLInputElement).value = `${location.origin}/lab#${fragment}`;
  history.replaceState(null, "", `#${fragment}`);
}

function showState() {
  byId("preset", HTMLSelectElement).value = state.preset;
  byId("players", HTMLSelectElement).value = String(state.players);
  byId("bots", HTMLSelectElement).value = state.bots;
  const games = byId("games", HTMLSelectElement);
  if (![...games.options].some((o) => o.value === String(state.games))) games.append(new Option(state.games.toLocaleString("en"), String(state.games)));
  games.value = String(state.games);
  byId("preset-summary").textContent = meta.summaries[state.preset] ?? "";
  renderSettings();
}

/** @param {Event} event */
function onSettingChange(event) {
  const target = event.target;
  if (!(target instanceof HTMLInputElement || target instanceof HTMLSelectElement)) return;
  if (target.name === "slaps") {
    const boxes = [...byId("settings").querySelectorAll("input[name=slaps]")];
    // kept in the preset's order first, then the order of the list
    const order = [...(/** @type {string[]} */ (presetValues().slaps)), ...meta.patterns.map((p) => p.name)];
    const on = boxes.filter((b) => b instanceof HTMLInputElement && b.checked).map((b) => /** @type {HTMLInputElement} */ (b).value);
    state.values.slaps = [...new Set(order)].filter((name) => on.includes(name));
  } else {
    const setting = meta.settings.find((s) => s.name === target.name);
    if (!setting) return;
    const raw = target instanceof HTMLInputElement && target.type === "checkbox" ? String(target.checked) : target.value;
    const value = parseSetting(setting, raw);
    if (value === undefined) {
      showError(`${settingLabel(setting.name)}: give a whole number, 0 or more.`);
      return;
    }
    state.values[setting.name] = value;
  }
  showError("");
  markChanged();
}

// ------------------------------------------------------------------------------ simulate

/** @param {number} ms */
const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

async function simulate() {
  if (busy) return;
  busy = true;
  showError("");
  const button = byId("simulate", HTMLButtonElement);
  button.disabled = true;
  const panel = byId("progress-panel");
  const bar = byId("progress", HTMLProgressElement);
  const text = byId("progress-text");
  const asked = { ...state, values: { ...state.values } };
  try {
    const job = /** @type {LabJobStarted} */ (await fetchJson("/api/lab", { rules: rulesText(), players: state.players, bots: [state.bots], games: state.games }));
    panel.hidden = false;
    bar.max = job.total;
    bar.value = 0;
    text.textContent = "Starting…";
    for (;;) {
      const status = /** @type {LabJobStatus} */ (await fetchJson(job.url));
      bar.value = status.done;
      if (status.state === "done") {
        text.textContent = `Done: ${status.total.toLocaleString("en")} games played.`;
        if (status.report) renderReport(status.report, asked);
        break;
      }
      if (status.state === "failed") throw new Error(status.error);
      text.textContent = status.state === "queued"
        ? `Waiting for ${status.position} ${status.position === 1 ? "simulation" : "simulations"} ahead of yours…`
        : `${status.done.toLocaleString("en")} of ${status.total.toLocaleString("en")} games played…`;
      await pause(POLL_MS);
    }
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
    panel.hidden = true;
  } finally {
    busy = false;
    button.disabled = false;
  }
}

/** @param {Figure} f @param {number} [digits] */
function withInterval(f, digits = 1) {
  const n = (/** @type {number} */ x) => x.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits }).replace("-", "−");
  return `${n(f.value)} (${n(f.low)}${f.low < 0 ? " to " : "–"}${n(f.high)})`;
}

/** @param {number} x */
const percent = (x) => `${(x * 100).toFixed(1)}%`;

/**
 * @param {Report} report
 * @param {LabState} asked
 */
function renderReport(report, asked) {
  byId("report").hidden = false;  // first, so the chart is drawn to the width it is shown at
  const base = report.compared_to;
  const compare = Object.keys(base.changed).length > 0;
  const name = compare ? `${asked.preset} + house rules` : asked.preset;
  byId("report-setup").textContent = `${name}, ${asked.players} players, ${asked.bots} bots, ${asked.games.toLocaleString("en")} games for each column.`;
  byId("col-ours").textContent = name;
  byId("col-base").textContent = base.preset;
  byId("col-base").hidden = !compare;
  drawShares(report, compare ? base : null, name, base.preset);
  byId("figures").replaceChildren(...meta.figures.map(({ name: key, label, digits }) => {
    const row = document.createElement("tr");
    row.dataset.figure = key;
    const head = el("th", "", label);
    head.setAttribute("scope", "row");
    row.append(head, el("td", "", withInterval(figureAt(report, key), digits)));
    if (compare) row.append(el("td", "", withInterval(figureAt(base, key), digits)));
    return row;
  }));
  const memory = report.memory_vs_speed;
  byId("memory-note").textContent = `Memory against speed: ${memory.memory_bot}, against ${memory.fast_bot}. `
    + `Under these rules the counter wins ${percent(memory.memory_share.value)} of games and the fast hand `
    + `${percent(memory.fast_share.value)}; the figure above is the counter's share minus the fast hand's.`;
  const list = byId("differences");
  if (!compare) {
    list.replaceChildren(el("li", "", `These are ${base.preset}'s own rules: change a rule to compare.`));
  } else if (base.significant.length === 0) {
    list.replaceChildren(el("li", "", `No figure differs from ${base.preset} beyond chance at this number of games.`));
  } else {
    list.replaceChildren(...base.significant.map((d) => {
      const share = d.figure.startsWith("win_share") || meta.figures.find((f) => f.name === d.figure)?.unit === "share difference";
      const show = (/** @type {number} */ x) => (share ? percent(x) : x.toLocaleString("en", { maximumFractionDigits: 1 }));
      const sign = d.difference > 0 ? "+" : "−";
      const delta = share ? `${sign}${(Math.abs(d.difference) * 100).toFixed(1)} points` : `${sign}${Math.abs(d.difference).toLocaleString("en", { maximumFractionDigits: 1 })}`;
      return el("li", "", `${figureLabel(d.figure, meta.figures)}: ${show(d.value)} against ${show(d.preset)} (${delta})`);
    }));
  }
  byId("report-title").focus();  // the report is what the person waited for: take them there
}

/**
 * Grouped bars, one group per seat (and one for games nobody won), with 95% whiskers.
 * @param {Figures} ours
 * @param {Figures | null} base
 * @param {string} oursName
 * @param {string} baseName
 */
function drawShares(ours, base, oursName, baseName) {
  const box = byId("shares");
  const series = base ? [ours, base] : [ours];
  const groups = [...new Set(series.flatMap((f) => f.win_share.map((s) => s.seat)))];
  const width = Math.max(280, Math.min(640, box.clientWidth || 600));
  const height = 220;
  const area = { left: 44, right: width - 8, top: 10, bottom: height - 40 };
  const top = Math.max(...series.flatMap((f) => f.win_share.map((s) => s.high)), 0.05);
  const yAxis = niceAxis(0, top, 4);
  const y = linear([0, yAxis.max], [area.bottom, area.top]);
  const groupWidth = (area.right - area.left) / groups.length;
  const barWidth = Math.min(40, (groupWidth * 0.7) / series.length);
  const label = series.map((f, i) => `${i === 0 ? oursName : baseName}: ${f.win_share.map((s) => `${s.seat === null ? "no winner" : `seat ${s.seat}`} ${percent(s.share)}`).join(", ")}`).join("; ");
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `Share of wins by seat. ${label}`, class: "chart" });
  const axes = svg("g", { class: "axes" });
  for (const tick of yAxis.ticks) {
    axes.append(svg("line", { x1: area.left, x2: area.right, y1: y(tick), y2: y(tick), class: "grid" }));
    axes.append(svg("text", { x: area.left - 6, y: y(tick) + 4, "text-anchor": "end" }, `${Math.round(tick * 100)}%`));
  }
  axes.append(svg("line", { x1: area.left, x2: area.right, y1: area.bottom, y2: area.bottom, class: "axis" }));
  groups.forEach((seat, g) => {
    const centre = area.left + groupWidth * (g + 0.5);
    axes.append(svg("text", { x: centre, y: area.bottom + 16, "text-anchor": "middle" }, seat === null ? "no winner" : `seat ${seat}`));
  });
  root.append(axes);
  series.forEach((figures, index) => {
    for (const share of figures.win_share) {
      const g = groups.indexOf(share.seat);
      const x = area.left + groupWidth * (g + 0.5) - (barWidth * series.length) / 2 + index * barWidth;
      const bar = svg("rect", { x, y: y(share.share), width: barWidth - 2, height: Math.max(0, area.bottom - y(share.share)), fill: COLOURS[index], "data-series": String(index) });
      bar.append(svg("title", {}, `${index === 0 ? oursName : baseName}, ${share.seat === null ? "no winner" : `seat ${share.seat}`}: ${percent(share.share)} (${percent(share.low)}–${percent(share.high)})`));
      root.append(bar);
      const mid = x + (barWidth - 2) / 2;
      root.append(svg("path", { d: `M${mid},${y(share.low)}L${mid},${y(share.high)}M${mid - 4},${y(share.low)}L${mid + 4},${y(share.low)}M${mid - 4},${y(share.high)}L${mid + 4},${y(share.high)}`, class: "whisker" }));
    }
  });
  root.append(svg("text", { x: (area.left + area.right) / 2, y: area.bottom + 32, "text-anchor": "middle", class: "axis-title" }, "share of games won (95% interval)"));
  box.replaceChildren(root);
  byId("shares-legend").replaceChildren(...series.map((_, index) => {
    const item = el("li", "");
    const swatch = svg("svg", { width: 14, height: 14, "aria-hidden": "true", class: "swatch" });
    swatch.append(svg("rect", { x: 0, y: 0, width: 14, height: 14, fill: COLOURS[index] }));
    item.append(swatch, ` ${index === 0 ? oursName : baseName}`);
    return item;
  }));
}

// ------------------------------------------------------------------------------ play

async function playTheseRules() {
  showError("");
  try {
    const room = /** @type {import("./protocol").RoomCreated} */ (await fetchJson("/api/rooms", { rules: rulesText(), seats: state.players }));
    location.assign(room.url);
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
  }
}

// ------------------------------------------------------------------------------ start

async function start() {
  const data = /** @type {LabSettingsAnswer} */ (await fetchJson("/api/lab/settings"));
  meta.settings = data.settings;
  meta.patterns = data.patterns;
  meta.levels = data.levels;
  meta.figures = data.figures;
  for (const preset of data.presets) {
    meta.presets[preset.name] = preset;
    meta.summaries[preset.name] = preset.summary;
  }
  fillSelects();
  state = decodeShare(location.hash, meta.settings, meta.presets, meta.levels);
  showState();
  byId("settings").addEventListener("change", onSettingChange);
  byId("settings").addEventListener("submit", (event) => event.preventDefault());
  byId("preset").addEventListener("change", () => {
    state = { ...state, preset: byId("preset", HTMLSelectElement).value };
    state.values = { ...presetValues() };
    showState();
  });
  byId("reset").addEventListener("click", () => {
    state.values = { ...presetValues() };
    showState();
  });
  for (const [id, key] of /** @type {const} */ ([["players", "players"], ["games", "games"]])) {
    byId(id).addEventListener("change", () => {
      state[key] = Number(byId(id, HTMLSelectElement).value);
      markChanged();
    });
  }
  byId("bots").addEventListener("change", () => {
    state.bots = byId("bots", HTMLSelectElement).value;
    markChanged();
  });
  byId("simulate").addEventListener("click", () => { void simulate(); });
  byId("play").addEventListener("click", () => { void playTheseRules(); });
  byId("copy-share").addEventListener("click", () => {
    const input = byId("share", HTMLInputElement);
    input.select();
    void navigator.clipboard?.writeText(input.value).catch(() => {});
  });
  window.addEventListener("hashchange", () => {
    state = decodeShare(location.hash, meta.settings, meta.presets, meta.levels);
    showState();
  });
  byId("simulate", HTMLButtonElement).disabled = false;
  byId("play", HTMLButtonElement).disabled = false;
  byId("main").setAttribute("aria-busy", "false");
}

start().catch((error) => showError(`The lab could not load: ${error instanceof Error ? error.message : String(error)}`));
