// The table's status line, sentence by sentence, as pure functions of the observation, so that
// Node's test runner checks each case the page can meet (tests/js/status.test.mjs).
import { formatMs } from "./format.js";

/** @typedef {import("./protocol").CollectionView} CollectionView */

/**
 * What the status line says while a lost challenge's pile waits for its winner. A pile that is
 * collected by a slap only (no automatic collection: `collect_at` is null) has no countdown.
 * @param {CollectionView} collection
 * @param {(seat: number) => string} nameOf a seat's name
 * @param {(deadline: number) => number} left ms left until a room-time deadline
 * @returns {string}
 */
export function collectionStatus(collection, nameOf, left) {
  const winner = nameOf(collection.winner);
  if (collection.exclusive_until !== null) {
    return `${winner} may slap to claim the pile: ${formatMs(left(collection.exclusive_until))}`;
  }
  if (collection.collect_at === null) {
    return collection.open_to_all ? "Anyone may slap to claim the pile" : `${winner} may slap to claim the pile`;
  }
  const countdown = formatMs(left(collection.collect_at));
  return collection.open_to_all
    ? `Anyone may slap to claim the pile: ${countdown}`
    : `${winner} takes the pile in ${countdown}`;
}
