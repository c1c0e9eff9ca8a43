// @ts-check
/** The leaderboard: players by ruleset, best first. */
import { byId, el, fetchJson } from "./dom.js";
import { formatMs } from "./format.js";

const rulesChoice = byId("rules", HTMLSelectElement);

async function show() {
  const rules = rulesChoice.value;
  history.replaceState(null, "", `/leaderboard?rules=${encodeURIComponent(rules)}`);
  try {
    const board = await fetchJson(`/api/leaderboard?rules=${encodeURIComponent(rules)}`);
    const body = byId("board");
    body.replaceChildren(...board.players.map((/** @type {any} */ p, /** @type {number} */ i) => {
      const row = el("tr");
      row.append(el("td", "", String(i + 1)), el("td", "", p.name), el("td", "", String(p.games)),
        el("td", "", String(p.wins)), el("td", "", `${Math.round(p.win_rate * 100)}%`),
        el("td", "wide", String(p.slaps)), el("td", "wide", String(p.misslaps)),
        el("td", "", formatMs(p.median_reaction_ms)), el("td", "wide", formatMs(p.best_reaction_ms)));
      return row;
    }));
    byId("empty").hidden = board.players.length > 0;
  } catch (error) {
    byId("error").textContent = error instanceof Error ? error.message : String(error);
  }
}

async function load() {
  const presets = await fetchJson("/api/presets");
  for (const preset of presets.presets) {
    const option = /** @type {HTMLOptionElement} */ (el("option", "", preset.name));
    option.value = preset.name;
    rulesChoice.append(option);
  }
  rulesChoice.value = new URLSearchParams(location.search).get("rules") ?? "classic";
  await show();
}

rulesChoice.addEventListener("change", show);
load().catch((error) => { byId("error").textContent = String(error); });
