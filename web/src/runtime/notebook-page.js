// @ts-check
// The course's script in the notebook app's pages (notebook/ember-notebook.js, put into the head of each app page
// by scripts/build_notebook.py, before JupyterLite's own script, which waits for `window.emberNotebookReady`).
//
// - Service workers: JupyterLite unregisters every service worker of the site when it finds its page controlled
//   by one it has not seen (it keys what it has seen in localStorage by the worker's address), which would take
//   the course's offline copy down with it. So this marks the notebook's own worker as seen, and when the page is
//   controlled by the course's worker (a first visit: the notebook's is not registered yet), it registers the
//   notebook's, waits until it is active, and reloads once, before JupyterLite starts.
// - Offline: once Python is ready and idle (after the first cell has run, or a while), it asks the course's service
//   worker (web/src/runtime/sw.js) to save the notebook's files too, so that the notebook opens again with the network off
//   (unless localStorage "ember:offline" is "off", as for the lessons).
// - Status: a line in the corner says what Python is doing as it starts (downloading, starting, ready) and how
//   far saving for offline is, in a live region, as the lesson's header does.
// - Python starts at once: in the notebooks page it makes the kernel's worker before JupyterLite has started, and
//   that worker starts Python from its snapshot (web/notebook/kernel-start.js); the kernel takes it when it asks
//   for its worker (window.__emberKernelWorker, hooked in by scripts/build_notebook.py), so that Python starts
//   beside the app rather than after it.

import { optedOut } from "./visit.js";

/* global JUPYTERLITE_VERSION, KERNEL_WORKERS */
/** @type {string} */
// @ts-expect-error: set by the build (web/build-notebook.mjs)
const APP_VERSION = JUPYTERLITE_VERSION;
/** @type {{comlink: string, coincident: string}} */
// @ts-expect-error: set by the build: the kernel's worker in the app, without and with shared memory
const KERNEL_WORKER_PATHS = KERNEL_WORKERS;
// This script is the app's own file (notebook/ember-notebook.js): the app's folder is its folder.
const APP = new URL("./", document.currentScript instanceof HTMLScriptElement ? document.currentScript.src : "");
const ROOT = new URL("../", APP); // the site's root
// The notebook's service worker, as JupyterLite registers it (its address is how JupyterLite knows it).
const OWN = new URL("service-worker.js?enableCache=false", APP).href;
const RELOADED = "ember:notebook-worker-reload"; // in sessionStorage: the one reload was done
// How long Python must have been ready before the notebook's files are saved: once a cell has run, and before (the
// learner has not run one yet: saving then would slow their first cell, for which Python started early).
const IDLE_MS = 1500;
const IDLE_BEFORE_A_CELL_MS = 10_000;
const DOWNLOADS_GAP_MS = 700; // no download for this long: Python is starting
const QUIET_MS = 4000; // ready (or saved) for this long: the status steps out of the way (still read out)
const EARLY_WORKER_MS = 120_000; // a kernel's worker made early and not taken by then is ended

/**
 * @typedef {{ type: string, bytes?: number, running?: number, complete?: boolean, notebook?: string,
 *   filling?: boolean, done?: number, total?: number }} WorkerMessage
 */

/** What the status says, part by part. */
const state = {
  /** @type {"starting" | "downloading" | "ready" | "running" | "stopped"} */
  python: "starting",
  downloaded: 0,
  /** @type {"" | "saving" | "saved"} */
  offline: "",
  saved: 0,
};

/** @type {Promise<void>} */
const ready = takeOverServiceWorker();
Object.assign(window, { emberNotebookReady: ready });
ready.then(() => {
  if (location.pathname.startsWith(new URL("notebooks/", APP).pathname)) makeKernelWorker();
  if ("serviceWorker" in navigator) navigator.serviceWorker.addEventListener("message", ({ data }) => heard(data));
  if (document.body) watchPython();
  else document.addEventListener("DOMContentLoaded", watchPython, { once: true });
});

/**
 * Make sure the notebook's own service worker controls this page before JupyterLite starts; never blocks for long
 * (JupyterLite works without it, only not offline).
 *
 * @returns {Promise<void>}
 */
