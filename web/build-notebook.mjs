// Bundle the course's additions to the notebook app into its folder: the app's service worker (JupyterLite's own,
// imported, with the course's offline copy in front: web/src/runtime/notebook-sw.js) and the script its pages load first
// (web/src/runtime/notebook-page.js). Usage: node web/build-notebook.mjs APP_DIR JUPYTERLITE_VERSION KERNEL_WORKERS_JSON
// (run by scripts/build_notebook.py, after `jupyter lite build` has moved JupyterLite's worker aside).
import { build } from "esbuild";

const [app, version, workers] = process.argv.slice(2);
if (!app || !/^[0-9][0-9A-Za-z.+-]*$/.test(version || "") || !workers)
  throw new Error("usage: node web/build-notebook.mjs APP_DIR JUPYTERLITE_VERSION KERNEL_WORKERS_JSON");
const { comlink, coincident } = JSON.parse(workers); // the kernel's worker in the app: without, with shared memory
if (typeof comlink !== "string" || typeof coincident !== "string") throw new Error("KERNEL_WORKERS_JSON: two paths");
/** @type {import("esbuild").BuildOptions} */
const common = { bundle: true, format: "iife", target: "es2022", minify: true, logLevel: "warning" };
await build({ ...common, entryPoints: ["web/src/runtime/notebook-sw.js"], outfile: `${app}/service-worker.js` });
await build({
  ...common,
  entryPoints: ["web/src/runtime/notebook-page.js"],
  outfile: `${app}/ember-notebook.js`,
  define: { JUPYTERLITE_VERSION: JSON.stringify(version), KERNEL_WORKERS: JSON.stringify({ comlink, coincident }) },
});
