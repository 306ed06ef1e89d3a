// The page's first code. site_hooks/ember_pages.py writes it into the top of every page's head, so that
// on a lesson page Python's worker starts while the browser is still reading the page: as a file, even
// an async one, it ran only after the theme's and KaTeX's scripts, a third of a second later on a first
// visit. The rest of the page code (assets/gen/ember.js) takes the runtime from window.emberRuntime.
//
// The script element says where the built files are (data-gen, relative to the page) and, on a lesson
// page, which lesson it is (data-lesson).
import { Runtime } from "./runtime.js";
import { firstSnapshotUse } from "./visit.js";

const THEME_WAIT_MS = 8000; // from navigation: on a slow network Python's download is no reason to wait
const FOLLOW_TRIES = 40;
const FOLLOW_MS = 50;

/**
 * The theme's script, held on a lesson page: `load()` puts it in (once), `done()` tells whether it has run.
 * @typedef {{ load: () => void, done: () => boolean }} HeldTheme
 */

if (!window.emberRuntime) boot(/** @type {HTMLScriptElement} */ (document.currentScript));

/**
 * Once per visit (instant navigation keeps the page, and its runtime): make the runtime and, on a lesson page served
 * over http, start Python; hold the search index until it is wanted; on a lesson page, hold the theme's script (the
 * page ends with it held: #ember-theme).
 *
 * @param {HTMLScriptElement} script  this script's element, which says where the built files are
 */
function boot(script) {
  const runtime = makeRuntime(script);
  if (script.dataset.lesson && location.protocol !== "file:") runtime.start();
  searchIndexOnDemand();
  if (script.dataset.lesson) holdTheme(runtime);
}

/**
 * The page's runtime (window.emberRuntime), its worker beside the built files, its first start's use of the stored
 * snapshot as this visit allows.
 *
 * @param {HTMLScriptElement} script
 * @returns {Runtime}
 */
function makeRuntime(script) {
  const gen = new URL(/** @type {string} */ (script.dataset.gen), document.baseURI);
  const runtime = new Runtime(new URL("worker.js", gen).href);
  runtime.snapshot = firstSnapshotUse();
  window.emberRuntime = runtime;
  return runtime;
}

/**
 * On a lesson page the theme's script (site_hooks/ember_pages.py holds it as #ember-theme) runs once Python
 * is ready or could not start, once the learner reaches for the page (a key, a click, a touch), or after
 * THEME_WAIT_MS, whichever comes first: on a first visit it took about a third of a CPU-second of the page's
 * thread, beside Python's start on a two-core laptop. Until it runs, the page reads and scrolls as it is;
 * a click on a link to another page (which the theme would follow without a reload, keeping Python), on
 * the palette's toggle or on search, and a key pressed outside a text field, wait for it and are replayed.
 * window.emberTheme settles once it ran (page.js then follows the theme's page changes).
 *
 * @param {Runtime} runtime
 */
function holdTheme(runtime) {
  const theme = heldTheme();
  loadWhenDue(runtime, theme.load);
  holdClicks(theme);
  holdKeys(theme);
}

/**
 * The held theme's loader, and window.emberTheme, which settles once it ran.
 *
 * @returns {HeldTheme}
 */
