// Unit tests of the page's pure helpers, run by `make jscheck` with Node's own test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cardFace, clockLeft, formatMs, keyName, mayAct, reactionTo, remainingMs, seatStatus } from "../../ratscrew/web/js/format.js";

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

test("a game's time left reads as a clock, in whole seconds rounded up", () => {
  assert.equal(clockLeft(725_000), "12:05");
  assert.equal(clockLeft(8_001), "0:09");
  assert.equal(clockLeft(-5), "0:00");
});

test("a slap answers the newest state painted at least a human reaction before the key press", () => {
  const shown = new Map([[4, 1000], [5, 1500], [6, 2100]]);
  assert.deepEqual(reactionTo(shown, 1800), { version: 5, reaction_ms: 300 });
  assert.deepEqual(reactionTo(shown, 2250), { version: 6, reaction_ms: 150 });
  assert.equal(reactionTo(shown, 900), null);
});

test("a press within a human reaction of a change still answers the state before it (issue 46)", () => {
  // state 6 (someone took the pile) was painted 37 ms before the press: the person was
  // reacting to state 5, the slappable pile, 637 ms earlier - not to state 6 in 37 ms
  const shown = new Map([[4, 1000], [5, 1500], [6, 2100]]);
  assert.deepEqual(reactionTo(shown, 2137), { version: 5, reaction_ms: 637 });
  assert.deepEqual(reactionTo(shown, 2100), { version: 5, reaction_ms: 600 });
  // with nothing painted that long ago, the newest state painted before the press
  assert.deepEqual(reactionTo(new Map([[9, 1000]]), 1040), { version: 9, reaction_ms: 40 });
});

test("seat lines and key names", () => {
  assert.equal(seatStatus("in", 1), "1 card");
  assert.equal(seatStatus("locked_out", 12), "12 cards, locked out");
  assert.equal(seatStatus("out", 0), "out");
  assert.equal(keyName(" "), "space");
  assert.equal(keyName("A"), "a");
});

test("ratings show one decimal and a real minus sign", async () => {
  const { formatRating } = await import("../../ratscrew/web/js/format.js");
  assert.equal(formatRating(3.14159), "3.1");
  assert.equal(formatRating(25), "25.0");
  assert.equal(formatRating(-0.44), "−0.4");
  assert.equal(formatRating(-0.04), "0.0");
  assert.equal(formatRating(null), "–");
});

test("places are ordinals", async () => {
  const { ordinal } = await import("../../ratscrew/web/js/format.js");
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
});

test("dates read as a short local date and time", async () => {
  const { shortDate } = await import("../../ratscrew/web/js/format.js");
  const utc = { locale: "en-GB", timeZone: "UTC" };
  assert.equal(shortDate("2026-11-25T14:02:11Z", { ...utc, now: new Date("2026-12-01T00:00:00Z") }), "25 Nov, 14:02");
  assert.equal(shortDate("2025-11-25T14:02:11Z", { ...utc, now: new Date("2026-12-01T00:00:00Z") }), "25 Nov 2025, 14:02");
  assert.equal(shortDate("not a date"), "not a date");
});

test("who may act is read from the observation's may, seat by seat, never from statuses", () => {
  // seat 1 is locked out, yet owed the pile of a lost challenge: the engine lets it slap to claim
  const observation = { status: ["in", "locked", "out"], may: { play: [true, false, false], slap: [true, true, true] } };
  assert.deepEqual(mayAct(observation, 0), { play: true, slap: true });
  assert.deepEqual(mayAct(observation, 1), { play: false, slap: true });
  assert.deepEqual(mayAct(observation, 2), { play: false, slap: true });
  assert.deepEqual(mayAct(observation, null), { play: false, slap: false });  // a spectator
  assert.deepEqual(mayAct({ status: ["in"] }, 0), { play: false, slap: false });  // no word: no action
  assert.deepEqual(mayAct(null, 0), { play: false, slap: false });
});
