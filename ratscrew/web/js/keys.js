// @ts-check
/** The player's keys: the terminal game's player-1 keys by default (a plays, s slaps),
 * remappable and kept in localStorage. */
import { keyName } from "./format.js";

/** @typedef {{play: string, slap: string}} KeyMap */

/** @type {KeyMap} */
export const DEFAULT_KEYS = { play: "a", slap: "s" };
const STORE = "ratscrew.keys";

/** @returns {KeyMap} */
export function loadKeys() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) ?? "null");
    if (saved && typeof saved.play === "string" && typeof saved.slap === "string" && saved.play !== saved.slap) {
      return { play: saved.play, slap: saved.slap };
    }
  } catch { /* a damaged setting: use the defaults */ }
  return { ...DEFAULT_KEYS };
}

/** @param {KeyMap} keys */
export function saveKeys(keys) {
  localStorage.setItem(STORE, JSON.stringify(keys));
}

/**
 * What a key press does with these keys, if anything.
 * @param {KeyMap} keys
 * @param {string} key a KeyboardEvent.key
 * @returns {"play" | "slap" | null}
 */
export function actionFor(keys, key) {
  const name = keyName(key);
  if (name === keys.play) return "play";
  if (name === keys.slap) return "slap";
  return null;
}
