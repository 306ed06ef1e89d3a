// @ts-check
// Page entry, loaded once per visit. Python's runtime was made, and on a lesson page started, by the
// script at the top of the head (boot.js); this loads the rest of the page code. With instant navigation
// the theme swaps page content without a reload, so this one worker serves every lesson of the visit.
import { startOffline } from "../runtime/offline.js";

const runtime = window.emberRuntime;
if (!runtime) throw new Error("ember: the page's head lacks its first script (boot.js), so Python has no runtime");
if (location.protocol !== "file:") startOffline(runtime);

/** Load the page's code and mount the page on this visit's runtime. */
async function attach() {
  const page = await import("./page.js");
  page.start(/** @type {import("../runtime/runtime.js").Runtime} */ (runtime));
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach, { once: true });
else attach();
