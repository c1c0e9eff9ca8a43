// The service worker (issue 51). `ratscrew serve` heads this file with three constants:
// VERSION, the cache's name (the package version and a digest of the cached files), SHELL, the
// pages, styles, scripts and icons cached on install, and OFFLINE, Pyodide's files and the
// Python sources that /play needs, cached when /play asks (13 MB that no other page needs).
/* global VERSION, SHELL, OFFLINE */

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(VERSION).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

// A new release: the old caches go, and this worker takes the open pages at once.
self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== VERSION).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

// /play asks for its files to be kept: answered with what is missing, once they are cached.
self.addEventListener("message", (event) => {
  if (event.data?.type !== "keep-offline") return;
  const port = event.ports[0];
  event.waitUntil(caches.open(VERSION).then(async (cache) => {
    const missing = [];
    for (const url of OFFLINE) {
      if (await cache.match(url)) continue;
      try {
        const response = await fetch(url);
        if (response.ok) await cache.put(url, response);
        else missing.push(url);
      } catch { missing.push(url); }
    }
    port?.postMessage({ type: "kept-offline", missing, version: VERSION });
  }));
});

const PAGES = new Set(["/", "/play"]);
const FRESH_FIRST = new Set(["/", "/play", "/manifest.webmanifest", "/api/presets", "/api/bots"]);

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== location.origin) return;
  const path = url.pathname;
  if (request.mode === "navigate") {
    if (!PAGES.has(path) && !path.startsWith("/r/")) return;
    // the page from the server while it answers; else the cached one (a room's page falls back
    // to the home page, which offers the offline table)
    event.respondWith(fetch(request).catch(async () =>
      (await caches.match(PAGES.has(path) ? path : "/", { ignoreSearch: true }))
      ?? (await caches.match("/")) ?? Response.error()));
    return;
  }
  if (FRESH_FIRST.has(path)) {
    event.respondWith(fetch(request).catch(async () => (await caches.match(path)) ?? Response.error()));
    return;
  }
  if (SHELL.includes(path) || OFFLINE.includes(path)) {
    // versioned with the cache: what is cached is what this release serves
    event.respondWith(caches.match(path).then((cached) => cached ?? fetch(request)));
  }
});
