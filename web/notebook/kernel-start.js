// Prepended to JupyterLite's Pyodide kernel worker by scripts/build_notebook.py (start_from_snapshot), which
// also makes the worker call these hooks. The kernel starts from the memory snapshot of its Python with IPython
// imported (web/notebook/kernel-snapshot.mjs) instead of loading and importing everything again, and falls back
// to the kernel's own start when that fails. The snapshot holds Python's memory, not its files: the course's
// wheel goes in before any cell runs; the other wheels' files once the first cell has run (their modules a
// start uses are imported already), and every later cell, completion or inspection waits for them.
(() => {
  /** @type {any} */
  let python = null; // Pyodide, once started from the snapshot
  /** @type {string[]} */
  let later = []; // the packages whose files go in after the first cell
  /** @type {Promise<void> | null} */
  let files = null;
  let executed = false;

  /** A JavaScript object the snapshot's Python holds, found again by the name kernel-snapshot.mjs wrote down. */
  const deserialize = (/** @type {{where: string, name: string | null}} */ { where, name }) => {
    const owner = () => (where === "public" ? python : where === "api" ? python._api : python._module);
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

  self.__emberKernel = {
    /**
     * Start Pyodide: from the snapshot at options.emberSnapshotURL, or as the kernel would.
     *
     * @param {(options: object) => Promise<any>} load Pyodide's loadPyodide
     * @param {{emberSnapshotURL?: string, emberSnapshotBytes?: number, emberFirst?: string[], packages?: string[],
     *   indexURL?: string}} options its size, the wheels whose files go in first, and the kernel's own
     */
    async boot(load, options) {
      const { emberSnapshotURL: url, emberSnapshotBytes: size = 0, emberFirst: first = [], ...plain } = options;
      if (url) {
        try {
          // Pyodide waits for the snapshot's bytes before it compiles its wasm: hand it an array of the snapshot's
          // size at once, filled while the wasm compiles (createPyodideModule waits for both).
          const snapshot = new Uint8Array(size);
          const filled = fill(snapshot, url).then(() => performance.mark("kernel: snapshot fetched"));
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
          python = await load({
            ...rest,
            createPyodideModule,
            _loadSnapshot: snapshot,
            _snapshotDeserializer: deserialize,
          });
          performance.mark("kernel: snapshot restored");
          await python.loadPackage(first, { messageCallback: () => {} });
          performance.mark("kernel: course's files in");
          later = packages.filter((name) => !first.includes(name));
          return python;
        } catch (error) {
          console.warn("The notebook's kernel could not start from its snapshot; it starts the long way.", error);
          python = null;
        }
      }
      return load(plain);
    },
    /** Before a request: the first cell runs at once, anything else waits for the wheels' files. */
    async before(/** @type {string} */ kind) {
      if (!python) return;
      if (kind === "execute" && !executed) {
        executed = true;
        return;
      }
      await loadFiles();
    },
    /** After a cell has run: the wheels' files go in (once). */
    async after(/** @type {Promise<unknown>} */ running) {
      try {
        return await running;
      } finally {
        if (python) setTimeout(loadFiles);
      }
    },
  };
})();
