// The page's LogBook replays the recorded transcripts of tests/transcripts/ (every message one
// client was sent, with {"type": "connected"} where a connection opened) as room.js feeds it,
// and draws the log in tests/transcripts/NAME.log.json: the log the terminal's client session
// draws from the same messages (tests/test_client_session.py holds it to the same file), each line
// with the kind of the event it tells (both clients colour a line by it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { LogBook } from "../../ratscrew/web/js/logbook.js";

const HERE = new URL("../transcripts/", import.meta.url);

/** @param {string} name */
function load(name) {
  return JSON.parse(readFileSync(new URL(name, HERE), "utf8"));
}

/** The log room.js draws from a transcript: a fresh history after each connection (before any
 * state) redraws it; one that comes after a state (asked for, a gap) adds to it. */
function replay(messages) {
  const book = new LogBook();
  /** @type {import("../../ratscrew/web/js/logbook.js").LogItem[]} */
  let log = [];
  let fresh = false;
  for (const message of messages) {
    if (message.type === "connected") { fresh = true; continue; }
    if (message.type === "state") { fresh = false; log.push(...book.state(message).items); }
    else if (message.type === "judgement") log.push(...book.judgement(message));
    else if (message.type === "notice") log.push(...book.notice(message));
    else if (message.type === "history") {
      if (fresh) { book.reset(); log = []; fresh = false; }
      log.push(...book.history(message));
    }
  }
  return log.map(({ kind, text, game, eventKind }) => ({ kind, text, game, event_kind: eventKind }));
}

for (const name of ["late_joiner", "contested_slap", "database_outage"]) {
  test(`the page's log book draws the ${name} transcript as the terminal does`, () => {
    assert.deepEqual(replay(load(`${name}.json`)), load(`${name}.log.json`));
  });
}
