// @ts-check
/** The replay viewer: step forward and back through a finished game, as a spectator saw it. */
import { drawPile } from "./cards.js";
import { byId, el, fetchJson } from "./dom.js";
import { seatStatus } from "./format.js";

const gameId = location.pathname.split("/").pop() ?? "";
/** @type {{names: string[], frames: {observation: any, lines: string[]}[]}} */
let replay = { names: [], frames: [] };
let step = 0;

function render() {
  const frame = replay.frames[step];
  if (!frame) return;
  const observation = frame.observation;
  byId("step").textContent = `Step ${step + 1} of ${replay.frames.length}`;
  byId("step-range", HTMLInputElement).value = String(step);
  drawPile(byId("pile"), observation.pile);
  const seats = byId("seats");
  seats.replaceChildren(...replay.names.map((name, seat) => {
    const node = el("div", `seat${observation.turn === seat ? " turn" : ""}${observation.status[seat] === "out" ? " out" : ""}`);
    node.append(el("div", "name", name), el("div", "count", seatStatus(observation.status[seat], observation.hand_sizes[seat])));
    return node;
  }));
  byId("lines").replaceChildren(...frame.lines.map((line) => el("li", "", line)));
  byId("back", HTMLButtonElement).disabled = step === 0;
  byId("forward", HTMLButtonElement).disabled = step === replay.frames.length - 1;
}

/** @param {number} to */
function go(to) {
  step = Math.max(0, Math.min(replay.frames.length - 1, to));
  render();
}

byId("back").addEventListener("click", () => go(step - 1));
byId("forward").addEventListener("click", () => go(step + 1));
byId("start").addEventListener("click", () => go(0));
byId("end").addEventListener("click", () => go(replay.frames.length - 1));
byId("step-range").addEventListener("input", (event) => go(Number(/** @type {HTMLInputElement} */ (event.target).value)));
document.addEventListener("keydown", (event) => {
  if (event.key === "ArrowRight") go(step + 1);
  else if (event.key === "ArrowLeft") go(step - 1);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(replay.frames.length - 1);
});

fetchJson(`/api/games/${encodeURIComponent(gameId)}/replay`).then((data) => {
  replay = data;
  byId("title").textContent = `Game ${gameId}: ${replay.names.join(", ")}`;
  byId("record", HTMLAnchorElement).href = `/api/games/${encodeURIComponent(gameId)}/record`;
  byId("step-range", HTMLInputElement).max = String(Math.max(0, replay.frames.length - 1));
  render();
}).catch((error) => { byId("error").textContent = error instanceof Error ? error.message : String(error); });

/** Whether the game was rated, why not, and whose own part changed no rating (issue 46: who
 * left early, whose win was over no one who counts): the server's words, from the public record. */
fetchJson(`/api/games/${encodeURIComponent(gameId)}/record`).then((record) => {
  /** @type {{rated: boolean, unrated: string | null, seats: Record<string, string>} | undefined} */
  const rating = record.rating;
  if (!rating) return;
  /** @type {string[]} */
  const names = record.names ?? [];
  const parts = [!rating.rated ? "Not rated yet." : rating.unrated ? `Unrated: ${rating.unrated}.` : "Rated."];
  for (const [seat, why] of Object.entries(rating.seats)) {
    parts.push(`${names[Number(seat)] ?? `Seat ${Number(seat) + 1}`}: ${why}.`);
  }
  byId("rating").textContent = parts.join(" ");
}).catch(() => { /* the replay itself still plays */ });
