// Unit tests of the lab page's pure helpers: the share link round-trips, damaged links open on
// a valid state, the rules become TOML the server reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import { changedSettings, decodeShare, encodeShare, figureAt, figureLabel, rulesToml, settingLabel } from "../../ratscrew/web/js/labrules.js";

const SETTINGS = [
  { name: "slaps", kind: "patterns", text: "" },
  { name: "misslap_cards", kind: "int", text: "" },
  { name: "misslap_penalty", kind: "choice", choices: ["none", "burn", "lockout"], text: "" },
  { name: "jokers", kind: "bool", text: "" },
];
const PRESETS = {
  classic: { slaps: ["double", "sandwich"], misslap_cards: 1, misslap_penalty: "burn", jokers: false },
  pagat: { slaps: ["double"], misslap_cards: 2, misslap_penalty: "burn", jokers: false },
};
const LEVELS = ["beginner", "casual", "expert"];

test("a share link carries the preset, the table and only the changed settings", () => {
  const state = { preset: "classic", players: 3, bots: "expert", games: 5000,
    values: { ...PRESETS.classic, slaps: ["double", "sandwich", "add_to_ten"], misslap_cards: 2 } };
  const fragment = encodeShare(SETTINGS, state, PRESETS.classic);
  assert.equal(fragment, "preset=classic&players=3&bots=expert&games=5000&slaps=double%2Csandwich%2Cadd_to_ten&misslap_cards=2");
  assert.deepEqual(decodeShare(`#${fragment}`, SETTINGS, PRESETS, LEVELS), state);
});

test("an empty pattern list and a false switch round-trip", () => {
  const state = { preset: "pagat", players: 2, bots: "casual", games: 2000,
    values: { ...PRESETS.pagat, slaps: [], jokers: true } };
  const back = decodeShare(encodeShare(SETTINGS, state, PRESETS.pagat), SETTINGS, PRESETS, LEVELS);
  assert.deepEqual(back, state);
  assert.deepEqual(changedSettings(SETTINGS, back.values, PRESETS.pagat), ["slaps", "jokers"]);
});

test("a damaged link opens on a valid state", () => {
  const state = decodeShare("#preset=nosuch&players=99&bots=robot&misslap_cards=-3&misslap_penalty=fine&jokers=maybe&x=1",
    SETTINGS, PRESETS, LEVELS);
  assert.deepEqual(state, { preset: "classic", players: 4, bots: "casual", games: 2000, values: PRESETS.classic });
});

test("the rules become TOML with the lab's name", () => {
  assert.equal(rulesToml({ name: "classic", summary: "x", ...PRESETS.classic }, "classic + house rules", 'a "quoted" rule'),
    'name = "classic + house rules"\nsummary = "a \\"quoted\\" rule"\nslaps = ["double", "sandwich"]\nmisslap_cards = 1\nmisslap_penalty = "burn"\njokers = false\n');
});

// The figures as GET /api/lab/settings lists them (ratscrew/sim/figures.py declares them).
const FIGURES = [{ name: "length.p90_minutes", label: "Minutes per game (90th percentile)", digits: 1, unit: "minutes" }];

test("settings and figures read as words", () => {
  assert.equal(settingLabel("tie_window_ms"), "Tie window (ms)");
  assert.equal(figureLabel("win_share[2]", FIGURES), "Seat 2's share of wins");
  assert.equal(figureLabel("win_share[no winner]", FIGURES), "Games nobody wins");
  assert.equal(figureLabel("length.p90_minutes", FIGURES), "Minutes per game (90th percentile)");
});

test("a figure is found in a report by its dotted name", () => {
  const p90 = { value: 9, low: 8, high: 10 };
  assert.deepEqual(figureAt({ length: { p90_minutes: p90 } }, "length.p90_minutes"), p90);
  assert.equal(figureLabel("length.no_such", FIGURES), "length.no_such");
});
