"""Record which chunks of JupyterLite's app the notebooks page loads before a notebook's first cell is shown, into
scripts/notebook-start-chunks.json (scripts/build_notebook.py packs them into one file).

Run after a change of JupyterLite's version, on a site built with that version (whose start chunks are then not packed:
the build says so): ``.venv/bin/python bench/record_notebook_chunks.py``, then build the site again.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
# The build's scripts import each other by their bare names (they run as scripts): so are they here, from scripts/,
# which mypy's run over bench/ does not look in (it checks them in its own run).
import build_notebook  # type: ignore[import-not-found]  # noqa: E402 - needs scripts/ on sys.path first
import notebook_offline  # type: ignore[import-not-found]  # noqa: E402

from site_tests.harness import SITE, launch, served  # noqa: E402

NOTEBOOK = "notebook/notebooks/index.html?path=L10.ipynb"
CELL = ".jp-Notebook .jp-CodeCell .jp-InputArea-editor .cm-content"
CHUNK = re.compile(r"/notebook/build/([0-9A-Za-z_]+)\.[0-9a-f]+\.js$")


def main() -> None:
    """Open lesson 10's notebook twice (the first visit hands the page to the app's service worker), and write down
    the app's chunks asked for until its first cell is shown."""
    app = SITE / build_notebook.APP_FOLDER
    if list((app / "build").glob(f"{build_notebook.START_PACK}.*.js")):
        raise SystemExit("the built app packs its start chunks already: build it with the new JupyterLite first")
    chunks: list[str] = []
    with sync_playwright() as playwright, served(isolate=True) as base:
        browser = launch(playwright)
        context = browser.new_context()
        asked: list[str] = []
        for _ in range(2):
            asked.clear()
            page = context.new_page()
            page.on("request", lambda request: asked.append(request.url.split("?")[0]))
            page.goto(base + NOTEBOOK)
            page.locator(CELL).first.wait_for(state="visible", timeout=180_000)
            chunks = sorted({match[1] for url in asked if (match := CHUNK.search(url))})
            page.close()
        browser.close()
    recorded = json.loads(build_notebook.START_CHUNKS.read_text())
    recorded.update(jupyterlite=notebook_offline.app_version(app), chunks=chunks)
    build_notebook.START_CHUNKS.write_text(json.dumps(recorded, indent=1) + "\n")
    print(f"{len(chunks)} chunks written to {build_notebook.START_CHUNKS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
