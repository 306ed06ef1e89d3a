// @ts-check
// The course's offline caches as both service workers name them: web/src/runtime/sw.js fills them, and
// web/src/runtime/notebook-sw.js answers the notebook's requests from them.

/** Stored last in a cache: it holds every lesson file (a path under the site's root). */
export const COMPLETE = "__ember/complete";
/** Stored after the notebook's last file: the cache holds every notebook file too. */
export const NOTEBOOK_COMPLETE = "__ember/notebook-complete";

/**
 * The first part of the name of every cache of the course served from `root`: two courses on one host keep apart.
 *
 * @param {URL} root
 */
export function cachePrefix(root) {
  return `ember-offline:${root.pathname}:`;
}

/**
 * The file a request stands for, as the cache keys it: no query or hash, and folders mean their index.html.
 *
 * @param {string} url
 * @returns {string}
 */
export function key(url) {
  const clean = new URL(url);
  clean.search = "";
  clean.hash = "";
  if (clean.pathname.endsWith("/")) clean.pathname += "index.html";
  return clean.href;
}
