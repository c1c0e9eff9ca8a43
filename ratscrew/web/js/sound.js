// @ts-check
/** Optional sounds made with Web Audio (no sound files): a tick for a card, a clap for a slap. */

/** @type {AudioContext | null} */
let context = null;
let enabled = localStorage.getItem("ratscrew.sound") === "on";

/** @returns {boolean} */
export function soundOn() { return enabled; }

/** @param {boolean} on */
export function setSound(on) {
  enabled = on;
  localStorage.setItem("ratscrew.sound", on ? "on" : "off");
  if (on && context === null) context = new AudioContext();
}

/**
 * A short tone.
 * @param {"card" | "slap" | "miss" | "win"} kind
 */
export function beep(kind) {
  if (!enabled || context === null) return;
  const [frequency, duration, shape] = /** @type {[number, number, OscillatorType]} */ ({
    card: [660, 0.05, "triangle"], slap: [220, 0.12, "square"], miss: [140, 0.2, "sawtooth"],
    win: [880, 0.3, "sine"],
  }[kind]);
  const oscillator = context.createOscillator();
  const gain = context.createGain();
  oscillator.type = shape;
  oscillator.frequency.value = frequency;
  gain.gain.setValueAtTime(0.12, context.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, context.currentTime + duration);
  oscillator.connect(gain).connect(context.destination);
  oscillator.start();
  oscillator.stop(context.currentTime + duration);
}
