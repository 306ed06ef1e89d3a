"""The course's additions to the built notebook app, so that it opens offline after one visit and says how its start
goes (run by build_notebook.py right after `jupyter lite build`).

- JupyterLite's service worker is kept, unchanged, as ``jupyterlite-sw.js``; the app's ``service-worker.js`` (the
  address JupyterLite registers) becomes web/src/runtime/notebook-sw.js, which imports it and answers every other
  request from the course's offline cache (web/src/runtime/sw.js saves the notebook's files there once the learner
  opened it).
- Each app page (notebooks, edit, tree) loads ``ember-notebook.js`` (web/src/runtime/notebook-page.js) first, and
  JupyterLite's own start waits for it (``window.emberNotebookReady``): it keeps JupyterLite from unregistering
  the course's service worker, asks for the notebook to be saved, and shows Python's status; in the notebooks
  page it makes the kernel's worker at once, which the kernel takes when it starts.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from buildkit import run

SERVICE_WORKER = "service-worker.js"
JUPYTERLITE_WORKER = "jupyterlite-sw.js"
PAGE_SCRIPT = "ember-notebook.js"
PAGES = ("notebooks", "edit", "tree")
# JupyterLite's start in each app page: an inline script that imports config-utils.js.
START = re.compile(r"(\n(\s*))(await import\(\s*'\.\./config-utils\.js)")
WAIT = "await window.emberNotebookReady;"


def app_version(app: Path) -> str:
    """JupyterLite's version, as its pages know it (it keys its service worker's record by it)."""
    return json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["appVersion"]


def add_page_script(page: Path, stamp: str) -> None:
    """Load the course's script first in an app page, and make JupyterLite's start wait for it."""
    html = page.read_text(encoding="utf-8")
    if WAIT in html:
        return
    html, waits = START.subn(lambda m: f"{m[1]}{WAIT}{m[1]}{m[3]}", html, count=1)
    head = html.count("<head>")
    if waits != 1 or head != 1:
        raise SystemExit(f"{page}: JupyterLite's page changed (its start or head not found): check notebook_offline.py")
    tag = f'<script src="../{PAGE_SCRIPT}?_={stamp}"></script>'
    page.write_text(html.replace("<head>", f"<head>\n    {tag}", 1), encoding="utf-8")


def add_start_chunks(page: Path, src: str) -> None:
    """Load the app's start chunks, packed into the script ``src``, in an app page: right after the course's script,
    before JupyterLite's start."""
    html = page.read_text(encoding="utf-8")
    html, found = re.subn(rf'(<script src="\.\./{re.escape(PAGE_SCRIPT)}\?_=\w+"></script>)',
                          lambda m: f'{m[1]}\n    <script src="{src}"></script>', html, count=1)
    if found != 1:
        raise SystemExit(f"{page}: the course's script is not in it: check notebook_offline.py")
    page.write_text(html, encoding="utf-8")


def add_offline(app: Path, kernel_workers: dict[str, str]) -> None:
    """Put the course's service worker and page script into the built app ``app`` (site/notebook/); the page script
    makes the kernel's worker (``kernel_workers``: its two builds, "comlink" and "coincident", paths in the app)."""
    (app / SERVICE_WORKER).replace(app / JUPYTERLITE_WORKER)
    if sorted(kernel_workers) != ["coincident", "comlink"]:
        raise SystemExit(f"expected the kernel's two workers (comlink, coincident), found {sorted(kernel_workers)}")
    run("node", "web/build-notebook.mjs", str(app), app_version(app), json.dumps(kernel_workers))
    digest = hashlib.sha256((app / PAGE_SCRIPT).read_bytes()).hexdigest()[:12]
    for name in PAGES:
        add_page_script(app / name / "index.html", digest)