async function takeOverServiceWorker() {
  const workers = navigator.serviceWorker;
  if (!workers || !window.isSecureContext) return;
  try {
    localStorage.setItem(`${OWN}-version`, APP_VERSION);
  } catch {
    return; // no storage: JupyterLite's own check cannot run either
  }
  const controller = workers.controller;
  if (!controller || controller.scriptURL === OWN || sessionStorage.getItem(RELOADED)) return;
  try {
    const registration = await workers.register(OWN, { scope: APP.href });
    await active(registration);
    sessionStorage.setItem(RELOADED, "1");
    location.reload();
    await new Promise(() => {}); // JupyterLite never starts on this load
  } catch {
    // registering failed: JupyterLite registers it itself
  }
}

/**
 * Until the registration's worker is active.
 *
 * @param {ServiceWorkerRegistration} registration
 * @returns {Promise<void>}
 */
function active(registration) {
  return new Promise((resolve) => {
    const check = () => {
      if (registration.active?.state === "activated") resolve();
    };
    check();
    const worker = registration.installing || registration.waiting;
    worker?.addEventListener("statechange", check);
    registration.addEventListener("updatefound", () => registration.installing?.addEventListener("statechange", check));
  });
}

/** The worker made early said its kernel has started (web/notebook/kernel-start.js); `onKernelStarted` is told. */
let kernelStarted = false;
let onKernelStarted = () => {};

/**
 * Make the kernel's worker now (it starts Python at once), for the kernel to take when it asks for its worker: the
 * build of the worker the kernel would choose, at the address it would ask for; anything else makes its own.
 */
function makeKernelWorker() {
  if (typeof Worker === "undefined") return;
  const address = new URL(crossOriginIsolated ? KERNEL_WORKER_PATHS.coincident : KERNEL_WORKER_PATHS.comlink, APP).href;
  /** @type {Worker | null} */
  let worker;
  try {
    worker = new Worker(address, { type: "module" });
  } catch {
    return; // the kernel makes its own
  }
  worker.addEventListener("message", ({ data }) => {
    if (data?.emberKernel !== "started") return;
    kernelStarted = true;
    onKernelStarted();
  });
  const ending = setTimeout(() => {
    worker?.terminate();
    worker = null;
  }, EARLY_WORKER_MS);
  Object.assign(window, {
    __emberKernelWorker: (/** @type {string | URL} */ asked) => {
      if (!worker || new URL(asked, location.href).href !== address) return null;
      const taken = worker;
      worker = null;
      clearTimeout(ending);
      return taken;
    },
  });
}

/**
 * Follow the kernel's state as the notebook's toolbar shows it (its execution indicator says "idle" before there is
 * a kernel too: Python is ready only once the kernel's worker made early has said it started, or the indicator has
 * been seen starting); once ready a while, save the notebook.
 */
function watchPython() {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let saving;
  let asked = false;
  let started = kernelStarted;
  let ran = false; // a cell has run
  const look = (/** @type {MutationRecord[]} */ changes = []) => {
    const indicator = document.querySelector(".jp-Notebook-ExecutionIndicator");
    const status = indicator instanceof HTMLElement ? indicator.dataset.status || "" : "";
    // A kernel that starts from the worker made early may be idle again before this looks: its earlier states too.
    const before = changes.map((change) => (change.attributeName === "data-status" ? change.oldValue : null));
    if ([status, ...before].some((seen) => seen && seen !== "idle")) started = true;
    const python = started ? { idle: "ready", busy: "running", dead: "stopped" }[status] : undefined;
    if (python === "running") ran = true;
    if (python) setPython(/** @type {"ready" | "running" | "stopped"} */ (python));
    else if (["ready", "running", "stopped"].includes(state.python)) setPython("starting"); // a restart
    clearTimeout(saving);
    if (!asked && python === "ready")
      saving = setTimeout(
        () => {
          asked = true;
          saveForOffline();
        },
        ran ? IDLE_MS : IDLE_BEFORE_A_CELL_MS,
      );
  };
  new MutationObserver(look).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-status"],
    attributeOldValue: true,
  });
  onKernelStarted = () => {
    started = true;
    look();
  };
  look();
  show(); // "starting" at once: never a silent wait
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let downloadsEnd;

/**
 * Python's state, as the status says it.
 *
 * @param {typeof state.python} python
 */
function setPython(python) {
  clearTimeout(downloadsEnd);
  if (python === state.python) return;
  state.python = python;
  show();
}

