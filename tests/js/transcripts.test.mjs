// The page's own session (ratscrew/web/js/session.js, the module room.js keeps its room in)
// replays the recorded transcripts of tests/transcripts/ (every message one client was sent, with
// {"type": "connected"} where a connection opened) and draws the log in
// tests/transcripts/NAME.log.json: the log the terminal's client session draws from the same
// messages (tests/test_client_session.py holds it to the same file), each line with the kind of
// the event it tells (both clients colour a line by it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { RoomSession } from "../../ratscrew/web/js/session.js";

const HERE = new URL("../transcripts/", import.meta.url);

/** @param {string} name */
function load(name) {
  return JSON.parse(readFileSync(new URL(name, HERE), "utf8"));
}

/** Feed a transcript to a fresh session as room.js does; the updates, one per message. */
function replay(messages, session = new RoomSession()) {
  const updates = [];
  for (const message of messages) {
    if (message.type === "connected") session.connected();
    else updates.push(session.receive(message, message.at ?? 0));
  }
  return updates;
}

/** The log the page shows after these updates: a reset clears what was drawn. */
function drawn(updates) {
  let log = [];
  for (const update of updates) {
    if (update.resetLog) log = [];
    log.push(...update.log);
  }
  return log.map(({ kind, text, game, eventKind }) => ({ kind, text, game, event_kind: eventKind }));
}

for (const name of ["late_joiner", "contested_slap", "database_outage"]) {
  test(`the page's session draws the ${name} transcript as the terminal does`, () => {
    assert.deepEqual(drawn(replay(load(`${name}.json`))), load(`${name}.log.json`));
  });
}

test("a reconnection's history redraws the log once; an asked-for one only adds", () => {
  const messages = load("late_joiner.json");
  const updates = replay(messages);
  const resets = updates.filter((update) => update.resetLog).length;
  const connections = messages.filter((message) => message.type === "connected").length;
  assert.equal(resets, connections);
});

test("skipped versions ask for the history once, from the last version drawn", () => {
  const messages = load("late_joiner.json");
  const lost = new Set([13, 14, 15]);
  const cut = messages.findIndex((message, index) => index > 0 && message.type === "connected");
  const kept = messages.slice(0, cut).filter((message) => !(message.type === "state" && lost.has(message.version)));
  const asked = replay(kept).flatMap((update) => update.send);
  assert.deepEqual(asked, [{ type: "history", since: 12 }]);
});

test("the latecomer waits, is seated when the game ends, and keeps the room's token", () => {
  const messages = load("late_joiner.json");
  const session = new RoomSession();
  const firstState = messages.findIndex((message) => message.type === "state");
  const updates = replay(messages.slice(0, firstState), session);
  assert.equal(session.status, "waiting");
  assert.equal(session.seat, null);
  assert.ok(session.joined);
  assert.equal(updates.find((update) => update.token !== null)?.token, messages[1].token);
  const gameOver = messages.findIndex((message) => message.type === "game_over");
  replay(messages.slice(firstState, gameOver + 1), session);
  assert.equal(session.over?.type, "game_over");
  const nextRoom = messages.findIndex((message, index) => index > gameOver && message.type === "room");
  replay(messages.slice(gameOver + 1, nextRoom + 1), session);
  assert.equal(session.status, "player");
  assert.equal(session.seat, 1);
});

test("a server of another protocol is left, and nothing of its welcome is kept", () => {
  const session = new RoomSession();
  const update = session.receive({ type: "welcome", protocol: 2, code: "K7QPX2", seat: 0, token: "t", host: true,
    name: "Ann", status: "player", player_id: null }, 0);
  assert.ok(update.outdated);
  assert.equal(update.token, null);
  assert.equal(session.seat, null);
  assert.ok(!session.joined);
});

test("kicked or refused a token, the page forgets the token; a refused name leaves the room", () => {
  const session = new RoomSession();
  session.receive({ type: "welcome", protocol: 1, code: "K7QPX2", seat: 1, token: "t", host: false,
    name: "Tess", status: "player", player_id: null }, 0);
  const kicked = session.receive({ type: "kicked", message: "the host removed you" }, 1);
  assert.ok(kicked.forgetToken);
  assert.equal(session.seat, null);
  assert.ok(session.receive({ type: "error", code: "bad_token", message: "unknown token" }, 2).forgetToken);
  session.receive({ type: "error", code: "name_taken", message: "another player already goes by 'Tess'" }, 3);
  assert.ok(!session.joined);
});
