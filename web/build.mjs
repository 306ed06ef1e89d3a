// Bundle the page code (with CodeMirror) and the worker into docs/assets/gen/.
import { readdirSync, rmSync } from "node:fs";

import { build } from "esbuild";

const out = "docs/assets/gen";
/** @type {import("esbuild").BuildOptions} */
const common = { bundle: true, format: "esm", target: "es2022", minify: true, sourcemap: false, logLevel: "warning" };

// Chunks carry a hash in their names: drop the ones an earlier build left behind.
for (const name of readdirSync(out, { withFileTypes: true })) {
  if (name.isFile() && /^chunk-.*\.js$/.test(name.name)) rmSync(`${out}/${name.name}`);
}

// The page code: a small first file that starts Python at once, and chunks loaded after it (the
// editor). Chunks sit beside it, so paths relative to import.meta.url mean the same in every file.
// The first script, written into every page's head by site_hooks/ember_pages.py (not served as a file).
await build({ ...common, entryPoints: ["web/src/runtime/boot.js"], outfile: `${out}/boot.js`, format: "iife" });
await build({
  ...common,
  entryPoints: { ember: "web/src/page/main.js" },
  outdir: out,
  splitting: true,
  chunkNames: "chunk-[hash]",
});
await build({
  ...common,
  entryPoints: ["web/src/runtime/worker.js"],
  outfile: `${out}/worker.js`,
  external: ["./pyodide/pyodide.mjs"],
  loader: { ".py": "text" }, // the Python it runs as it starts (web/src/runtime/worker_start.py)
});
// The notebook drive's reader on its own, for the notebook's kernel (labs/frontends/notebook.py imports it).
await build({ ...common, entryPoints: ["web/src/work/drive.js"], outfile: `${out}/drive.js` });
