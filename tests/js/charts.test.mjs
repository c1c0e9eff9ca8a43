// The player page's plots: scales, ticks, bins shared by "you" and the bots, and path data.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bandPath, commonBins, histogram, linear, linePath, median, niceAxis, niceStep, quantile, ratingPoints, stepPath,
} from "../../ratscrew/web/js/charts.js";

test("linear maps the domain onto the range, reversed ranges too", () => {
  const y = linear([0, 10], [100, 0]);
  assert.equal(y(0), 100);
  assert.equal(y(10), 0);
  assert.equal(y(2.5), 75);
  assert.equal(linear([3, 3], [0, 10])(3), 5);  // one value: the middle
});

test("nice steps are 1, 2, 2.5 or 5 times a power of ten", () => {
  assert.equal(niceStep(100, 5), 20);
  assert.equal(niceStep(1000, 4), 250);
  assert.equal(niceStep(7, 5), 2);
  assert.equal(niceStep(0.9, 3), 0.5);
  assert.equal(niceStep(0, 5), 1);
});

test("a nice axis covers the data with round ends and ticks", () => {
  assert.deepEqual(niceAxis(3.1, 17.4, 4), { min: 0, max: 20, ticks: [0, 5, 10, 15, 20] });
  const negative = niceAxis(-2.3, 4.1, 5);
  assert.ok(negative.min <= -2.3 && negative.max >= 4.1);
  assert.ok(negative.ticks.includes(0));
  const flat = niceAxis(5, 5);  // one rating: still an axis around it
  assert.ok(flat.min < 5 && flat.max > 5);
  const tenths = niceAxis(0, 0.7, 7);
  assert.deepEqual(tenths.ticks, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
});

test("common bins cover every sample with one width", () => {
  const you = [312, 287, 401, 350];
  const bot = [180, 220, 250, 900];
  const bins = commonBins([you, bot], { bins: 10 });
  assert.equal(bins.start % bins.width, 0);
  assert.ok(bins.start <= 180);
  assert.ok(bins.start + bins.width * bins.count > 900);
  assert.ok(bins.count >= 5 && bins.count <= 20, `${bins.count} bins`);
  for (const sample of [you, bot]) assert.equal(histogram(sample, bins).total, sample.length);
});

test("a histogram counts each value once, in the right bin, and gives shares", () => {
  const bins = { start: 200, width: 50, count: 4 };
  const h = histogram([200, 249, 250, 399, 5000, NaN], bins, 2000);
  assert.deepEqual(h.counts, [2, 1, 0, 2]);  // 5000 ms is capped into the last bin; NaN dropped
  assert.equal(h.total, 5);
  assert.deepEqual(h.shares, [0.4, 0.2, 0, 0.4]);
  assert.deepEqual(histogram([], bins).shares, [0, 0, 0, 0]);
});

test("no reaction at all still gives one bin, not a crash", () => {
  const bins = commonBins([[], []]);
  assert.equal(bins.count, 1);
  assert.equal(histogram([], bins).total, 0);
});

test("quantiles interpolate between the nearest two values", () => {
  assert.equal(quantile([10, 20, 30, 40, 50], 0.98), 49.2);
  assert.equal(quantile([5], 0.9), 5);
  assert.equal(quantile([1, 2], 2), 2);
  assert.equal(quantile([], 0.5), null);
});

test("median", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(median([]), null);
});

test("a step outline goes along each bar's top and back to the base", () => {
  const x = (bin) => bin * 10;
  const y = (h) => 100 - h * 100;
  assert.equal(stepPath([0.5, 1], x, y), "M0,100L0,50L10,50L10,0L20,0L20,100");
  assert.equal(stepPath([], x, y), "");
});

test("line and band paths", () => {
  assert.equal(linePath([{ x: 0, y: 1 }, { x: 2.25, y: 3 }]), "M0,1L2.3,3");
  assert.equal(bandPath([{ x: 0, low: 5, high: 1 }, { x: 10, low: 6, high: 2 }]), "M0,1L10,2L10,6L0,5Z");
  assert.equal(bandPath([]), "");
});

test("rating points start from the rating before the first game", () => {
  const points = ratingPoints([
    { rating_before: 0, rating_after: 3.1, sigma: 8.3 },
    { rating_before: 3.1, rating_after: 5.0, sigma: 7.5 },
  ]);
  assert.deepEqual(points.map((p) => [p.game, p.rating]), [[0, 0], [1, 3.1], [2, 5.0]]);
  assert.deepEqual([points[2].low, points[2].high], [5.0 - 7.5, 5.0 + 7.5]);
  assert.deepEqual(ratingPoints([]), []);
});
