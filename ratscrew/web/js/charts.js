// @ts-check
/** Pure helpers for the player page's plots (no DOM): scales, axis ticks, histogram bins and
 * SVG path data. The page draws the SVG from what these return; node tests check the numbers. */

/**
 * A linear map from a domain onto a range; a domain of one value maps to the range's middle.
 * @param {[number, number]} domain
 * @param {[number, number]} range
 * @returns {(value: number) => number}
 */
export function linear(domain, range) {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  if (d1 === d0) return () => (r0 + r1) / 2;
  return (value) => r0 + ((value - d0) / (d1 - d0)) * (r1 - r0);
}

/**
 * A step of 1, 2, 2.5 or 5 times a power of ten, so that about `count` steps cover `span`.
 * @param {number} span
 * @param {number} count
 * @returns {number}
 */
export function niceStep(span, count) {
  if (!(span > 0) || !(count > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10;
  return step * power;
}

/**
 * Round axis bounds around [min, max] and the ticks between them, about `count` of them.
 * @param {number} min
 * @param {number} max
 * @param {number} [count]
 * @returns {{min: number, max: number, ticks: number[]}}
 */
export function niceAxis(min, max, count = 5) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return { min: 0, max: 1, ticks: [0, 1] };
  if (min === max) { min -= 1; max += 1; }
  const step = niceStep(max - min, count);
  const low = Math.floor(min / step) * step;
  const high = Math.ceil(max / step) * step;
  const ticks = [];
  // counted, not summed, so 0.1 steps do not drift
  for (let i = 0; low + i * step <= high + step / 1e6; i += 1) ticks.push(round(low + i * step));
  return { min: round(low), max: round(high), ticks };
}

/** @param {number} x */
function round(x) {
  return Math.round(x * 1e9) / 1e9;
}

/**
 * Common bins for several reaction-time samples: one bin width for all, so their shapes
 * compare. Bins start at a multiple of the width at or below the smallest value; the last bin
 * holds the largest value. Values past `cap` ms (a player who looked away) go in the last bin.
 * @param {number[][]} samples
 * @param {{bins?: number, cap?: number}} [options]
 * @returns {{start: number, width: number, count: number}}
 */
export function commonBins(samples, { bins = 12, cap = 2000 } = {}) {
  const all = samples.flat().filter(Number.isFinite).map((v) => Math.min(v, cap));
  if (all.length === 0) return { start: 0, width: 50, count: 1 };
  const low = Math.min(...all);
  const high = Math.max(...all);
  const width = Math.max(5, niceStep(Math.max(high - low, 1), bins));
  const start = Math.floor(low / width) * width;
  const count = Math.max(1, Math.floor((high - start) / width) + 1);
  return { start, width, count };
}

/**
 * How many values fall in each bin, as counts and as shares of the sample (so a sample of 20
 * and one of 2,000 draw on one axis).
 * @param {number[]} values
 * @param {{start: number, width: number, count: number}} bins
 * @param {number} [cap]
 * @returns {{counts: number[], shares: number[], total: number}}
 */
export function histogram(values, bins, cap = 2000) {
  const counts = new Array(bins.count).fill(0);
  let total = 0;
  for (const value of values) {
    if (!Number.isFinite(value)) continue;
    const index = Math.floor((Math.min(value, cap) - bins.start) / bins.width);
    counts[Math.max(0, Math.min(bins.count - 1, index))] += 1;
    total += 1;
  }
  return { counts, shares: counts.map((c) => (total ? c / total : 0)), total };
}

/**
 * The q-quantile of a sample (0 ≤ q ≤ 1; linear between the nearest two), null for none.
 * @param {number[]} values
 * @param {number} q
 * @returns {number | null}
 */
export function quantile(values, q) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const at = Math.max(0, Math.min(1, q)) * (sorted.length - 1);
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - below);
}

/**
 * The median of a sample (null for none).
 * @param {number[]} values
 * @returns {number | null}
 */
export function median(values) {
  return quantile(values, 0.5);
}

/**
 * SVG path data of a histogram's outline (a step line along the tops of the bars, down to the
 * base at both ends), so several overlaid samples stay readable.
 * @param {number[]} heights one per bin
 * @param {(bin: number) => number} x the left edge of a bin (x(n) is the right edge of the last)
 * @param {(height: number) => number} y
 * @returns {string}
 */
export function stepPath(heights, x, y) {
  if (heights.length === 0) return "";
  const parts = [`M${fmt(x(0))},${fmt(y(0))}`];
  heights.forEach((height, bin) => {
    parts.push(`L${fmt(x(bin))},${fmt(y(height))}`, `L${fmt(x(bin + 1))},${fmt(y(height))}`);
  });
  parts.push(`L${fmt(x(heights.length))},${fmt(y(0))}`);
  return parts.join("");
}

/**
 * SVG path data of a line through points.
 * @param {{x: number, y: number}[]} points already in pixels
 * @returns {string}
 */
export function linePath(points) {
  return points.map((p, i) => `${i ? "L" : "M"}${fmt(p.x)},${fmt(p.y)}`).join("");
}

/**
 * SVG path data of a band between a lower and an upper line (closed).
 * @param {{x: number, low: number, high: number}[]} points already in pixels
 * @returns {string}
 */
export function bandPath(points) {
  if (points.length === 0) return "";
  const top = points.map((p, i) => `${i ? "L" : "M"}${fmt(p.x)},${fmt(p.high)}`);
  const bottom = [...points].reverse().map((p) => `L${fmt(p.x)},${fmt(p.low)}`);
  return `${top.join("")}${bottom.join("")}Z`;
}

/**
 * A ruleset's rating history as plot points: game n (1 = the first rated game) against the
 * rating after it, with a ±σ band; the start (the rating before the first game) is point 0.
 * @param {{rating_before: number, rating_after: number, sigma: number}[]} history oldest first
 * @returns {{game: number, rating: number, low: number, high: number}[]}
 */
export function ratingPoints(history) {
  if (history.length === 0) return [];
  const points = [{ game: 0, rating: history[0].rating_before, low: history[0].rating_before,
    high: history[0].rating_before }];
  history.forEach((h, i) => {
    points.push({ game: i + 1, rating: h.rating_after, low: h.rating_after - h.sigma, high: h.rating_after + h.sigma });
  });
  return points;
}

/** @param {number} x */
function fmt(x) {
  return String(Math.round(x * 10) / 10);
}
