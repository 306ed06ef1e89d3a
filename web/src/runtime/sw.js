// The course's service worker, served from the site's root (sw.js) so that it covers every page.
//
// - Offline: on the page's request (once Python is ready and idle) it saves every file of this
//   version of the course, listed in offline.json, into one cache, and then answers from it.
// - Cross-origin isolation: it adds COOP/COEP to every answer that lacks them, so the page can
//   share memory with the Python worker and Stop interrupts in place even on hosts that send no
//   headers (the technique of coi-serviceworker; the first load is not isolated, a reload is).
// - Updates: a new version installs beside the old one, copies the files that did not change and
//   downloads the rest, then waits: the open pages keep the old files until the learner reloads.
// - The notebook app (notebook/): its files are a part of the listing of their own, saved into the same cache
//   once a notebook page asks ({type: "fill", notebook: true}), and by every later version from then on. Its
//   pages are answered by the app's own service worker (web/src/runtime/notebook-sw.js, deeper in scope), which reads
//   this cache; this one leaves notebook/ alone (those pages must stay without the isolation headers).
//
// OFFLINE_VERSION is set by the build (web/build-sw.mjs): a new course makes a new sw.js.
/* global OFFLINE_VERSION */
// Type-checked by web/jsconfig.worker.json (the webworker library; OFFLINE_VERSION is declared in web/worker-env.d.ts).

/**
 * A file of offline.json's listing: its path from the site's root, its size in bytes and its content hash.
 * @typedef {{ path: string, size: number, hash: string }} Listed
 * @typedef {{ version: string, files: Listed[], notebook?: Listed[] }} Listing
 * What the service worker tells the pages: where its offline copy is.
 * @typedef {{ type: "offline-status", version: string, complete: boolean, notebook: NotebookPart, filling: boolean,
 *   done: number, total: number }} Status
 * @typedef {"saved" | "wanted" | ""} NotebookPart
 */

import { COMPLETE, cachePrefix, key, NOTEBOOK_COMPLETE } from "./offline-cache.js";

/** This worker's global scope: a service worker's (the webworker library types `self` as any worker's). */
const sw = /** @type {ServiceWorkerGlobalScope & typeof globalThis} */ (/** @type {unknown} */ (self));
const VERSION = OFFLINE_VERSION;
const root = new URL("./", self.location.href);
const NOTEBOOK = new URL("notebook/", root).href; // the notebook app: its own service worker answers its pages
const PREFIX = cachePrefix(root);
const CACHE = PREFIX + VERSION;
const LIST = "offline.json";
const NOTEBOOK_WANTED = "__ember/notebook-wanted"; // the learner opened the notebook: save its part too
const HASHES = "__ember/hashes"; // {path: content hash} of the files in the cache
const SAVED = "X-Ember-Saved-Copy"; // on an answer from the cache to a script's fetch (web/src/runtime/worker.js reads it)
const ISOLATION = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** @type {Promise<void> | null} */
let filling = null; // the running fill, shared by every page that asks
let progress = { done: 0, total: 0 };

sw.addEventListener("install", (event) => {
  // A first install waits for the page to ask (it does so once Python is idle); an update fills
  // its cache now, from the older cache where files did not change, before it may take over.
  event.waitUntil(olderCaches().then((older) => (older.length ? wantNotebook(false).then(fill) : null)));
});

sw.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await olderCaches()) await caches.delete(name);
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener("message", (event) => {
  const { type } = event.data || {};
  if (type === "status") event.waitUntil(status().then((answer) => event.source?.postMessage(answer)));
  // A fill already under way may have begun before the notebook was wanted: a second one saves what it left.
  else if (type === "fill")
    event.waitUntil(
      wantNotebook(event.data.notebook)
        .then(fill)
        .then(fill)
        .catch(() => null),
    );
  else if (type === "activate") sw.skipWaiting();
});

sw.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || !request.url.startsWith(root.href) || request.url.startsWith(NOTEBOOK)) return;
  if (request.headers.has("range")) return;
  event.respondWith(answer(request));
});

/**
 * A request's answer: the saved copy, else the network's (isolated), else the saved 404 page for a page.
 *
 * @param {Request} request
 * @returns {Promise<Response>}
 */
async function answer(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key(request.url));
  if (hit) return savedCopy(request, isolated(hit));
  try {
    const response = await fetch(request);
    if (response.redirected && request.mode === "navigate") return Response.redirect(response.url, 301);
    return isolated(response);
  } catch (error) {
    const missing = request.mode === "navigate" ? await cache.match(new URL("404.html", root).href) : null;
    if (missing) return isolated(missing, 404);
    throw error;
  }
}

/**
 * The response with the isolation headers added where the host did not send them.
 *
 * @param {Response} response
 * @param {number} [status]
 * @returns {Response}
 */
function isolated(response, status = response.status) {
  if (response.type === "opaque" || response.type === "opaqueredirect" || response.status === 0) return response;
  if (response.headers.get("Cross-Origin-Embedder-Policy") && status === response.status) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION)) if (!headers.has(name)) headers.set(name, value);
  headers.delete("Content-Encoding"); // the body is already decoded
  headers.delete("Content-Length");
  const empty = [101, 204, 205, 304].includes(status);
  return new Response(empty ? null : response.body, { status, statusText: response.statusText, headers });
}

