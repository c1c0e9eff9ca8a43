// The page's log book: a reloaded or reconnected page draws the same log as one that never
// left, with no gap and no duplicate, and a divider between games.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LogBook } from "../../ratscrew/web/js/logbook.js";
import { splitTerms } from "../../ratscrew/web/js/glossary.js";

const texts = (items) => items.map((item) => `${item.kind}:${item.text}`);

test("states draw their lines once, in order", () => {
  const book = new LogBook();
  assert.deepEqual(texts(book.state({ version: 1, game: 1, lines: [] }).items), []);
  assert.deepEqual(texts(book.state({ version: 2, game: 1, lines: ["Ann plays 7♥"] }).items), ["line:Ann plays 7♥"]);
  assert.deepEqual(book.state({ version: 2, game: 1, lines: ["Ann plays 7♥"] }).items, []);  // a repeat
});

test("a skipped version asks the history for what is missing, which then fills the gap", () => {
  const book = new LogBook();
  book.state({ version: 4, game: 1, lines: ["a"] });
  const skipped = book.state({ version: 7, game: 1, lines: ["d"] });
  assert.deepEqual(skipped, { items: [], missing: 4 });
  const filled = book.history({ entries: [
    { version: 5, game: 1, lines: ["b"] }, { version: 6, game: 1, lines: ["c"] },
    { version: 7, game: 1, lines: ["d"] }] });
  assert.deepEqual(texts(filled), ["line:b", "line:c", "line:d"]);
  assert.equal(book.lastVersion, 7);
});

test("a judgement is drawn once, whether it comes live or again in the history", () => {
  const book = new LogBook();
  book.state({ version: 3, game: 1, lines: [] });
  const judgement = { version: 3, game: 1, text: "Ann 212 ms, Bob 250 ms: Ann takes the double" };
  assert.equal(book.judgement(judgement).length, 1);
  assert.deepEqual(book.history({ entries: [{ version: 3, game: 1, judgement }] }), []);
});

test("a rematch starts a new, divided section of the log", () => {
  const book = new LogBook();
  book.history({ entries: [{ version: 9, game: 1, lines: ["Ann wins the game"] }] });
  assert.deepEqual(texts(book.state({ version: 10, game: 2, lines: ["Bob plays 3♣"] }).items),
    ["divider:Game 2", "line:Bob plays 3♣"]);
});

test("words a newcomer may not know are picked out of a line", () => {
  const parts = splitTerms("Cara slapped 7♥ 4♣: no pattern. Cara burns 1 card under the pile");
  assert.deepEqual(parts.filter((p) => p.term).map((p) => [p.text, p.term]), [["burns", "burn"]]);
  assert.equal(parts.map((p) => p.text).join(""), "Cara slapped 7♥ 4♣: no pattern. Cara burns 1 card under the pile");
  assert.deepEqual(splitTerms("King! Bob has 3 chances to play a face card").filter((p) => p.term).map((p) => p.term),
    ["chance", "face card"]);
  assert.deepEqual(splitTerms("Ann misslapped").map((p) => p.term), [null, "misslap"]);
});

test("each line carries the kind of the event it tells; the room's own lines after them carry none", () => {
  const book = new LogBook();
  const { items } = book.state({
    version: 1, game: 1,
    events: [{ kind: "card_played", at: 1500, seat: 0 }, { kind: "misslap", at: 1620.4, seat: 1 }],
    lines: ["Ann plays 7♥", "Bob slapped 7♥: no pattern", "Cat is away: a bot plays for Cat"] });
  assert.deepEqual(items.map((item) => [item.eventKind, item.at]),
    [["card_played", 1500], ["misslap", 1620], [null, null]]);
  const judged = book.judgement({ version: 1, game: 1, text: "Ann 212 ms, Bob 250 ms" });
  assert.deepEqual(judged.map((item) => item.eventKind), ["judgement"]);
});

test("the room's own lines after the events take their kinds from note_kinds, in a state and in the history", () => {
  const book = new LogBook();
  const { items } = book.state({
    version: 1, game: 1, events: [{ kind: "card_played", at: 1500, seat: 0 }],
    lines: ["Ann plays 7♥", "Cat is away: a bot plays for Cat until they come back"], note_kinds: ["seat_away"] });
  assert.deepEqual(items.map((item) => [item.eventKind, item.at]), [["card_played", 1500], ["seat_away", null]]);
  const told = book.history({ entries: [
    { version: 2, game: 1, events: [], lines: ["Cat is back and plays again"], note_kinds: ["seat_back"] },
    { version: 3, game: 1, events: [], lines: ["Everyone has been away for 5 minutes: the game is abandoned, and nobody wins"],
      note_kinds: ["game_abandoned"] }] });
  assert.deepEqual(told.map((item) => item.eventKind), ["seat_back", "game_abandoned"]);
});

test("a notice is logged once as a sentence, with its code as its kind", () => {
  const book = new LogBook();
  const items = book.notice({ code: "resumed", message: "the database is back: the game goes on" });
  assert.deepEqual(items.map(({ kind, text, eventKind }) => ({ kind, text, eventKind })),
    [{ kind: "notice", text: "The database is back: the game goes on.", eventKind: "resumed" }]);
  assert.deepEqual(book.notice({ code: "resumed", message: "" }), []);
});
