// @ts-check
/** Pure helpers of the arena page (no DOM): the countdown's words, an arena's one-line summary. */

/**
 * Seconds as a countdown: "4:05", "1:02:03".
 * @param {number} seconds
 * @returns {string}
 */
export function countdown(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/**
 * What the clock line says of an arena at server time ``now`` (epoch seconds): a label and
 * the countdown (empty once it is over).
 * @param {{state: string, starts_at: number, ends_at: number, final?: boolean}} arena
 * @param {number} now
 * @returns {{label: string, clock: string, running: boolean}}
 */
export function clockLine(arena, now) {
  if (arena.state === "cancelled") return { label: "Cancelled", clock: "", running: false };
  if (arena.state !== "finished" && now < arena.starts_at) {
    return { label: "Starts in", clock: countdown(arena.starts_at - now), running: false };
  }
  if (arena.state !== "finished" && now < arena.ends_at) {
    return { label: "Ends in", clock: countdown(arena.ends_at - now), running: true };
  }
  return { label: arena.final ? "Finished: final standings" : "Finished: the last games are being played",
    clock: "", running: false };
}

/**
 * An arena in one line: "classic · 2 players · 30 minutes".
 * @param {{rules: string, players: number, starts_at: number, ends_at: number}} arena
 * @returns {string}
 */
export function arenaLine(arena) {
  const minutes = Math.round((arena.ends_at - arena.starts_at) / 60);
  return `${arena.rules} · ${arena.players} players · ${minutes} minutes`;
}
