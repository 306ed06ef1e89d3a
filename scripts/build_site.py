"""Build the static site into site/: vendor the runtime, bundle the page code, pack the course's Python, run MkDocs.

Everything the site needs at run time ends up under site/, served from one origin.
Generated files go to docs/assets/gen/ first (not committed), then MkDocs copies them.
After MkDocs, the build lists every file for the service worker (site/offline.json), bundles the
service worker into the site's root (site/sw.js) and writes precompressed copies (.br, .gz). Before that, every
page gets its Content-Security-Policy (scripts/page_policy.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the build's own modules, also when imported as scripts.*
import build_notebook
import page_policy
from buildkit import ROOT, STDLIB, download_wheels, python_files, run

sys.path.insert(0, str(ROOT))  # labs/, for the lessons' parsed tables
from labs.course.model import LESSONS_DIR, TABLES_FILE, parsed_tables
from labs.course.shipped import PACKAGES as PYTHON_PACKAGES
from labs.course.shipped import course_version

SITE = ROOT / "site"
GEN = ROOT / "docs" / "assets" / "gen"
NODE = ROOT / "node_modules"
# Pyodide's own files the site ships; its standard library goes as the course's (STDLIB), its modules compiled.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "pyodide-lock.json")
COURSE_FOLDER = "/home/pyodide/course"  # where the page's worker unpacks the course's Python (manifest.json)
COURSE_CACHE = ROOT / ".cache" / "course"
WHEEL_CACHE = ROOT / ".cache" / "wheels"
COMPRESS_CACHE = ROOT / ".cache" / "compressed"
OFFLINE_LIST = "offline.json"
SERVICE_WORKER = "sw.js"
PRECOMPRESSED = (".br", ".gz")


def npm_install() -> None:
    """Install the pinned JavaScript packages when package-lock.json is newer than node_modules."""
    marker = NODE / ".package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < (ROOT / "package-lock.json").stat().st_mtime:
        run("npm", "ci", "--no-audit", "--no-fund")


def wheels() -> list[str]:
    """Copy the pinned pure-Python wheels for Pyodide's Python 3.14 next to the bundles (downloaded once)."""
    target = GEN / "wheels"
    shutil.rmtree(target, ignore_errors=True)  # a wheel dropped from the list leaves the site too
    target.mkdir(parents=True)
    names = []
    for wheel in download_wheels(ROOT / "requirements-wheels.txt", WHEEL_CACHE):
        shutil.copy2(wheel, target / wheel.name)
        names.append(wheel.name)
    return names


def python_bundle() -> tuple[str, str]:
    """Zip the course's Python packages; answer (file name relative to gen/, course version)."""
    files = python_files(PYTHON_PACKAGES)
    version = course_version(ROOT, files)
    target = GEN / "py"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    name = f"py/course-{version}.zip"
    cached = COURSE_CACHE / f"course-{version}-{pyodide_version()}-stored.zip"
    if not cached.exists():
        COURSE_CACHE.mkdir(parents=True, exist_ok=True)
        building = cached.with_suffix(".part")
        # Stored, not deflated: the worker writes its files with no inflating (web/src/runtime/unzip.js), and the
        # host's compression of the whole file (a precompressed copy here) makes it smaller than deflate would.
        with zipfile.ZipFile(building, "w", zipfile.ZIP_STORED) as archive:
            for path in files:
                archive.write(path, path.relative_to(ROOT).as_posix())
            lessons = LESSONS_DIR.relative_to(ROOT).as_posix()
            archive.writestr(f"{lessons}/{TABLES_FILE}", parsed_tables())  # the worker reads these, not the TOML
        run("node", "web/precompile.mjs", str(building), COURSE_FOLDER)  # adds the bytecode the page imports
        building.replace(cached)
    shutil.copy2(cached, GEN / name)
    return name, version