/**
 * A file fetched by script (the Python worker's downloads) and answered from this cache says so in a header of
 * its own (SAVED), so that the page does not call it a download: not every browser's resource timing tells. Other
 * answers (pages, scripts, styles, and the wasm file, which the browser's compiled-code cache keys on) stay as
 * they are.
 *
 * @param {Request} request
 * @param {Response} response
 * @returns {Response}
 */
function savedCopy(request, response) {
  if (request.destination !== "" || new URL(request.url).pathname.endsWith(".wasm") || response.status !== 200)
    return response;
  const headers = new Headers(response.headers);
  headers.set(SAVED, "1");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** @returns {Promise<string[]>} the names of older versions' caches of this course */
async function olderCaches() {
  return (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE);
}

/** @returns {Promise<Status>} */
async function status() {
  const cache = await caches.open(CACHE);
  const complete = Boolean(await cache.match(new URL(COMPLETE, root).href));
  const notebook = await notebookState(cache);
  return { type: "offline-status", version: VERSION, complete, notebook, filling: Boolean(filling), ...progress };
}

/**
 * The notebook's part of a cache: "saved", "wanted" (not all saved yet) or "" (never asked for).
 *
 * @param {Cache} cache
 * @returns {Promise<NotebookPart>}
 */
async function notebookState(cache) {
  if (await cache.match(new URL(NOTEBOOK_COMPLETE, root).href)) return "saved";
  return (await cache.match(new URL(NOTEBOOK_WANTED, root).href)) ? "wanted" : "";
}

/**
 * Note in this version's cache that the notebook is to be saved, when a page asks for it or an older version
 * had it; the older version's note carries over on an update.
 *
 * @param {unknown} asked
 */
async function wantNotebook(asked) {
  const cache = await caches.open(CACHE);
  let wanted = Boolean(asked);
  for (const name of await olderCaches())
    wanted ||= Boolean(await (await caches.open(name)).match(new URL(NOTEBOOK_WANTED, root).href));
  if (wanted) await cache.put(new URL(NOTEBOOK_WANTED, root).href, new Response("1"));
}

/** @param {object} message  to every page of the site, controlled or not */
async function tell(message) {
  for (const client of await sw.clients.matchAll({ includeUncontrolled: true })) client.postMessage(message);
}

/** Save every file of this version once; concurrent callers share the same run. */
function fill() {
  if (!filling)
    filling = fillCache().finally(() => {
      filling = null;
    });
  return filling;
}

/** @returns {Promise<void>} */
async function fillCache() {
  const cache = await caches.open(CACHE);
  const complete = Boolean(await cache.match(new URL(COMPLETE, root).href));
  const notebook = await notebookState(cache);
  if (complete && notebook !== "wanted") return tell(await status());
  /** @type {Listing} */
  const listing = await (await fetch(new URL(LIST, root), { cache: "no-cache" })).json();
  if (listing.version !== VERSION) throw new Error(`offline.json is for ${listing.version}, not ${VERSION}`);
  const parts = [];
  if (!complete) parts.push({ files: listing.files, marker: COMPLETE });
  if (notebook === "wanted") parts.push({ files: listing.notebook || [], marker: NOTEBOOK_COMPLETE });
  const hashes = await readHashes(cache);
  const older = await olderCachesWithHashes();
  const all = parts.flatMap((part) => part.files);
  progress = { done: 0, total: all.reduce((sum, file) => sum + file.size, 0) };
  let lastTold = 0;
  for (const part of parts) {
    for (const file of part.files) {
      const url = new URL(file.path, root).href;
      if (hashes[file.path] !== file.hash || !(await cache.match(url))) {
        const same = older.find((entry) => entry.hashes[file.path] === file.hash);
        const response = (same && (await same.cache.match(url))) || (await fetch(url, { cache: "no-cache" }));
        if (!response.ok) throw new Error(`${file.path}: HTTP ${response.status}`);
        await cache.put(url, response);
        hashes[file.path] = file.hash;
        await cache.put(new URL(HASHES, root).href, Response.json(hashes));
      }
      progress.done += file.size;
      if (Date.now() - lastTold > 250) {
        lastTold = Date.now();
        await tell({ type: "offline-progress", version: VERSION, ...progress });
      }
    }
    await cache.put(new URL(part.marker, root).href, new Response(VERSION));
  }
  return tell({ ...(await status()), filling: false });
}

/**
 * @param {Cache} cache
 * @returns {Promise<Record<string, string>>} the {path: content hash} of the files in the cache
 */
async function readHashes(cache) {
  const stored = await cache.match(new URL(HASHES, root).href);
  return stored ? stored.json() : {};
}

/** Older versions' caches with their {path: hash}, to copy the files that did not change. */
async function olderCachesWithHashes() {
  /** @type {{ cache: Cache, hashes: Record<string, string> }[]} */
  const older = [];
  for (const name of await olderCaches()) {
    const cache = await caches.open(name);
    older.push({ cache, hashes: await readHashes(cache) });
  }
  return older;
}
