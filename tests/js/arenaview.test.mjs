// The arena page's pure helpers: the countdown and the clock line by the arena's state.
import assert from "node:assert/strict";
import { test } from "node:test";
import { arenaLine, clockLine, countdown } from "../../ratscrew/web/js/arenaview.js";

const arena = { state: "upcoming", starts_at: 1000, ends_at: 1300, final: false, rules: "pagat", players: 4 };

test("a countdown in minutes and seconds, hours when long, never negative", () => {
  assert.equal(countdown(245), "4:05");
  assert.equal(countdown(3723), "1:02:03");
  assert.equal(countdown(0.2), "0:01");
  assert.equal(countdown(-5), "0:00");
});

test("the clock counts to the start, then to the end, then says whether the standings are final", () => {
  assert.deepEqual(clockLine(arena, 940), { label: "Starts in", clock: "1:00", running: false });
  assert.deepEqual(clockLine({ ...arena, state: "running" }, 1000), { label: "Ends in", clock: "5:00", running: true });
  assert.equal(clockLine({ ...arena, state: "finished" }, 1300).label, "Finished: the last games are being played");
  assert.equal(clockLine({ ...arena, state: "finished", final: true }, 1400).label, "Finished: final standings");
  assert.equal(clockLine({ ...arena, state: "cancelled" }, 1100).label, "Cancelled");
});

test("an arena in one line", () => {
  assert.equal(arenaLine(arena), "pagat · 4 players · 5 minutes");
});

test("an arena's table goes back to the arena, and asks it once to seek again", async () => {
  const { againUrl, seekAgain, takeSeekAgain } = await import("../../ratscrew/web/js/quickplay.js");
  const items = new Map();
  const store = { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => items.set(k, v), removeItem: (k) => items.delete(k) };
  assert.equal(againUrl({ rules: "classic", players: 2, arena: "x7Kp2-Qa" }), "/arenas/x7Kp2-Qa");
  assert.equal(againUrl({ rules: "classic", players: 2 }), "/");
  assert.equal(againUrl(null), "/");
  seekAgain({ rules: "classic", players: 2, room: "AQXTRZ", arena: "x7Kp2-Qa" }, store);
  assert.deepEqual(takeSeekAgain(store), { rules: "classic", players: 2, arena: "x7Kp2-Qa" });
  assert.equal(takeSeekAgain(store), null);
});
