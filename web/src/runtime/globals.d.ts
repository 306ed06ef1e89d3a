// What the page's scripts share through the window: the runtime boot.js makes, the theme's script that boot.js
// holds until Python is ready (settled once it ran), and the theme's own stream of pages (Material for MkDocs).
import type { Runtime } from "./runtime.js";

declare global {
  interface Window {
    emberRuntime?: Runtime;
    emberTheme?: Promise<void>;
    document$?: { subscribe(next: () => void): unknown };
  }
}
