// The line beside the pile: which of a state's lines it shows, and when they go.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buzzFor, clearsNews, newsOf, nextNews, withJudgement } from "../../ratscrew/web/js/news.js";

const misslap = [{ kind: "misslap", seat: 1 }, { kind: "cards_burned", seat: 1 }];
const misslapLines = ["Bob slapped 7♥ 3♣: no pattern. Bob burns 1 card (2♣) under the pile", "Bob burns 2♣ for a misslap"];

test("a misslap's line goes beside the pile; the burn it caused is already in it", () => {
  assert.deepEqual(newsOf(misslap, misslapLines),
    [{ kind: "misslap", text: misslapLines[0], seat: 1 }]);
});

test("a card played says nothing beside the pile, and clears what was said", () => {
  const shown = newsOf(misslap, misslapLines);
  assert.equal(clearsNews([{ kind: "card_played", seat: 0 }]), true);
  assert.deepEqual(nextNews(shown, [{ kind: "card_played", seat: 0 }], ["Ann plays 4♦"]), []);
});

test("a face card played clears the old line and shows the challenge", () => {
  const shown = newsOf(misslap, misslapLines);
  const after = nextNews(shown, [{ kind: "card_played", seat: 0 }, { kind: "challenge_started", seat: 0 }],
    ["Ann plays K♠", "King! Bob has 3 chances to play a face card"]);
  assert.deepEqual(after.map((item) => item.kind), ["challenge"]);
});

test("the newest line comes first and at most three are kept", () => {
  let shown = nextNews([], misslap, misslapLines);
  shown = nextNews(shown, [{ kind: "slap_won", seat: 0 }, { kind: "pile_won", seat: 0 }],
    ["Ann slaps a double (7♥ 7♠)", "Ann takes the pile (6 cards)"]);
  assert.deepEqual(shown.map((item) => item.text), ["Ann takes the pile (6 cards)", misslapLines[0]]);
  shown = withJudgement(shown, "Ann was 56 ms quicker than Bob");
  shown = withJudgement(shown, "again");
  assert.deepEqual(shown.map((item) => item.text), ["again", "Ann was 56 ms quicker than Bob", "Ann takes the pile (6 cards)"]);
});

test("a phone buzzes for its own misslap and its own pile, not for others'", () => {
  const items = newsOf(misslap, misslapLines);
  assert.deepEqual(buzzFor(items, 1), [180]);
  assert.equal(buzzFor(items, 0), null);
  assert.equal(buzzFor(items, null), null);
  assert.deepEqual(buzzFor(newsOf([{ kind: "pile_won", seat: 0 }], ["Ann takes the pile (6 cards)"]), 0), [40, 60, 40]);
});
