// Unit tests of the page's pure helpers, run by `make jscheck` with Node's own test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cardFace, formatMs, keyName, reactionTo, remainingMs, seatStatus } from "../../ratscrew/web/js/format.js";

test("cards in notation are shown with their suit symbol and name", () => {
  assert.deepEqual(cardFace("TH"), { rank: "10", suit: "H", suitName: "hearts", symbol: "♥", label: "10♥" });
  assert.equal(cardFace("7C").label, "7♣");
  assert.equal(cardFace("JK").suitName, "joker");
});

test("times read as people say them", () => {
  assert.equal(formatMs(312.4), "312 ms");
  assert.equal(formatMs(1450), "1.4 s");
  assert.equal(formatMs(null), "–");
});

test("a countdown runs from when the state was sent, never below zero", () => {
  assert.equal(remainingMs(1300, 1000, 100), 200);
  assert.equal(remainingMs(1300, 1000, 500), 0);
});

test("a slap answers the newest state painted before the key press", () => {
  const shown = new Map([[4, 1000], [5, 1500], [6, 2100]]);
  assert.deepEqual(reactionTo(shown, 1800), { version: 5, reaction_ms: 300 });
  assert.deepEqual(reactionTo(shown, 2100), { version: 6, reaction_ms: 0 });
  assert.equal(reactionTo(shown, 900), null);
});

test("seat lines and key names", () => {
  assert.equal(seatStatus("in", 1), "1 card");
  assert.equal(seatStatus("locked_out", 12), "12 cards, locked out");
  assert.equal(seatStatus("out", 0), "out");
  assert.equal(keyName(" "), "space");
  assert.equal(keyName("A"), "a");
});
