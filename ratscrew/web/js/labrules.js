// @ts-check
/** Pure helpers for the house-rule lab page (no DOM): which settings differ from the preset,
 * the share link's fragment and back, the rules as TOML for the server, and the report's figures by name.
 * Node tests check that a share link round-trips. */

/**
 * @typedef {import("./protocol").LabSetting} Setting a setting the lab offers (GET /api/lab/settings)
 * @typedef {Record<string, import("./protocol").SettingValue>} Values
 * @typedef {{preset: string, values: Values, players: number, bots: string, games: number}} LabState
 */

/**
 * The settings (names) on which `values` differ from the preset's.
 * @param {Setting[]} settings
 * @param {Values} values
 * @param {Values} preset
 * @returns {string[]}
 */
export function changedSettings(settings, values, preset) {
  return settings.filter((s) => !same(values[s.name], preset[s.name])).map((s) => s.name);
}

/**
 * @param {unknown} a
 * @param {unknown} b
 */
function same(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/**
 * The share link's fragment: preset, table, and only the settings that differ from the preset.
 * @param {Setting[]} settings
 * @param {LabState} state
 * @param {Values} preset
 * @returns {string}
 */
export function encodeShare(settings, state, preset) {
  const params = new URLSearchParams();
  params.set("preset", state.preset);
  params.set("players", String(state.players));
  params.set("bots", state.bots);
  params.set("games", String(state.games));
  for (const name of changedSettings(settings, state.values, preset)) {
    const value = state.values[name];
    params.set(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  return params.toString();
}

/**
 * A lab state from a share link's fragment (with or without its "#"); unknown keys and values
 * that do not fit a setting are left out, so a damaged link still opens on a valid state.
 * @param {string} fragment
 * @param {Setting[]} settings
 * @param {Record<string, Values>} presets
 * @param {string[]} levels
 * @returns {LabState}
 */
export function decodeShare(fragment, settings, presets, levels) {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const names = Object.keys(presets);
  const preset = names.includes(params.get("preset") ?? "") ? /** @type {string} */ (params.get("preset")) : names[0];
  /** @type {Values} */
  const values = { ...presets[preset] };
  for (const setting of settings) {
    const raw = params.get(setting.name);
    if (raw === null) continue;
    const value = parseSetting(setting, raw);
    if (value !== undefined) values[setting.name] = value;
  }
  const players = wholeIn(params.get("players"), 2, 8) ?? 4;
  const bots = levels.includes(params.get("bots") ?? "") ? /** @type {string} */ (params.get("bots")) : "casual";
  const games = wholeIn(params.get("games"), 1, 100000) ?? 2000;
  return { preset, values, players, bots, games };
}

/**
 * @param {string | null} raw
 * @param {number} low
 * @param {number} high
 * @returns {number | undefined}
 */
function wholeIn(raw, low, high) {
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= low && value <= high ? value : undefined;
}

/**
 * A setting's value from text, or undefined when it does not fit.
 * @param {Setting} setting
 * @param {string} raw
 * @returns {boolean | number | string | string[] | undefined}
 */
export function parseSetting(setting, raw) {
  switch (setting.kind) {
    case "bool": return raw === "true" ? true : raw === "false" ? false : undefined;
    case "int": return wholeIn(raw, 0, 1_000_000);
    case "choice": return setting.choices?.includes(raw) ? raw : undefined;
    default: return raw === "" ? [] : raw.split(",");
  }
}

/**
 * The rules as TOML text for `POST /api/lab` and `POST /api/rooms`.
 * @param {Values} values
 * @param {string} name
 * @param {string} [summary]
 * @returns {string}
 */
export function rulesToml(values, name, summary = "") {
  const lines = [`name = ${JSON.stringify(name)}`, `summary = ${JSON.stringify(summary)}`];
  for (const [key, value] of Object.entries(values)) {
    if (key === "name" || key === "summary") continue;
    lines.push(`${key} = ${tomlValue(value)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** @param {boolean | number | string | string[]} value */
function tomlValue(value) {
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

/**
 * A setting's name as words: "misslap_cards" → "Misslap cards".
 * @param {string} name
 */
export function settingLabel(name) {
  const words = name.replaceAll("_", " ").replace(/ ms$/, " (ms)");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A figure of the lab's report as `GET /api/lab/settings` lists it (`ratscrew/sim/figures.py`
 * declares them): where the report holds it, what it is called, its decimals and unit.
 * @typedef {import("./protocol").FigureInfo} FigureInfo
 */

/**
 * A figure's estimate in a report (or its `compared_to` part): `length.mean_cards` is
 * `report.length.mean_cards`.
 * @param {Record<string, any>} report
 * @param {string} name
 * @returns {{value: number, low: number, high: number}}
 */
export function figureAt(report, name) {
  /** @type {any} */
  let found = report;
  for (const key of name.split(".")) found = found[key];
  return found;
}

/**
 * The label of a figure named as in the report's `significant` list.
 * @param {string} figure
 * @param {FigureInfo[]} figures the server's list of figures
 */
export function figureLabel(figure, figures) {
  const seat = /^win_share\[(\d+|no winner)\]$/.exec(figure);
  if (seat) return seat[1] === "no winner" ? "Games nobody wins" : `Seat ${seat[1]}'s share of wins`;
  return figures.find((f) => f.name === figure)?.label ?? figure;
}
