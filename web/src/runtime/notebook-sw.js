// The notebook app's service worker (notebook/service-worker.js, scoped to notebook/): JupyterLite's own, with
// the course's offline copy in front of it.
//
// - JupyterLite's service worker (kept unchanged as notebook/jupyterlite-sw.js and imported last) answers the
//   kernel's /api/drive and /api/stdin requests (the learner's files, input()) and its heartbeat.
// - Every other request from the notebook's pages and its kernel is answered here: from the course's offline
//   cache (web/src/runtime/sw.js saves the notebook's files there once the learner has opened it) when that cache holds
//   every file of the notebook, else from the network. So the notebook opens with the network off, and a new
//   version of the course brings its notebook files with it, in its own cache, as it brings the lessons'.
// - While the kernel's Python downloads (Pyodide, the standard library, the wheels), the notebook's pages are
//   told how far it is ({type: "notebook-download"}), for the status web/src/runtime/notebook-page.js shows.

import { COMPLETE, cachePrefix, key, NOTEBOOK_COMPLETE } from "./offline-cache.js";

/** This worker's global scope: a service worker's (the webworker library types `self` as any worker's). */
const sw = /** @type {ServiceWorkerGlobalScope & typeof globalThis} */ (/** @type {unknown} */ (self));
const root = new URL("../", self.location.href); // the site's root; this file is in notebook/
const APP = new URL("./", self.location.href).href;
const PREFIX = cachePrefix(root); // the course's caches (web/src/runtime/sw.js)
const LESSONS_SAVED = new URL(COMPLETE, root).href; // every lesson file saved
const NOTEBOOK_SAVED = new URL(NOTEBOOK_COMPLETE, root).href; // every notebook file saved
// Python's downloads, named as the kernel asks for them: Pyodide's own files, the standard library, the wheels.
const PYTHON_FILES = [/\/assets\/gen\/pyodide\//, /\/assets\/gen\/py\/stdlib\.zip$/, /\/notebook\/wheels\//];

const QUIET_MS = 5000; // downloads this far apart belong to different starts: count afresh
let downloads = { bytes: 0, running: 0, told: 0, ended: 0 };

sw.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || request.headers.has("range")) return;
  if (jupyterLites(url)) return; // JupyterLite's own listener, below, answers it
  event.stopImmediatePropagation(); // answered here: JupyterLite's listener would fetch it again
  event.respondWith(answer(event, request));
});

/**
 * The requests JupyterLite's service worker answers itself (its drive, input() and heartbeat).
 *
 * @param {URL} url
 */
function jupyterLites(url) {
  const path = url.pathname;
  return path === "/api/service-worker-heartbeat" || path.includes("/api/drive") || path.includes("/api/stdin/");
}

/**
 * A saved copy from the oldest of the course's caches whose part holds it entirely (the notebook's files only
 * from a cache that has all of them, so that one visit never mixes two versions), or null.
 *
 * @param {string} url
 * @returns {Promise<Response | null>}
 */
async function saved(url) {
  const marker = url.startsWith(APP) ? NOTEBOOK_SAVED : LESSONS_SAVED;
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX)) continue;
    const cache = await caches.open(name);
    if (!(await cache.match(marker))) continue;
    const hit = await cache.match(url);
    if (hit) return hit;
  }
  return null;
}

/**
 * A saved copy, else the network's answer (whose bytes are counted when it is one of Python's downloads).
 *
 * @param {FetchEvent} event
 * @param {Request} request
 * @returns {Promise<Response>}
 */
async function answer(event, request) {
  const hit = await saved(key(request.url));
  if (hit) return hit;
  const response = await fetch(request);
  if (PYTHON_FILES.some((pattern) => pattern.test(new URL(request.url).pathname)) && response.body) {
    event.waitUntil(count(response.clone()));
  }
  return response;
}

/**
 * Count a download's bytes as they arrive (on a copy: the page's response stays as the server sent it).
 *
 * @param {Response} response  with a body
 */
async function count(response) {
  if (!downloads.running && downloads.ended && Date.now() - downloads.ended > QUIET_MS)
    downloads = { bytes: 0, running: 0, told: 0, ended: 0 };
  downloads.running += 1;
  tell();
  try {
    const reader = /** @type {ReadableStream<Uint8Array>} */ (response.body).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      downloads.bytes += value.byteLength;
      if (Date.now() - downloads.told > 200) tell();
    }
  } finally {
    downloads.running -= 1;
    downloads.ended = Date.now();
    tell();
  }
}

/** Tell the notebook's pages how far Python's downloads are. */
async function tell() {
  downloads.told = Date.now();
  const message = { type: "notebook-download", bytes: downloads.bytes, running: downloads.running };
  for (const client of await sw.clients.matchAll({ type: "window" })) client.postMessage(message);
}

importScripts("jupyterlite-sw.js");
