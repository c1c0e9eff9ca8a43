// The player key: made once from crypto randomness, URL-safe, kept; replaced on import; the
// public id remembered from `welcome` (a guest's null changes nothing).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ID_ITEM, KEY_ITEM, MIN_DISTINCT, newKey, playerId, playerKey, playerUrl, rememberPlayerId, replaceKey, validKey,
} from "../../ratscrew/web/js/identity.js";

class MemoryStore {
  constructor() { this.items = new Map(); }
  getItem(k) { return this.items.has(k) ? this.items.get(k) : null; }
  setItem(k, v) { this.items.set(k, String(v)); }
  removeItem(k) { this.items.delete(k); }
}

test("a new key is 32 URL-safe characters and valid", () => {
  for (let i = 0; i < 50; i += 1) {
    const key = newKey();
    assert.match(key, /^[A-Za-z0-9_-]{32}$/);
    assert.ok(validKey(key));
  }
  assert.notEqual(newKey(), newKey());
});

test("every byte value maps to a symbol and all 64 symbols are used evenly", () => {
  const all = newKey(() => Uint8Array.from({ length: 32 }, (_, i) => i * 2 + 1));
  assert.equal(new Set(all).size, 32);
  const counts = new Map();
  for (let byte = 0; byte < 256; byte += 1) {
    const symbol = newKey(() => new Uint8Array(32).fill(byte))[0];
    counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
  }
  assert.equal(counts.size, 64);
  assert.ok([...counts.values()].every((c) => c === 4));
});

test("the key is made on the first call and kept after", () => {
  const store = new MemoryStore();
  const first = playerKey(store);
  assert.equal(store.getItem(KEY_ITEM), first);
  assert.equal(playerKey(store), first);
});

test("a damaged stored key is handed on as it is (the server says bad_key)", () => {
  const store = new MemoryStore();
  store.setItem(KEY_ITEM, "short!");
  assert.equal(playerKey(store), "short!");
  assert.equal(validKey("short!"), false);
});

test("validKey takes 20 to 64 URL-safe characters only", () => {
  assert.ok(validKey("a".repeat(20)));
  assert.ok(validKey("A-_9".repeat(16)));
  assert.equal(validKey("a".repeat(19)), false);
  assert.equal(validKey("a".repeat(65)), false);
  assert.equal(validKey(`${"a".repeat(30)}=`), false);
  assert.equal(validKey(`${"a".repeat(30)} `), false);
  assert.equal(validKey(null), false);
  assert.equal(validKey(42), false);
});

test("the player id is remembered from welcome; a guest's null forgets nothing", () => {
  const store = new MemoryStore();
  assert.equal(playerId(store), null);
  rememberPlayerId("Ab3xyz", store);
  assert.equal(playerId(store), "Ab3xyz");
  rememberPlayerId(null, store);
  rememberPlayerId(undefined, store);
  assert.equal(playerId(store), "Ab3xyz");
});

test("replacing the key forgets the old id unless the new one is given", () => {
  const store = new MemoryStore();
  playerKey(store);
  rememberPlayerId("old", store);
  const imported = "k".repeat(32);
  replaceKey(imported, "new", store);
  assert.equal(store.getItem(KEY_ITEM), imported);
  assert.equal(store.getItem(ID_ITEM), "new");
  replaceKey(newKey(), null, store);
  assert.equal(playerId(store), null);
  assert.throws(() => replaceKey("not a key", null, store), /20 to 64/);
  assert.notEqual(store.getItem(KEY_ITEM), "not a key");
});

test("a player's page address escapes the id", () => {
  assert.equal(playerUrl("Ab3_-x"), "/players/Ab3_-x");
  assert.equal(playerUrl("a/b"), "/players/a%2Fb");
});

test("a new key always has enough different characters for the server to take it", () => {
  for (let i = 0; i < 2000; i += 1) assert.ok(new Set(newKey()).size >= MIN_DISTINCT);
  // a random source that first gives a dull key and then a good one: the dull one is drawn again
  let calls = 0;
  const dullThenGood = (bytes) => {
    calls += 1;
    return calls === 1 ? bytes.fill(7) : bytes.map((_, i) => i * 5);
  };
  const key = newKey(dullThenGood);
  assert.equal(calls, 2);
  assert.ok(new Set(key).size >= MIN_DISTINCT);
});
