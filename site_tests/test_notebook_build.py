"""The built notebook app: its own Pyodide settings, and a lock that lists exactly the wheels it ships."""

from __future__ import annotations

import gzip
import hashlib
import json
import zipfile

from .harness import SITE

APP = SITE / "notebook"
KERNEL = "@jupyterlite/pyodide-kernel-extension:kernel"
NEEDED_AT_START = {"micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython"}


def config() -> dict:
    return json.loads((APP / "jupyter-lite.json").read_text())["jupyter-config-data"]


def test_the_kernel_loads_the_courses_pyodide_and_never_an_index() -> None:
    kernel = config()["litePluginSettings"][KERNEL]
    assert kernel["pyodideUrl"] == "./../assets/gen/pyodide/pyodide.mjs"
    assert (APP / ".." / "assets" / "gen" / "pyodide" / "pyodide.mjs").is_file()
    assert kernel["loadPyodideOptions"]["stdLibURL"] == "./../assets/gen/py/stdlib.zip"  # the lessons' own
    assert (APP / ".." / "assets" / "gen" / "py" / "stdlib.zip").is_file()
    assert kernel["disablePyPIFallback"] is True
    assert config()["contentsStorageName"] == "ember-notebook"
    packages = kernel["loadPyodideOptions"]["packages"]
    assert set(packages) >= NEEDED_AT_START  # loaded while Pyodide starts, none one by one afterwards
    assert "ember-course" in packages and "graphviz" in packages


def test_the_lock_lists_exactly_the_shipped_wheels_with_their_real_hashes() -> None:
    lock = json.loads((APP / "wheels" / "pyodide-lock.json").read_text())
    listed = {entry["file_name"]: entry for entry in lock["packages"].values()}
    shipped = {path.name for path in (APP / "wheels").glob("*.whl")}
    assert set(listed) == shipped
    for name, entry in listed.items():
        assert entry["sha256"] == hashlib.sha256((APP / "wheels" / name).read_bytes()).hexdigest(), name
        for dependency in entry["depends"]:
            assert dependency in lock["packages"], (name, dependency)
    assert set(config()["litePluginSettings"][KERNEL]["loadPyodideOptions"]["packages"]) == set(lock["packages"])


def test_the_course_wheel_carries_labs_and_the_finished_engine_but_no_importable_ember() -> None:
    (wheel,) = (APP / "wheels").glob("ember_course-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "labs/frontends/notebook.py" in names and "hx/dot.py" in names
    assert "labs/lessons/10-order-of-blame/lesson.toml" in names and "labs/lessons/10-order-of-blame/checks.py" in names
    assert not [name for name in names if name.endswith(("known_wrong.toml", "also_right.toml", "page.md"))]
    assert "labs/reference/scalar.py" in names
    assert not [name for name in names if name.startswith("ember/")]


def test_the_app_ships_its_notebooks_and_no_source_maps() -> None:
    assert not list(APP.rglob("*.map"))
    files = json.loads((APP / "api" / "contents" / "all.json").read_text())
    names = {item["name"] for item in files["content"]}
    assert {"L01.ipynb", "L10.ipynb", "L13.ipynb", "ember"} <= names


def test_the_notebooks_files_are_a_part_of_the_offline_listing_of_their_own() -> None:
    listing = json.loads((SITE / "offline.json").read_text())
    assert not [file for file in listing["files"] if file["path"].startswith("notebook/")]  # not for every learner
    saved = {file["path"] for file in listing["notebook"]}
    assert {"notebook/notebooks/index.html", "notebook/ember-notebook.js", "notebook/api/contents/all.json"} <= saved
    wheels = {f"notebook/wheels/{path.name}" for path in (APP / "wheels").glob("*.whl")}
    assert wheels <= saved
    assert all(path.startswith("notebook/") for path in saved)
    # Its service workers are fetched by the browser itself, never from a saved copy.
    assert not saved & {"notebook/service-worker.js", "notebook/jupyterlite-sw.js"}


def test_the_apps_pages_load_the_courses_script_first_and_jupyterlite_waits_for_it() -> None:
    worker = (APP / "service-worker.js").read_text()
    assert 'importScripts("jupyterlite-sw.js")' in worker  # JupyterLite's own, kept beside it
    assert "/sw-api.v1" in (APP / "jupyterlite-sw.js").read_text()  # its drive and input() protocol
    for app in ("notebooks", "edit", "tree"):
        html = (APP / app / "index.html").read_text()
        script, start = html.index('src="../ember-notebook.js'), html.index("await import(")
        assert script < html.index("<title>") and script < html.index("await window.emberNotebookReady;") < start
    assert not list((APP / "build").glob("fa-*.ttf")) and list((APP / "build").glob("fa-*.woff2"))


def test_the_kernel_starts_from_the_builds_snapshot_of_its_python() -> None:
    """The kernel's settings name the snapshot (its exact size), both of its workers carry the start hooks and
    their phase marks, and the snapshot is one of this Pyodide's (its header's magic number)."""
    options = config()["litePluginSettings"][KERNEL]["loadPyodideOptions"]
    snapshot = APP / options["emberSnapshotURL"].removeprefix("./")
    assert snapshot.name.startswith("python-") and snapshot.suffix == ".snapshot"  # named by its hash
    assert hashlib.sha256(snapshot.read_bytes()).hexdigest()[:12] == snapshot.stem.removeprefix("python-")
    memory = gzip.decompress(snapshot.read_bytes())  # gzipped by the build: small from any host
    assert len(memory) == options["emberSnapshotBytes"] > 3 * snapshot.stat().st_size
    assert int.from_bytes(memory[:4], "little") == 1886286592  # Pyodide's snapshot magic number
    assert not list(snapshot.parent.glob("*.br")) and not list(snapshot.parent.glob("*.gz"))  # no copies beside it
    assert options["emberFirst"] == ["ember-course"]
    workers = sorted((APP / "extensions/@jupyterlite/pyodide-kernel-extension/static").glob("*.worker.*.js"))
    assert len(workers) == 2
    for worker in workers:
        first, text = worker.read_text().split("\n", 1)
        # the settings it starts with before the kernel asks: the kernel's own, paths from the app's folder
        early = json.loads(first.removeprefix("self.__emberKernelEarly = ").removesuffix(";"))
        assert early["loadPyodideOptions"] == options
        assert early["pyodideUrl"] == config()["litePluginSettings"][KERNEL]["pyodideUrl"]
        assert (worker.parent / early["app"]).resolve() == APP.resolve()
        assert text.startswith("// Prepended to JupyterLite's Pyodide kernel worker")
        for hook in ("self.__emberKernel.boot(", 'before("execute")', "self.__emberKernel.after(", 'before("complete")',
                     'before("inspect")', 'performance.mark("kernel: initKernel")'):
            assert text.count(hook) == 1, (worker.name, hook)


def test_the_kernel_takes_the_worker_the_notebooks_page_made() -> None:
    """The kernel (in the page) asks for the worker made early before it makes one, in one place, and the page
    script that makes it names both of the kernel's workers by their built names."""
    static = APP / "extensions/@jupyterlite/pyodide-kernel-extension/static"
    chunks = [path.read_text() for path in static.glob("*.js") if ".worker." not in path.name]
    assert sum(text.count("window.__emberKernelWorker?.(") for text in chunks) == 1
    page_script = (APP / "ember-notebook.js").read_text()
    for worker in static.glob("*.worker.*.js"):
        assert worker.relative_to(APP).as_posix() in page_script
