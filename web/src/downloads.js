// The boot's downloads, in the worker: a dropped one is tried once more, and one that still fails ends
// the boot at once with the file's name (Pyodide itself would wait for ever on a wasm file that never came).

const RETRY_MS = 500;

/** A file the boot needs did not arrive, even on a second try (or, for the wasm file, did not compile). */
export class DownloadFailed extends Error {
  constructor(url, cause, failing = "could not download") {
    const path = String(url).split("/assets/gen/").pop();
    super(`${failing} ${path} (${cause && cause.message ? cause.message : cause})`);
    this.name = "DownloadFailed";
  }
}

/** A network failure (not an answer from the host, which a second try would not change). */
const dropped = (error) => error instanceof TypeError || (error && error.name === "NetworkError");

/**
 * The boot's downloads. `fetch(input, init)` is `plain` (the global fetch) with one more try for a request
 * the network dropped; `read(url, fetcher)` downloads a file whole through `fetcher` (this fetch unless
 * told), trying once more if its body broke off; an answer that is not OK fails it. A download that
 * fails raises DownloadFailed, and `failure` (a promise that only ever rejects) rejects with it at once:
 * a boot races Pyodide's start against it (and against its wasm's compilation: `watchWasm`).
 */
export function bootDownloads(plain) {
  let fail = null;
  const failure = new Promise((_, reject) => { fail = reject; });
  failure.catch(() => null); // a boot that did not get as far as waiting for it is not an uncaught error
  const failed = (url, error, failing = undefined) => {
    const reason = error instanceof DownloadFailed ? error : new DownloadFailed(url, error, failing);
    fail(reason);
    return reason;
  };
  const urlOf = (input) => new URL(typeof input === "string" || input instanceof URL ? input : input.url, self.location.href).href;
  const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_MS));

  async function fetch(input, init) {
    try {
      return await plain(input, init);
    } catch (error) {
      if (!dropped(error)) throw error;
    }
    await pause();
    try {
      return await plain(input, init);
    } catch (error) {
      throw failed(urlOf(input), error);
    }
  }

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
   * Pyodide only warns when its wasm file does not compile (a body that broke off, a damaged copy, a host
   * that sends it with another type than application/wasm) and then waits for ever: while the boot lasts,
   * such a failure fails the boot too. Answers the undoing.
   */
  function watchWasm() {
    const original = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = (source, imports) => {
      const instantiating = original.call(WebAssembly, source, imports);
      Promise.resolve(source).then((response) => instantiating.catch((error) => failed(response.url || "pyodide/pyodide.asm.wasm", error, "could not compile")), () => null);
      return instantiating;
    };
    return () => { WebAssembly.instantiateStreaming = original; };
  }

  return { fetch, read, failure, watchWasm };
}

/**
 * Keep a failed download, already told through the boot's answer, from also showing as an uncaught
 * error: Pyodide starts some of its downloads before it waits for them and leaves the rest unwatched.
 */
export function quietAboutFailedDownloads() {
  self.addEventListener("unhandledrejection", (event) => {
    if (event.reason instanceof DownloadFailed) event.preventDefault();
  });
}