def compiled_stdlib(bundle: str, version: str, wheel_names: list[str]) -> None:
    """Write Pyodide's standard library with the modules a start imports as bytecode (web/precompile-stdlib.mjs)
    to gen/STDLIB. Which modules those are depends on the course and on the Python the worker starts with
    (web/src/runtime/worker_start.py): cached per both."""
    start = hashlib.sha256((ROOT / "web" / "src" / "runtime" / "worker_start.py").read_bytes()).hexdigest()[:8]
    cached = COURSE_CACHE / f"stdlib-{version}-{start}-{pyodide_version()}.zip"
    if not cached.exists():
        COURSE_CACHE.mkdir(parents=True, exist_ok=True)
        building = cached.with_suffix(".part")
        run("node", "web/precompile-stdlib.mjs", str(NODE / "pyodide" / "python_stdlib.zip"), str(GEN / bundle),
            COURSE_FOLDER, str(building), *(str(GEN / "wheels" / name) for name in wheel_names))
        building.replace(cached)
    shutil.copy2(cached, GEN / STDLIB)


def built_snapshot(bundle: str, version: str, wheel_names: list[str]) -> dict[str, object]:
    """Make the memory snapshot a first start of Python begins from (web/make-snapshot.mjs), gzipped, into gen/py/
    under the hash of its bytes; answer its place and size for the manifest. It holds Python's memory after the
    worker's start steps, on the compiled standard library: cached per course version, those steps and Pyodide."""
    steps = b"".join((ROOT / "web" / name).read_bytes()
                     for name in ("src/runtime/worker_start.py", "src/runtime/python-start.js", "make-snapshot.mjs"))
    inputs = hashlib.sha256(steps + (GEN / STDLIB).read_bytes()).hexdigest()[:12]
    cached = COURSE_CACHE / f"snapshot-{version}-{inputs}-{pyodide_version()}.gz"
    if not cached.exists():
        COURSE_CACHE.mkdir(parents=True, exist_ok=True)
        building = cached.with_suffix(".part")
        run("node", "web/make-snapshot.mjs", str(GEN / STDLIB), str(GEN / bundle), COURSE_FOLDER, str(building),
            *(str(GEN / "wheels" / name) for name in wheel_names))
        building.replace(cached)
    data = cached.read_bytes()
    path = f"py/start-{hashlib.sha256(data).hexdigest()[:12]}.gz"
    for old in (GEN / "py").glob("start-*.gz"):
        old.unlink()  # one snapshot in the site: the last build's goes
    shutil.copy2(cached, GEN / path)
    return {"path": path, "size": len(data)}


def pyodide_version() -> str:
    """The version of the vendored Pyodide (its npm package)."""
    return str(json.loads((NODE / "pyodide" / "package.json").read_text())["version"])


def vendor() -> None:
    """Copy Pyodide's runtime files, viz.js and KaTeX next to the bundles."""
    target = GEN / "pyodide"
    shutil.rmtree(target, ignore_errors=True)  # a file dropped from the list leaves the site too
    target.mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(NODE / "pyodide" / name, target / name)
    shutil.copy2(NODE / "@viz-js" / "viz" / "dist" / "viz.js", GEN / "viz.js")
    katex = GEN / "katex"  # its style sheet and fonts: the math itself is rendered at build time
    shutil.rmtree(katex, ignore_errors=True)
    katex.mkdir(parents=True)
    shutil.copy2(NODE / "katex" / "dist" / "katex.min.css", katex / "katex.min.css")
    shutil.copytree(NODE / "katex" / "dist" / "fonts", katex / "fonts")


def course_release(version: str, previous: Path, now: Callable[[], float] = time.time) -> int:
    """The course's release: a number that orders the builds of the course, which its version (a digest) cannot.

    It is the time (in seconds) this version was built first since the build before it, as ``previous`` (the
    last build's manifest) tells: building the same version again keeps its release, and any other version, an
    older one built again included, gets a later one than every build before it. The page stores it with each
    of the learner's pieces, so that a tab on an older build never writes over a newer build's work.
    """
    try:
        last = json.loads(previous.read_text())
    except (OSError, ValueError):
        last = {}
    release = last.get("release") if isinstance(last, dict) else None
    if not isinstance(release, int) or isinstance(release, bool):
        return int(now())
    return release if last.get("version") == version else max(int(now()), release + 1)


