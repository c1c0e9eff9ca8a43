// Quick play on the page: the room a tab was matched to joins by itself (and only that room),
// "Play again" asks the home page once for the same pool, and the wait reads as m:ss.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MATCH_ITEM, matchedPool, seekAgain, takeSeekAgain, waited } from "../../ratscrew/web/js/quickplay.js";

class MemoryStore {
  constructor() { this.items = new Map(); }
  getItem(k) { return this.items.has(k) ? this.items.get(k) : null; }
  setItem(k, v) { this.items.set(k, String(v)); }
  removeItem(k) { this.items.delete(k); }
}

test("the matched pool belongs to its room only", () => {
  const store = new MemoryStore();
  assert.equal(matchedPool("AQXTRZ", store), null);
  store.setItem(MATCH_ITEM, JSON.stringify({ rules: "pagat", players: 4, room: "AQXTRZ" }));
  assert.deepEqual(matchedPool("AQXTRZ", store), { rules: "pagat", players: 4, room: "AQXTRZ" });
  assert.equal(matchedPool("BKKKKK", store), null);
  store.setItem(MATCH_ITEM, "{not json");
  assert.equal(matchedPool("AQXTRZ", store), null);
});

test("play again is taken once, without the room", () => {
  const store = new MemoryStore();
  seekAgain({ rules: "classic", players: 2, room: "AQXTRZ" }, store);
  assert.deepEqual(takeSeekAgain(store), { rules: "classic", players: 2 });
  assert.equal(takeSeekAgain(store), null);
});

test("the wait reads as minutes and seconds", () => {
  assert.equal(waited(0), "0:00");
  assert.equal(waited(7.9), "0:07");
  assert.equal(waited(65), "1:05");
  assert.equal(waited(-3), "0:00");
});
