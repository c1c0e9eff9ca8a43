// @ts-check
/** Who this browser is: its player key (a secret made here on the first visit, kept in
 * localStorage, sent in every `join`) and the public player id the server answered with. The
 * server keeps only the key's hash: a browser that loses its key loses its record. */

export const KEY_ITEM = "ratscrew.player_key";
export const ID_ITEM = "ratscrew.player_id";
export const KEY_LENGTH = 32;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** @typedef {{getItem(k: string): string | null, setItem(k: string, v: string): void,
 *             removeItem(k: string): void}} Storage */

/** A server takes a key for a new player only if it has at least this many different
 * characters (ratscrew/protocol/keys.py, MIN_DISTINCT_KEY_CHARACTERS); 32 random ones fall short
 * with probability 1.4e-13, and `newKey` draws again then. */
export const MIN_DISTINCT = 12;

/**
 * A new key: 32 URL-safe characters from `crypto.getRandomValues` (6 bits each, 192 bits),
 * drawn again (a few times at most) in the rare case it has fewer than `MIN_DISTINCT`
 * different characters, so that it always looks random to the server.
 * @param {(bytes: Uint8Array) => Uint8Array} [random] the random source (tests pass their own)
 * @returns {string}
 */
export function newKey(random = (bytes) => crypto.getRandomValues(bytes)) {
  let key = "";
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const bytes = random(new Uint8Array(KEY_LENGTH));
    // 64 symbols: the low 6 bits of a uniform byte are uniform, so no symbol is likelier
    key = Array.from(bytes, (byte) => ALPHABET[byte & 63]).join("");
    if (new Set(key).size >= MIN_DISTINCT) break;
  }
  return key;
}

/**
 * Whether a text is a key the protocol accepts (20–64 URL-safe characters).
 * @param {unknown} key
 * @returns {key is string}
 */
export function validKey(key) {
  return typeof key === "string" && /^[A-Za-z0-9_-]{20,64}$/.test(key);
}

/**
 * This browser's key, made and saved on the first call. A stored key that is not valid is
 * returned as it is: the server refuses it (`bad_key`) and the page offers a new one.
 * @param {Storage} [store]
 * @returns {string}
 */
export function playerKey(store = localStorage) {
  const saved = store.getItem(KEY_ITEM);
  if (saved !== null && saved !== "") return saved;
  const made = newKey();
  store.setItem(KEY_ITEM, made);
  return made;
}

/**
 * Replace this browser's key (an imported one, or a new one after `bad_key`); the player id
 * belongs to the old key and is forgotten until the server names the new one.
 * @param {string} key
 * @param {string | null} [playerId] the new key's public id, when known
 * @param {Storage} [store]
 */
export function replaceKey(key, playerId = null, store = localStorage) {
  if (!validKey(key)) throw new Error("a player key is 20 to 64 letters, digits, - or _");
  store.setItem(KEY_ITEM, key);
  if (playerId) store.setItem(ID_ITEM, playerId);
  else store.removeItem(ID_ITEM);
}

/** What an import error code means to the person who pasted it. */
export const IMPORT_ERRORS = /** @type {Record<string, string>} */ ({
  bad_code: "That is not a player code: copy it again, whole, from the page where it is shown.",
  other_server: "That code belongs to another ratscrew server: use it on that server's pages.",
  unknown_player: "This server knows no player with that code.",
});

/**
 * Bring a player from another device: `POST /api/players/import` with the import code, and on
 * success make this browser that player (its key replaces the one kept here, its name is kept).
 * @param {string} code the import code as pasted
 * @returns {Promise<{player_id: string, name: string} | {error: string}>} the player, or what went wrong in words
 */
export async function importPlayer(code) {
  if (!code.trim()) return { error: "Paste the code first." };
  /** @type {import("./protocol").PlayerImported | import("./protocol").CodedError} */
  let answer;
  try {
    const response = await fetch("/api/players/import", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: code.trim() }),
    });
    answer = await response.json().catch(() => ({ error: "server", message: `the server answered ${response.status}` }));
  } catch (failure) {
    return { error: `The server did not answer: ${failure instanceof Error ? failure.message : failure}` };
  }
  if ("error" in answer) return { error: IMPORT_ERRORS[answer.error] ?? answer.message ?? answer.error };
  replaceKey(answer.player_key, answer.player_id);
  if (answer.name) localStorage.setItem("ratscrew.name", answer.name);
  return { player_id: answer.player_id, name: answer.name };
}

/**
 * Remember the public id `welcome` gave this browser's key (null, a guest: nothing to keep).
 * @param {string | null | undefined} playerId
 * @param {Storage} [store]
 */
export function rememberPlayerId(playerId, store = localStorage) {
  if (playerId) store.setItem(ID_ITEM, playerId);
}

/**
 * This browser's public player id, once a server has told it.
 * @param {Storage} [store]
 * @returns {string | null}
 */
export function playerId(store = localStorage) {
  return store.getItem(ID_ITEM) || null;
}

/**
 * The address of a player's page.
 * @param {string} id
 * @returns {string}
 */
export function playerUrl(id) {
  return `/players/${encodeURIComponent(id)}`;
}

/**
 * Show the page's "Your page" links (elements marked `data-your-page`: anchors get the address,
 * the others are shown) once this browser knows its player id; hide them before.
 * @param {ParentNode} [root]
 */
export function showYourPage(root = document) {
  const id = playerId();
  for (const node of root.querySelectorAll("[data-your-page]")) {
    if (node instanceof HTMLAnchorElement) {
      if (id !== null) node.href = playerUrl(id);
    } else if (node instanceof HTMLElement) {
      node.hidden = id === null;
    }
  }
}
