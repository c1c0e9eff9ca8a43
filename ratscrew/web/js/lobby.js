// The room's people as a `lobby_change` message leaves them (docs/protocol.md): a pure function,
// so that Node's test runner replays the server's messages through it
// (tests/js/lobby.test.mjs), as `ratscrew join` does with `with_lobby_change`.

/** @typedef {import("./protocol").RoomMessage} RoomMessage */
/** @typedef {import("./protocol").LobbyChangeMessage} LobbyChangeMessage */

/**
 * The room message as the change leaves it: the waiting list without the positions `left` (in
 * the list as it was) and with `joined` after the rest, and the new `spectators` count.
 * @param {RoomMessage} room
 * @param {LobbyChangeMessage} change
 * @returns {RoomMessage}
 */
export function withLobbyChange(room, change) {
  const left = new Set(change.left);
  const waiting = room.waiting.filter((_, n) => !left.has(n)).concat(change.joined);
  return { ...room, waiting, spectators: change.spectators };
}
