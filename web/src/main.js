// Page entry, loaded once per visit. It starts Python first (a lesson page names its lesson in its
// head), then loads the rest of the page code. With instant navigation the theme swaps page content
// without a reload, so this one worker serves every lesson of the visit.
import { startOffline } from "./offline.js";
import { Runtime } from "./runtime.js";

const runtime = new Runtime(new URL("worker.js", import.meta.url).href);
if (location.protocol !== "file:") startOffline(runtime);
if (document.querySelector('meta[name="ember-lesson"]') && location.protocol !== "file:") runtime.start();

async function attach() {
  const page = await import("./page.js");
  page.start(runtime);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach);
else attach();
