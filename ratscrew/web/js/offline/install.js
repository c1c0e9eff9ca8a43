// @ts-check
/** Installing the app (issue 51): registers the service worker (/sw.js, whose scope is the whole
 * site), offers the offline table on the home page, and on /play asks the worker to keep what
 * the offline table needs (Pyodide and the Python sources) for the next visit without a network.
 * Loaded by the home and room pages after their own scripts. */
import { isOfflineTable } from "./transport.js";

/** Ask the service worker to cache the offline table's files; resolves with what is missing. */
async function keepOffline() {
  const registration = await navigator.serviceWorker.ready;
  const active = registration.active;
  if (!active) return;
  const channel = new MessageChannel();
  const answer = new Promise((resolve) => { channel.port1.onmessage = (event) => resolve(event.data); });
  active.postMessage({ type: "keep-offline" }, [channel.port2]);
  const kept = /** @type {{missing: string[], version: string}} */ (await answer);
  document.body.dataset.offlineKept = kept.missing.length ? "partly" : "yes";
  const note = document.getElementById("offline-kept");
  if (note) note.textContent = kept.missing.length ? "" : "This table now also plays without a network on this device.";
}

function offlineTable() {
  const code = document.getElementById("room-code");
  if (code) code.textContent = "Offline table: you and bots, on this device";
  // no watching, no lobby to go back to, no invite; nothing stored: no record, no replay (CSS)
  document.body.classList.add("offline-table");
  document.title = "ratscrew · offline table";
}

/** On the home page: say so when the server cannot be reached (the offline table still plays). */
async function checkServer() {
  const note = document.getElementById("server-away");
  if (!note) return;
  try {
    const answer = await fetch("/healthz", { cache: "no-store" });
    note.hidden = answer.ok;
  } catch {
    note.hidden = false;
  }
}

if (isOfflineTable()) offlineTable();
else checkServer();
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" })
    .then(() => (isOfflineTable() ? keepOffline() : undefined))
    .catch(() => { /* no service worker (a private window, an old browser): online play is the same */ });
}