def boot_manifest(bundle: str, version: str, wheel_names: list[str], release: int,
                  snapshot: dict[str, object]) -> dict[str, object]:
    """What the worker reads first: the course version, Pyodide's, the files every boot downloads (with sizes),
    the snapshot a first start begins from (with its size: only such a start downloads it), and the folder the
    course's Python goes into (its bytecode was compiled there); and the course's release, which the site's
    course.json carries (site_hooks/ember_pages.py)."""
    wheel_paths = [f"wheels/{name}" for name in wheel_names]
    downloads = [f"pyodide/{name}" for name in PYODIDE_FILES] + [STDLIB, *wheel_paths, bundle]
    return {"version": version, "release": release, "pyodide": pyodide_version(), "bundle": bundle,
            "folder": COURSE_FOLDER, "wheels": wheel_names, "snapshot": snapshot,
            "sizes": {path: (GEN / path).stat().st_size for path in downloads}}


def offline_listing(site: Path) -> dict[str, object]:
    """Every file of the built site, with size and content hash, for the service worker; its version hashes them all.

    The notebook app's files are a part of their own ("notebook"): the service worker saves them once the learner
    has opened the notebook, not for every learner. Its service workers are never saved (a browser fetches a
    service worker itself), nor what the app never asks for (build_notebook.NOT_SAVED)."""
    skipped = {OFFLINE_LIST, SERVICE_WORKER}
    app = build_notebook.APP_FOLDER + "/"
    not_saved = {app + name for name in build_notebook.NOT_SAVED}
    files: list[dict[str, object]] = []
    notebook: list[dict[str, object]] = []
    for path in sorted(site.rglob("*")):
        relative = path.relative_to(site).as_posix()
        if not path.is_file() or relative in skipped or relative in not_saved or path.suffix == ".map":
            continue
        if path.suffix in PRECOMPRESSED and path.with_suffix("").exists():
            continue  # a precompressed copy: the server picks it, the worker asks for the file itself
        (notebook if relative.startswith(app) else files).append(
            {"path": relative, "size": path.stat().st_size, "hash": hashlib.sha256(path.read_bytes()).hexdigest()[:16]})
    version = hashlib.sha256(json.dumps([files, notebook], sort_keys=True).encode()).hexdigest()[:16]
    return {"version": version, "files": files, "notebook": notebook}


def offline(site: Path = SITE) -> str:
    """List the site's files, bundle the service worker for that version, precompress; answer the version."""
    listing = offline_listing(site)
    (site / OFFLINE_LIST).write_text(json.dumps(listing, indent=1) + "\n")
    run("node", "web/build-sw.mjs", str(site), str(listing["version"]))
    run("node", "web/compress.mjs", str(site), str(COMPRESS_CACHE))
    return str(listing["version"])


def main() -> None:
    """Build everything; the site ends up in site/."""
    print("== building the site", flush=True)
    GEN.mkdir(parents=True, exist_ok=True)
    npm_install()
    run("node", "web/build.mjs")
    vendor()
    bundle, version = python_bundle()
    wheel_names = wheels()
    compiled_stdlib(bundle, version, wheel_names)
    snapshot = built_snapshot(bundle, version, wheel_names)
    manifest = boot_manifest(bundle, version, wheel_names, course_release(version, GEN / "manifest.json"), snapshot)
    (GEN / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    run(sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet")
    run("node", "web/prerender-math.mjs", str(SITE))
    page_policy.apply(SITE)  # last of what changes the pages: it hashes their inline scripts
    build_notebook.build(SITE, NODE / "pyodide" / "pyodide-lock.json")
    site_version = offline()
    print(f"== site/ is ready (course version {version}, site version {site_version})", flush=True)


if __name__ == "__main__":
    main()
