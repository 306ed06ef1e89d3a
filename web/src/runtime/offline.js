// @ts-check
// The page's side of offline use and fast starts: registers the service worker (sw.js, at the site's
// root), reloads once to become cross-origin isolated where the host sent no COOP/COEP headers, and,
// once Python is ready and idle, stores a memory snapshot of Python for later starts and asks the
// service worker to save every file. An indicator in the header says how far that is; a new version
// of the course is announced, and taken only when the learner reloads.
//
// localStorage "ember:offline" = "off" leaves all of this out (tests that are not about it set it).

import { optedOut, SNAPSHOT_FLAG } from "./visit.js";

const ROOT = new URL("../../", import.meta.url); // .../assets/gen/ember.js -> the site's root
const IDLE_MS = 1500; // how long Python must have been idle before the background work starts
const RELOAD_FLAG = "ember:isolation-reload"; // in sessionStorage: the one reload for isolation was done
const CONTROL_WAIT_MS = 10000;

/**
 * @typedef {import("./runtime.js").Runtime} Runtime
 *
 * What the service worker tells the page (sw.js): how far saving is, whether every file is saved, or that a
 * new version waits.
 * @typedef {{ type: string, complete?: boolean, filling?: boolean, done?: number, total?: number }} OfflineMessage
 */

/** @type {HTMLElement | null} */
let indicator = null;
let typed = false;

/**
 * Start everything; `runtime` is the page's Python.
 *
 * @param {Runtime} runtime
 */
export function startOffline(runtime) {
  if (optedOut()) return; // boot.js started Python with "off": no snapshot either
  if (!("serviceWorker" in navigator) || !window.isSecureContext) {
    whenIdle(runtime, ["ready"], () => snapshotOnce(runtime)); // IndexedDB works where service workers do not
    return;
  }
  navigator.serviceWorker.addEventListener("message", ({ data }) => show(data));
  /** @type {Promise<ServiceWorkerRegistration | null> | null} */
  let registering = null;
  const register = () => {
    registering ||= navigator.serviceWorker.register(new URL("sw.js", ROOT), { scope: ROOT.href }).catch(() => null);
    return registering;
  };
  if (!self.crossOriginIsolated) {
    // Not isolated (no headers from the host, no service worker yet): register at once, so that
    // the one reload that isolates the page comes early.
    addEventListener(
      "keydown",
      () => {
        typed = true;
      },
      { capture: true, once: true },
    );
    register();
    isolate();
  }
  // Otherwise registering (or, on later visits, looking for a new version) waits until Python is
  // idle, so that it does not compete with Python's start; then every file is saved. On a page
  // without Python (the home page), "off" counts as idle.
  /** @type {Promise<void> | null} */
  let saving = null;
  const save = () => {
    saving ||= register().then(async (registration) => {
      if (!registration) return;
      watchUpdates(registration);
      (await navigator.serviceWorker.ready).active?.postMessage({ type: "fill" });
    });
    return saving;
  };
  whenIdle(runtime, ["ready"], () => snapshotOnce(runtime).then(save));
  whenIdle(runtime, ["off"], save);
  if (navigator.serviceWorker.controller) {
    navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage({ type: "status" }));
  }
}

/**
 * Not isolated yet (the host sent no COOP/COEP): once the service worker controls this page, reload
 * it once, so that the worker's headers apply. Never twice in a session, never after a keystroke.
 */
function isolate() {
  if (self.crossOriginIsolated || sessionStorage.getItem(RELOAD_FLAG)) return;
  const loaded = performance.now();
  const reload = () => {
    if (typed || performance.now() - loaded > CONTROL_WAIT_MS || sessionStorage.getItem(RELOAD_FLAG)) return;
    sessionStorage.setItem(RELOAD_FLAG, "1");
    location.reload();
  };
  if (navigator.serviceWorker.controller) reload();
  else navigator.serviceWorker.addEventListener("controllerchange", reload, { once: true });
}

/**
 * Run `work` once, the first time Python has stayed in one of `states` for IDLE_MS.
 *
 * @param {Runtime} runtime
 * @param {string[]} states
 * @param {() => Promise<unknown>} work
 */