function heldTheme() {
  /** @type {() => void} */
  let ran = () => {};
  window.emberTheme = new Promise((resolve) => {
    ran = resolve;
  });
  let loading = false;
  let done = false;
  let contentLoaded = false; // the browser's own DOMContentLoaded came (the theme, if it ran before, heard it)
  document.addEventListener(
    "DOMContentLoaded",
    () => {
      contentLoaded = true;
    },
    { once: true },
  );
  const load = () => {
    if (loading) return;
    loading = true;
    const go = () => {
      const held = document.getElementById("ember-theme");
      if (!held) {
        // a page built without it held: the theme has run
        done = true;
        ran();
        return;
      }
      const theme = document.createElement("script");
      /** @param {boolean} loaded */
      const finish = (loaded) => {
        // The theme starts on DOMContentLoaded, which has passed: it hears it once more (listeners the
        // page's own code added for it were once-only).
        if (loaded && contentLoaded) document.dispatchEvent(new Event("DOMContentLoaded"));
        done = true;
        ran();
      };
      theme.onload = () => finish(true);
      theme.onerror = () => finish(false);
      theme.src = /** @type {string} */ (held.dataset.src);
      held.replaceWith(theme);
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", go, { once: true });
    else go();
  };
  return { load, done: () => done };
}

/**
 * Load the theme once Python is ready or could not start, once the learner reaches for the page, or after
 * THEME_WAIT_MS.
 *
 * @param {Runtime} runtime
 * @param {() => void} load
 */
function loadWhenDue(runtime, load) {
  if (runtime.state !== "starting") load(); // not started: a page opened from disk
  runtime.addEventListener("state", (event) => {
    if (/** @type {CustomEvent<{ state: string }>} */ (event).detail.state !== "starting") load();
  });
  setTimeout(load, Math.max(0, THEME_WAIT_MS - performance.now()));
  for (const type of ["pointerdown", "keydown", "touchstart"])
    addEventListener(type, load, { capture: true, once: true });
}

/**
 * Until the theme has run, a click on a link to another page, on the palette's toggle or on search waits for it and
 * is replayed. A link's click is given to the theme again until it takes it (it follows links once it has read the
 * site's map, a moment after it runs); after FOLLOW_TRIES the browser follows it.
 *
 * @param {HeldTheme} theme
 */
function holdClicks(theme) {
  addEventListener(
    "click",
    (event) => {
      if (
        theme.done() ||
        replays.has(event) ||
        event.button !== 0 ||
        event.metaKey ||
        event.ctrlKey ||
        event.shiftKey ||
        event.altKey
      )
        return;
      const target = event.target instanceof Element ? event.target : null;
      const link = target?.closest("a[href]");
      const wanted = link
        ? leavesThePage(/** @type {HTMLAnchorElement} */ (link))
        : target?.closest('label[for="__search"], [data-md-component="palette"] label');
      if (!wanted) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      theme.load();
      window.emberTheme?.then(() => (link ? follow(link, 0) : /** @type {HTMLElement} */ (wanted).click()));
    },
    { capture: true },
  );
  /** @type {WeakMap<Event, { link: Element, tries: number }>} */
  const replays = new WeakMap();
  /** @type {(link: Element, tries: number) => void} */
  const follow = (link, tries) => {
    const click = new MouseEvent("click", { bubbles: true, cancelable: true, view: window, button: 0 });
    replays.set(click, { link, tries });
    link.dispatchEvent(click);
  };
  addEventListener("click", (event) => {
    const replay = replays.get(event);
    if (!replay || event.defaultPrevented || replay.tries >= FOLLOW_TRIES) return;
    event.preventDefault();
    setTimeout(() => follow(replay.link, replay.tries + 1), FOLLOW_MS);
  });
}

/**
 * Until the theme has run, a key pressed outside a text field is replayed once it has (its search keys among them).
 *
 * @param {HeldTheme} theme
 */
function holdKeys(theme) {
  addEventListener(
    "keydown",
    (event) => {
      if (theme.done() || !event.isTrusted || closestOf(event.target, "input, textarea, select, [contenteditable]"))
        return;
      const { key, code, shiftKey, altKey, metaKey, ctrlKey, repeat } = event;
      window.emberTheme?.then(() => {
        document.dispatchEvent(
          new KeyboardEvent("keydown", {
            key,
            code,
            shiftKey,
            altKey,
            metaKey,
            ctrlKey,
            repeat,
            bubbles: true,
            cancelable: true,
          }),
        );
      });
    },
    { capture: true },
  );
}

/**
 * The closest element to an event's target that matches `selector`, or null (a target that is no element has none).
 *
 * @param {EventTarget | null} target
 * @param {string} selector
 * @returns {Element | null}
 */
function closestOf(target, selector) {
  return target instanceof Element ? target.closest(selector) : null;
}

/**
 * The link goes to another page of this site in this tab: without the theme that would reload the page.
 *
 * @param {HTMLAnchorElement} link
 * @returns {HTMLAnchorElement | null} the link, if it does
 */
function leavesThePage(link) {
  const url = new URL(link.href, document.baseURI);
  if (url.origin !== location.origin || link.hasAttribute("download") || (link.target && link.target !== "_self"))
    return null;
  return url.pathname === location.pathname && url.search === location.search ? null : link;
}

/**
 * The theme asks for its search index (an XMLHttpRequest) at every page load and builds it in a worker:
 * about a third of a CPU-second, on every page, that most visits never use and that, on a two-core laptop,
 * Python's start would share. The request is sent once the learner reaches for search: a key (the theme's
 * search keys among them) or a click or tap on the search box or its button.
 */
function searchIndexOnDemand() {
  const { open, send } = XMLHttpRequest.prototype;
  /** @type {WeakSet<XMLHttpRequest>} */
  const held = new WeakSet();
  /** @type {() => void} */
  let release = () => {};
  /** @type {Promise<void>} */
  const released = new Promise((resolve) => {
    release = resolve;
  });
  released.then(() => Object.assign(XMLHttpRequest.prototype, { open, send }));
  addEventListener("keydown", release, { capture: true, once: true });
  addEventListener(
    "pointerdown",
    (event) => {
      if (closestOf(event.target, ".md-search, [for=__search]")) release();
    },
    { capture: true },
  );
  addEventListener(
    "focusin",
    (event) => {
      if (closestOf(event.target, ".md-search")) release();
    },
    { capture: true },
  );
  /**
   * @this {XMLHttpRequest}
   * @param {string} method
   * @param {string | URL} url
   * @param {[boolean?, (string | null)?, (string | null)?]} rest  async, username, password
   */
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (new URL(url, document.baseURI).pathname.endsWith("/search/search_index.json")) held.add(this);
    return /** @type {(...args: unknown[]) => void} */ (open).call(this, method, url, ...rest);
  };
  /**
   * @this {XMLHttpRequest}
   * @param {Document | XMLHttpRequestBodyInit | null} [body]
   */
  XMLHttpRequest.prototype.send = function (body) {
    if (!held.has(this)) return send.call(this, body);
    released.then(() => send.call(this, body));
  };
}
