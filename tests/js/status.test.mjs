// The table's status line while a lost challenge's pile waits (ratscrew/web/js/status.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { collectionStatus } from "../../ratscrew/web/js/status.js";

const names = ["Ann", "Bea"];
/** @param {number} seat */
const nameOf = (seat) => names[seat] ?? `Seat ${seat + 1}`;
/** @param {number} deadline */
const leftAt1000 = (deadline) => deadline - 1000;

test("a pile collected automatically counts down to its winner taking it", () => {
  const pile = { winner: 1, collect_at: 2400, exclusive_until: null, open_to_all: false };
  assert.equal(collectionStatus(pile, nameOf, leftAt1000), "Bea takes the pile in 1.4 s");
  assert.equal(collectionStatus({ ...pile, open_to_all: true }, nameOf, leftAt1000),
    "Anyone may slap to claim the pile: 1.4 s");
});

test("a pile claimed by a slap only has no countdown (collect_at is null), never NaN", () => {
  const pile = { winner: 0, collect_at: null, exclusive_until: null, open_to_all: false };
  assert.equal(collectionStatus(pile, nameOf, leftAt1000), "Ann may slap to claim the pile");
  assert.equal(collectionStatus({ ...pile, open_to_all: true }, nameOf, leftAt1000), "Anyone may slap to claim the pile");
});

test("an exclusive claim window counts down to the end of the winner's claim", () => {
  const pile = { winner: 0, collect_at: null, exclusive_until: 4000, open_to_all: false };
  assert.equal(collectionStatus(pile, nameOf, leftAt1000), "Ann may slap to claim the pile: 3.0 s");
});
