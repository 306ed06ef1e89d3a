// Bundle the page code (with CodeMirror) and the worker into docs/assets/gen/.
import { build } from "esbuild";

const common = { bundle: true, format: "esm", target: "es2022", minify: true, sourcemap: false, logLevel: "warning" };

await build({ ...common, entryPoints: ["web/src/main.js"], outfile: "docs/assets/gen/ember.js" });
await build({
  ...common,
  entryPoints: ["web/src/worker.js"],
  outfile: "docs/assets/gen/worker.js",
  external: ["./pyodide/pyodide.mjs"],
});
