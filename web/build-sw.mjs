// Bundle the service worker into the built site's root, for one version of the course.
// Usage: node web/build-sw.mjs SITE_DIR VERSION   (run by scripts/build_site.py after MkDocs)
import { build } from "esbuild";

const [site, version] = process.argv.slice(2);
if (!site || !/^[0-9a-f]{8,64}$/.test(version || "")) throw new Error("usage: node web/build-sw.mjs SITE_DIR VERSION");
await build({
  entryPoints: ["web/src/runtime/sw.js"],
  outfile: `${site}/sw.js`,
  bundle: true,
  format: "iife",
  target: "es2022",
  minify: true,
  logLevel: "warning",
  define: { OFFLINE_VERSION: JSON.stringify(version) },
});
