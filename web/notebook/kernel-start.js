// Prepended to JupyterLite's Pyodide kernel worker by scripts/build_notebook.py (start_from_snapshot), which
// also makes the worker call these hooks. The kernel starts from the memory snapshot of its Python with IPython
// imported (web/notebook/kernel-snapshot.mjs) instead of loading and importing everything again, and falls back
// to the kernel's own start when that fails. The snapshot holds Python's memory, not its files: the course's
// wheel goes in before any cell runs; the other wheels' files once the first cell has run (their modules a
// start uses are imported already), and every later cell, completion or inspection waits for them.
//
// The start begins as soon as this worker runs, with the options the build wrote down (self.__emberKernelEarly,
// paths from the app's folder), not when the kernel asks: the notebook's page makes this worker while JupyterLite
// is still starting (web/src/runtime/notebook-page.js), so that Python starts beside the app. The kernel's own options
// must say the same; if they do not, that early start is dropped and Python starts from the kernel's.
(() => {
  /**
   * @typedef {{emberSnapshotURL?: string, emberSnapshotBytes?: number, emberFirst?: string[], packages?: string[],
   *   indexURL?: string, [key: string]: unknown}} StartOptions the kernel's options for loadPyodide, and the
   *   snapshot's address and size, and the wheels whose files go in first
   */
  /** @type {any} */
  let python = null; // Pyodide, once started from the snapshot
  /** @type {string[]} */
  let later = []; // the packages whose files go in after the first cell
  /** @type {Promise<void> | null} */
  let files = null;
  let executed = false;
  /** Where Python's output goes: the kernel's log once it has asked for Python, the console before. */
  const sinks = { stdout: console.log, stderr: console.error };
  const printing = {
    stdout: (/** @type {string} */ text) => sinks.stdout(text),
    stderr: (/** @type {string} */ text) => sinks.stderr(text),
  };

  /**
   * A JavaScript object the snapshot's Python holds, found again by the name kernel-snapshot.mjs wrote down, on the
   * Pyodide that ``current`` answers (the one being started).
   */
  const deserialize =
    (/** @type {() => any} */ current) =>
    (/** @type {{where: string, name: string | null}} */ { where, name }) => {
      const owner = () => {
        const started = current();
        return where === "public" ? started : where === "api" ? started._api : started._module;
      };
      if (name === null)
        return new Proxy({}, { get: (_, key) => Reflect.get(owner(), key), has: (_, key) => key in owner() });
      return (/** @type {unknown[]} */ ...args) => owner()[name](...args);
    };

  /**
   * The bytes of a gzipped stream, unzipped as they arrive (web/notebook/kernel-snapshot.mjs gzips the snapshot);
   * a host that sent it with its own gzip encoding has had the browser unzip it already: taken as it comes.
   *
   * @param {ReadableStream<Uint8Array>} body
   * @returns {Promise<ReadableStream<Uint8Array>>}
   */
  const unzipping = async (body) => {
    const reader = body.getReader();
    const first = await reader.read();
    const again = new ReadableStream({
      start(controller) {
        if (first.done) controller.close();
        else controller.enqueue(first.value);
      },
      async pull(controller) {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
    });
    const zipped = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
    return zipped ? again.pipeThrough(new DecompressionStream("gzip")) : again;
  };

  /**
   * Fill ``target`` with the file at ``url``, unzipped, as it arrives; fails unless it is exactly its size.
   *
   * @param {Uint8Array} target
   * @param {string} url
   */
  const fill = async (target, url) => {
    const response = await fetch(url);
    if (!response.ok || !response.body) throw new Error(`the snapshot did not come (HTTP ${response.status})`);
    const reader = (await unzipping(response.body)).getReader();
    let at = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      if (at + read.value.byteLength > target.byteLength) throw new Error("the snapshot is larger than expected");
      target.set(read.value, at);
      at += read.value.byteLength;
    }
    if (at !== target.byteLength) throw new Error("the snapshot is smaller than expected");
  };

  const loadFiles = () => {
    files ??= python.loadPackage(later, { messageCallback: () => {} }).then(
      () => performance.mark("kernel: wheels' files in"),
      // Cells still run (what they use is imported already); an import that needs a missing file fails as such.
      (/** @type {unknown} */ error) => console.warn("The notebook's kernel could not load its wheels' files.", error),
    );
    return files;
  };

  /**
   * Start Pyodide from the snapshot at options.emberSnapshotURL, with the course's wheel in; fails if anything does.
   *
   * @param {(options: object) => Promise<any>} load Pyodide's loadPyodide
   * @param {StartOptions} options
   * @returns {Promise<{python: any, later: string[]}>}
   */
  const fromSnapshot = async (load, options) => {
    const { emberSnapshotURL: url, emberSnapshotBytes: size = 0, emberFirst: first = [], ...plain } = options;
    // Pyodide waits for the snapshot's bytes before it compiles its wasm: hand it an array of the snapshot's
    // size at once, filled while the wasm compiles (createPyodideModule waits for both).
    const snapshot = new Uint8Array(size);
    const filled = fill(snapshot, `${url}`).then(() => performance.mark("kernel: snapshot fetched"));
    filled.catch(() => null); // awaited below; a failure ends this start there
    const { packages = [], ...rest } = plain;
    if (!rest.indexURL) throw new Error("the kernel gave no indexURL");
    const indexURL = rest.indexURL.endsWith("/") ? rest.indexURL : `${rest.indexURL}/`;
    // Pyodide's wasm exports its memory, at the size of a plain start: grow it to the snapshot's size
    // before Pyodide copies the snapshot in.
    const createPyodideModule = async (/** @type {object} */ settings) => {
      const { default: create } = await import(`${indexURL}pyodide.asm.mjs`);
      const [module] = await Promise.all([
        create(settings).then((/** @type {any} */ made) => {
          performance.mark("kernel: wasm instantiated");
          return made;
        }),
        filled,
      ]);
      module.growMemory(snapshot.byteLength);
      return module;
    };
    /** @type {any} */
    let started = null;
    const deserializer = deserialize(() => started);
    started = await load({
      ...rest,
      createPyodideModule,
      _loadSnapshot: snapshot,
      _snapshotDeserializer: deserializer,
    });
    performance.mark("kernel: snapshot restored");
    await started.loadPackage(first, { messageCallback: () => {} });
    performance.mark("kernel: course's files in");
    return { python: started, later: packages.filter((/** @type {string} */ name) => !first.includes(name)) };
  };

  /** The kernel's options as the build wrote them down (its paths from the app's folder), resolved here. */
  const earlyOptions = () => {
    const early = self.__emberKernelEarly;
    if (!early) return null;
    const app = new URL(early.app, self.location.href);
    /** @type {Record<string, unknown>} */
    const options = {};
    for (const [key, value] of Object.entries(early.loadPyodideOptions))
      options[key] = key.endsWith("URL") && typeof value === "string" ? new URL(value, app).href : value;
    const pyodideUrl = new URL(early.pyodideUrl, app).href;
    return { pyodideUrl, options: { indexURL: pyodideUrl.slice(0, pyodideUrl.lastIndexOf("/") + 1), ...options } };
  };

  /** The options that decide what a start makes, to tell whether the early start is the one the kernel asks for. */
  const startKey = (/** @type {Record<string, unknown>} */ options) =>
    JSON.stringify(
      ["indexURL", "stdLibURL", "lockFileURL", "packages", "emberSnapshotURL", "emberSnapshotBytes", "emberFirst"].map(
        (key) => options[key] ?? null,
      ),
    );

  /** @type {{key: string, start: Promise<{python: any, later: string[]}>} | null} */
  const early = (() => {
    const found = earlyOptions();
    if (!found?.options.emberSnapshotURL) return null;
    const start = import(found.pyodideUrl).then(({ loadPyodide }) =>
      fromSnapshot(loadPyodide, { ...found.options, ...printing }),
    );
    start.catch(() => null); // awaited by boot; a failure there starts Python the kernel's way
    // The course's Graphviz, which the first cell loads (labs/frontends/notebook.py takes it from here), once
    // Python has started: compiling its wasm then costs the first cell nothing.
    const viz = self.__emberKernelEarly?.viz;
    if (viz)
      self.__emberViz = start
        .then(() => import(new URL(viz, new URL(self.__emberKernelEarly.app, self.location.href)).href))
        .then((/** @type {any} */ module) => module.instance())
        .then((/** @type {any} */ made) => {
          performance.mark("kernel: Graphviz in");
          return made;
        })
        .catch(() => null);
    return { key: startKey(found.options), start };
  })();

  self.__emberKernel = {
    /**
     * Start Pyodide: the early start if it is the one asked for, else from the snapshot at
     * options.emberSnapshotURL, or as the kernel would.
     *
     * @param {(options: object) => Promise<any>} load Pyodide's loadPyodide
     * @param {StartOptions & {stdout?: (text: string) => void, stderr?: (text: string) => void}} options
     */
    async boot(load, options) {
      const { stdout, stderr, ...asked } = options;
      if (stdout) sinks.stdout = stdout;
      if (stderr) sinks.stderr = stderr;
      const { emberSnapshotURL: url, emberSnapshotBytes: _size, emberFirst: _first, ...plain } = options;
      if (url) {
        try {
          const same = early && early.key === startKey(asked);
          if (early && !same) console.warn("The notebook's kernel asked for another start than the early one.");
          ({ python, later } = await (same && early ? early.start : fromSnapshot(load, { ...asked, ...printing })));
          return python;
        } catch (error) {
          console.warn("The notebook's kernel could not start from its snapshot; it starts the long way.", error);
          python = null;
        }
      }
      return load(plain);
    },
    /** The kernel has started (its Python, files, packages and globals): the page is told (notebook-page.js). */
    started() {
      self.postMessage({ emberKernel: "started" });
    },
    /** Before a request: the first cell runs at once, anything else waits for the wheels' files. */
    async before(/** @type {string} */ kind) {
      if (!python) return;
      if (kind === "execute" && !executed) {
        executed = true;
        performance.mark("kernel: first cell asked");
        return;
      }
      await loadFiles();
    },
    /** After a cell has run: the wheels' files go in (once). */
    async after(/** @type {Promise<unknown>} */ running) {
      try {
        return await running;
      } finally {
        if (!performance.getEntriesByName("kernel: first cell run").length) performance.mark("kernel: first cell run");
        if (python) setTimeout(loadFiles);
      }
    },
  };
})();
