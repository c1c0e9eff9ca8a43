// @ts-check
/** The leaderboard: players by ruleset, best first. */
import { byId, el, fetchJson } from "./dom.js";
import { formatMs, formatRating } from "./format.js";
import { playerUrl } from "./identity.js";

const rulesChoice = byId("rules", HTMLSelectElement);

async function show() {
  const rules = rulesChoice.value;
  history.replaceState(null, "", `/leaderboard?rules=${encodeURIComponent(rules)}`);
  try {
    const board = /** @type {import("./protocol").LeaderboardAnswer} */ (
      await fetchJson(`/api/leaderboard?rules=${encodeURIComponent(rules)}`));
    const body = byId("board");
    body.replaceChildren(...board.players.map((p, i) => {
      const row = el("tr");
      const name = el("td", "name");
      if (p.player_id) {
        const link = /** @type {HTMLAnchorElement} */ (el("a", "", p.name));
        link.href = playerUrl(p.player_id);
        name.append(link);
      } else {
        name.textContent = p.name;
      }
      if (p.provisional) {
        const mark = el("span", "tag provisional", "prov.");
        mark.title = "provisional: few games yet, the rating may still move a lot";
        mark.setAttribute("aria-label", "provisional");
        name.append(" ", mark);
      }
      const rating = el("td", "num", formatRating(p.rating));
      if (p.rating_sigma !== undefined && p.rating_sigma !== null) rating.title = `± ${formatRating(p.rating_sigma)}`;
      row.append(el("td", "num", String(p.rank ?? i + 1)), name, rating, el("td", "num", String(p.games)),
        el("td", "num wide", String(p.wins)), el("td", "num", `${Math.round(p.win_rate * 100)}%`),
        el("td", "num wide", String(p.slaps)), el("td", "num wide", String(p.misslaps)),
        el("td", "num wide", formatMs(p.median_reaction_ms)), el("td", "num wide", formatMs(p.best_reaction_ms)));
      return row;
    }));
    byId("empty").hidden = board.players.length > 0;
  } catch (error) {
    byId("error").textContent = error instanceof Error ? error.message : String(error);
  }
}

async function load() {
  const presets = /** @type {import("./protocol").PresetsAnswer} */ (await fetchJson("/api/presets"));
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
