// The page's lobby_change (ratscrew/web/js/lobby.js): the messages a room's host was sent while
// people joined, watched, stood up and took a new seat (recorded by tests/test_lobby_change.py,
// which holds the file to what the room sends and the terminal's session to the same end)
// leave the page with the room's own waiting list and spectators.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { withLobbyChange } from "../../ratscrew/web/js/lobby.js";

const recorded = JSON.parse(readFileSync(new URL("../transcripts/crowded_lobby.json", import.meta.url), "utf8"));

test("the page ends a crowded lobby's changes with the room's own list", () => {
  let room = null;
  for (const message of recorded.messages) {
    if (message.type === "room") room = message;
    else if (message.type === "lobby_change") room = withLobbyChange(room, message);
  }
  assert.deepEqual({ waiting: room.waiting, spectators: room.spectators }, recorded.final);
});

test("a change removes the positions that left, then appends who joined", () => {
  const room = { type: "room", waiting: [{ name: "Cat" }, { name: "Dan" }, { name: "Eve" }], spectators: 1 };
  const after = withLobbyChange(room, { type: "lobby_change", left: [0, 2], joined: [{ name: "Fay", you: true }], spectators: 3 });
  assert.deepEqual(after.waiting, [{ name: "Dan" }, { name: "Fay", you: true }]);
  assert.equal(after.spectators, 3);
  assert.deepEqual(room.waiting.length, 3);  // the message the page had is left as it was
});
