// @ts-check
/** The home page's arenas (issue 50): the list of upcoming, running and recent arenas, and a
 * small form that starts one (``POST /api/arenas``). A block of its own beside "Play now". */
import { byId, el, fetchJson } from "./dom.js";
import { arenaLine, clockLine } from "./arenaview.js";
import { playerKey } from "./identity.js";

/**
 * ``POST /api/arenas``; an error answer becomes an Error with the server's words.
 * @param {Record<string, unknown>} body
 * @returns {Promise<{id: string, url: string}>}
 */
async function postArena(body) {
  const response = await fetch("/api/arenas", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.message ?? data.error ?? `the server answered ${response.status}`);
  return data;
}

async function listArenas() {
  try {
    const { arenas } = await fetchJson("/api/arenas");
    byId("arena-list").replaceChildren(...arenas.map((/** @type {any} */ arena) => {
      const item = el("li");
      const link = /** @type {HTMLAnchorElement} */ (el("a", "", arenaLine(arena)));
      link.href = arena.url;
      const line = clockLine(arena, arena.now);
      item.append(link, " ", el("span", "hint", line.clock ? `${line.label.toLowerCase()} ${line.clock}` : "finished"));
      return item;
    }));
    byId("no-arenas").hidden = arenas.length > 0;
  } catch {
    byId("no-arenas").hidden = false;
  }
}

byId("new-arena").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = byId("arena-creator", HTMLInputElement).value.trim();
  byId("arena-error").textContent = "";
  try {
    const created = await postArena({
      rules: byId("arena-rules", HTMLSelectElement).value,
      players: Number(byId("arena-players", HTMLSelectElement).value),
      minutes: Number(byId("arena-minutes", HTMLInputElement).value),
      starts_in_s: Math.round(Number(byId("arena-starts", HTMLInputElement).value) * 60),
      player_key: playerKey(),
      name,
    });
    if (name) localStorage.setItem("ratscrew.name", name);
    location.assign(created.url);
  } catch (error) {
    byId("arena-error").textContent = error instanceof Error ? error.message : String(error);
  }
});

byId("arena-creator", HTMLInputElement).value = localStorage.getItem("ratscrew.name") ?? "";
listArenas();