/** Ask the course's service worker to save the notebook's files (registering it if this browser has none). */
async function saveForOffline() {
  const workers = navigator.serviceWorker;
  if (!workers || !window.isSecureContext || optedOut()) return; // "off": the lessons save nothing either
  try {
    let registration = await workers.getRegistration(ROOT.href);
    if (!registration || registration.scope !== ROOT.href)
      registration = await workers.register(new URL("sw.js", ROOT), { scope: ROOT.href });
    await active(registration);
    registration.active?.postMessage({ type: "fill", notebook: true });
  } catch {
    // no offline copy here: the notebook works all the same
  }
}

/**
 * A message from a service worker: the kernel's downloads (the notebook's), or saving (the course's).
 *
 * @param {WorkerMessage} message
 */
function heard(message) {
  if (message?.type === "notebook-download") {
    if (state.python !== "starting" && state.python !== "downloading") return;
    state.downloaded = message.bytes || 0;
    if (message.running) setPython("downloading");
    else if (state.python === "downloading") {
      // Python's files come one after another: "starting" only once none has followed for a moment.
      downloadsEnd = setTimeout(() => setPython("starting"), DOWNLOADS_GAP_MS);
      return;
    }
  } else if (message?.type === "offline-progress") {
    state.offline = "saving";
    state.saved = message.total ? Math.floor((100 * (message.done || 0)) / message.total) : 0;
  } else if (message?.type === "offline-status" && message.notebook) {
    state.offline = message.notebook === "saved" ? "saved" : message.filling ? "saving" : state.offline;
  } else return;
  show();
}

const STYLE = `
#ember-notebook-status {
  position: fixed; right: 0.75rem; bottom: 0.75rem; z-index: 10000; max-width: calc(100vw - 1.5rem);
  padding: 0.3rem 0.7rem; border-radius: 1rem; font: 13px/1.4 var(--jp-ui-font-family, system-ui, sans-serif);
  color: var(--jp-ui-font-color1, #1f1f1f); background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--jp-border-color1, #757575); box-shadow: 0 1px 4px rgb(0 0 0 / 25%);
  font-variant-numeric: tabular-nums; pointer-events: none;
}
#ember-notebook-status[data-quiet] {
  clip-path: inset(50%); width: 1px; height: 1px; overflow: hidden; white-space: nowrap; padding: 0; border: 0;
}
`;

/**
 * The status line, made on first use: a live region of four parts, each changed only when its text changes (so
 * that only what changed is read out); the numbers are shown, not read out at every step.
 *
 * @returns {{ line: HTMLElement, python: HTMLElement, downloaded: HTMLElement, offline: HTMLElement,
 *   saved: HTMLElement }}
 */
function statusLine() {
  if (!parts?.line.isConnected) {
    const style = document.createElement("style");
    style.textContent = STYLE;
    document.head.append(style);
    const line = document.createElement("div");
    line.id = "ember-notebook-status";
    line.setAttribute("role", "status");
    line.setAttribute("aria-atomic", "false");
    const [python, downloaded, offline, saved] = ["span", "span", "span", "span"].map((tag) =>
      document.createElement(tag),
    );
    downloaded.setAttribute("aria-hidden", "true");
    saved.setAttribute("aria-hidden", "true");
    line.append(python, downloaded, offline, saved);
    document.body.append(line);
    parts = { line, python, downloaded, offline, saved };
  }
  return parts;
}

/** @type {ReturnType<typeof statusLine> | null} */
let parts = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let quieting;

/**
 * Set a node's text if it changed (a live region reads out what changes).
 *
 * @param {HTMLElement} node
 * @param {string} text
 */
function write(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Write the status line; once Python is ready and nothing is being saved, it steps out of the way. */
function show() {
  const status = statusLine();
  write(
    status.python,
    {
      starting: "Python: starting…",
      downloading: "Python: downloading…",
      ready: "Python: ready",
      running: "Python: running…",
      stopped: "Python: stopped",
    }[state.python],
  );
  write(status.downloaded, state.python === "downloading" ? ` ${(state.downloaded / 1e6).toFixed(1)} MB` : "");
  write(status.offline, { "": "", saving: " · Saving for offline…", saved: " · Available offline" }[state.offline]);
  write(status.saved, state.offline === "saving" ? ` ${state.saved}%` : "");
  status.line.dataset.python = state.python;
  status.line.dataset.offline = state.offline;
  clearTimeout(quieting);
  const settled = ["ready", "running"].includes(state.python) && state.offline !== "saving";
  if (!settled) delete status.line.dataset.quiet;
  else if (!("quiet" in status.line.dataset))
    quieting = setTimeout(() => {
      status.line.dataset.quiet = "";
    }, QUIET_MS);
}
