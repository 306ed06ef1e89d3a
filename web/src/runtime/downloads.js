// @ts-check
// The boot's downloads, in the worker: a dropped one is tried once more, and one that still fails ends
// the boot at once with the file's name (Pyodide itself would wait for ever on a wasm file that never came).

const RETRY_MS = 500;
let anyFailed = false; // in this worker: its boot has failed, and what breaks in Pyodide after that follows

/** A file the boot needs did not arrive, even on a second try (or, for the wasm file, did not compile). */
export class DownloadFailed extends Error {
  /**
   * @param {string | URL} url
   * @param {any} cause  the error, or what went wrong
   * @param {string} [failing]  what happened to the file
   */
  constructor(url, cause, failing = "could not download") {
    const path = String(url).split("/assets/gen/").pop();
    super(`${failing} ${path} (${cause?.message ? cause.message : cause})`);
    this.name = "DownloadFailed";
  }
}

/**
 * The absolute URL a fetch's first argument (a string, a URL or a Request) stands for.
 *
 * @param {RequestInfo | URL} input
 * @param {string | URL} [base]
 * @returns {string}
 */
export const urlOf = (input, base = self.location.href) =>
  new URL(typeof input === "string" || input instanceof URL ? input : input.url, base).href;

/**
 * A network failure (not an answer from the host, which a second try would not change).
 *
 * @param {any} error
 */
const dropped = (error) => error instanceof TypeError || (error && error.name === "NetworkError");

/**
 * The boot's downloads. `fetch(input, init)` is `plain` (the global fetch) with one more try for a request
 * the network dropped; an answer that is not OK fails the boot. `read(url, fetcher)` downloads a file whole
 * through `fetcher` (this fetch unless told), trying once more if its body broke off, and throws on an
 * answer that is not OK. A download that fails raises DownloadFailed, and `failure` (a promise that only
 * ever rejects) rejects with it at once: a boot races Pyodide's start against it (`watch` adds what only
 * Pyodide sees).
 *
 * @param {typeof fetch} plain
 * @returns {{
 *   fetch: typeof fetch, read: (url: string, fetcher?: typeof fetch) => Promise<ArrayBuffer>,
 *   failure: Promise<never>, watch: () => () => void,
 * }}
 */
export function bootDownloads(plain) {
  /** @type {(reason: DownloadFailed) => void} */
  let fail = () => {};
  /** @type {Promise<never>} */
  const failure = new Promise((_, reject) => {
    fail = reject;
  });
  failure.catch(() => null); // a boot that did not get as far as waiting for it is not an uncaught error
  /** @type {(url: string, error: any, failing?: string) => DownloadFailed} */
  const failed = (url, error, failing = undefined) => {
    const reason = error instanceof DownloadFailed ? error : new DownloadFailed(url, error, failing);
    anyFailed = true;
    fail(reason);
    return reason;
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_MS));

  /**
   * @param {RequestInfo | URL} input
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  async function fetch(input, init) {
    let response = null;
    try {
      response = await plain(input, init);
    } catch (error) {
      if (!dropped(error)) throw error;
    }
    if (!response) {
      await pause();
      try {
        response = await plain(input, init);
      } catch (error) {
        throw failed(urlOf(input), error);
      }
    }
    // An error answer fails the boot before Pyodide reads it (it would not say which file, or why).
    if (!response.ok) failed(urlOf(input), new Error(`HTTP ${response.status}`));
    return response;
  }

  /**
   * @param {string} url
   * @param {typeof fetch} [fetcher]
   * @returns {Promise<ArrayBuffer>}
   */
  async function read(url, fetcher = fetch) {
    for (let attempt = 0; ; attempt++) {
      const response = await fetcher(url);
      if (!response.ok) throw failed(url, new Error(`HTTP ${response.status}`));
      try {
        return await response.arrayBuffer();
      } catch (error) {
        if (attempt > 0 || !dropped(error)) throw failed(url, error);
      }
      await pause();
    }
  }

  /**
   * While the boot lasts, fail it too where Pyodide would not, or not clearly: a file of its own that the
   * host answers with an error (a module it imports, the standard library: Pyodide waits for ever or
   * stops with "exit(1)"), and a wasm file that does not compile (a body that broke off, a damaged
   * copy, a host that sends it with another type than application/wasm: Pyodide only warns, and waits).
   * Answers the undoing.
   */
  function watch() {
    const answers = new PerformanceObserver((list) => {
      for (const entry of /** @type {PerformanceResourceTiming[]} */ (list.getEntries())) {
        if (entry.responseStatus >= 400) failed(entry.name, new Error(`HTTP ${entry.responseStatus}`));
      }
    });
    answers.observe({ type: "resource" });
    const original = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = (source, imports) => {
      const instantiating = original.call(WebAssembly, source, imports);
      /** @param {Response} response */
      const compiled = (response) =>
        instantiating.catch((error) => {
          if (!response.ok) return; // told by its answer's status
          failed(response.url || "pyodide/pyodide.asm.wasm", error, "could not compile");
        });
      Promise.resolve(source).then(compiled, () => null);
      return instantiating;
    };
    return () => {
      answers.disconnect();
      WebAssembly.instantiateStreaming = original;
    };
  }

  return { fetch, read, failure, watch };
}

/**
 * Keep a failed download, already told through the boot's answer, from also showing as an uncaught
 * error, and so what breaks in Pyodide because of it (its own downloads it started before waiting for
 * them, the standard library it could not read, a lock file that is not JSON): the page starts a new
 * worker on its next try.
 */
export function quietAboutFailedDownloads() {
  /** @param {unknown} reason */
  const quiet = (reason) => reason instanceof DownloadFailed || anyFailed;
  self.addEventListener("unhandledrejection", (event) => {
    if (quiet(event.reason)) event.preventDefault();
  });
  self.addEventListener("error", (event) => {
    if (quiet(event.error)) event.preventDefault();
  });
}