function whenIdle(runtime, states, work) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const check = () => {
    clearTimeout(timer);
    if (!states.includes(runtime.state)) return;
    timer = setTimeout(() => {
      if (!states.includes(runtime.state)) return;
      runtime.removeEventListener("state", check);
      work().catch(() => null);
    }, IDLE_MS);
  };
  runtime.addEventListener("state", check);
  check();
}

/**
 * Store a snapshot unless this boot came from the stored one: after a first start (from the build's snapshot, whose
 * bytes the background worker stores without starting Python; or a normal one), later starts read it from storage.
 *
 * @param {Runtime} runtime
 */
async function snapshotOnce(runtime) {
  const html = document.documentElement; // data-snapshot: how it went, a state tests can wait for
  if (!["use", "none"].includes(runtime.snapshot) || !runtime.bootInfo || runtime.bootInfo.start === "snapshot") {
    html.dataset.snapshot = "not needed";
    return;
  }
  html.dataset.snapshot = "making";
  try {
    await runtime.makeSnapshot();
    localStorage.setItem(SNAPSHOT_FLAG, "1");
    runtime.snapshot = "use"; // a restart of Python (after Stop, or a crash) starts from it
    html.dataset.snapshot = "stored";
  } catch (error) {
    runtime.snapshot = "off"; // this browser cannot: leave it, every start begins from the build's
    html.dataset.snapshot = "failed";
    // Nothing the learner must act on (Python works, only its next start is slower): said for whoever looks.
    console.warn(
      `${error instanceof Error ? error.message : String(error)}; later starts of Python here begin from the course's own snapshot each time`,
    );
  }
}

/**
 * When a new version has installed beside this one, say so; it takes over on the learner's reload.
 *
 * @param {ServiceWorkerRegistration} registration
 */
function watchUpdates(registration) {
  const waiting = () => {
    if (registration.waiting && navigator.serviceWorker.controller) announce(registration.waiting);
  };
  waiting();
  registration.addEventListener("updatefound", () => {
    const next = registration.installing;
    next?.addEventListener("statechange", () => next.state === "installed" && waiting());
  });
  // With instant navigation a visit may never load a page again: look for a new version now and then.
  const look = () => registration.update().catch(() => null);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && look());
  setInterval(look, 30 * 60 * 1000);
}

/**
 * Say that a new version waits, with a button that lets it take over and reloads the page.
 *
 * @param {ServiceWorker} next
 */
function announce(next) {
  const button = element("button", "md-button ember-update-reload", "Reload now");
  button.type = "button";
  button.addEventListener("click", () => {
    navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
    next.postMessage({ type: "activate" });
  });
  const note = element("div", "ember-toast ember-update", "A new version of the course is ready. Your work is saved; ");
  note.setAttribute("role", "status");
  note.append(button);
  document.querySelector(".ember-update")?.remove();
  document.body.append(note);
  show({ type: "offline-update" });
}

/**
 * The header's indicator: saving progress, "available offline", or an update waiting.
 *
 * @param {OfflineMessage} message
 */
function show(message) {
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => show(message), { once: true });
    return;
  }
  const text = {
    "offline-progress": () => `Saving for offline: ${percent(message)}%`,
    "offline-status": () =>
      message.complete ? "Available offline" : message.filling ? `Saving for offline: ${percent(message)}%` : "",
    "offline-update": () => "New version ready",
  }[message?.type];
  if (!text) return;
  const state = message.type === "offline-update" ? "update" : message.complete ? "ready" : "saving";
  if (state !== "update" && indicator?.dataset.state === "update") return;
  const badge = offlineBadge();
  badge.dataset.state = text() ? state : "";
  badge.textContent = text();
  document.documentElement.dataset.offline = badge.dataset.state;
}

/**
 * @param {OfflineMessage} message
 * @returns {number}
 */
function percent({ done = 0, total }) {
  return total ? Math.floor((100 * done) / total) : 0;
}

/** @returns {HTMLElement} */
function offlineBadge() {
  if (!indicator?.isConnected) {
    indicator = document.getElementById("ember-offline") || element("span", "ember-offline", "");
    indicator.id = "ember-offline";
    indicator.setAttribute("role", "status");
    (document.querySelector(".md-header__inner") || document.body).append(indicator);
  }
  return indicator;
}

/**
 * A new element with its class and text.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} className
 * @param {string} text
 * @returns {HTMLElementTagNameMap[K]}
 */
function element(tag, className, text) {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}
