// @ts-check
/** Optional vibration on phones that can (`navigator.vibrate`): a buzz for one's own misslap or
 * a won pile. A setting kept in localStorage beside the sound's; on by default where supported. */

const STORE = "ratscrew.vibrate";

/** @returns {boolean} whether this browser can vibrate at all */
export function canVibrate() {
  return typeof navigator !== "undefined" && typeof navigator.vibrate === "function";
}

/** @returns {boolean} */
export function vibrationOn() {
  return canVibrate() && localStorage.getItem(STORE) !== "off";
}

/** @param {boolean} on */
export function setVibration(on) {
  localStorage.setItem(STORE, on ? "on" : "off");
}

/**
 * Buzz with this pattern (milliseconds on, off, on…), if the setting allows.
 * @param {number[] | null} pattern
 */
export function buzz(pattern) {
  if (pattern === null || !vibrationOn()) return;
  try { navigator.vibrate(pattern); } catch { /* a browser may refuse before a user gesture */ }
}
