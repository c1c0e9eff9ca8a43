// @ts-check
/** Small DOM helpers: find elements by id, build elements with text (never HTML). */

/**
 * The element with this id (it must exist).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} [kind]
 * @returns {T}
 */
export function byId(id, kind) {
  const found = document.getElementById(id);
  if (!found) throw new Error(`no element #${id}`);
  if (kind && !(found instanceof kind)) throw new Error(`#${id} is not a ${kind.name}`);
  return /** @type {T} */ (found);
}

/**
 * A new element with classes and text content (user data is always text, never markup).
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElement}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * GET or POST JSON; an error answer becomes an Error with the server's message.
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function fetchJson(url, body) {
  const response = await fetch(url, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  if (!response.ok) throw new Error(data.error ?? `the server answered ${response.status}`);
  return data;
}
