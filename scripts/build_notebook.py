"""Build the notebook app into site/notebook/: JupyterLite with the Pyodide kernel, on the course's own Pyodide.

Run by build_site.py after MkDocs (which empties site/). What it makes:

- the lesson notebooks and the starting ember/ files, generated from the lessons' data
  (labs/frontends/notebook_files.py), as the app's built contents;
- site/notebook/, built by `jupyter lite build` from .venv-notebook (an environment of its own:
  every notebook extension installed beside JupyterLite would be bundled into the app), with only
  the notebook, editor and file-browser apps and no source maps;
- site/notebook/wheels/: every wheel the kernel loads as it starts (the pinned ones of
  requirements-notebook-wheels.txt, the kernel's own, and the course's Python as one wheel) with a
  Pyodide lock that lists exactly those files and their real hashes. The kernel loads them all while
  Pyodide starts, and never asks an index or a CDN;
- site/notebook/kernel/python.snapshot: a memory snapshot of the kernel's Python with IPython, the kernel and the
  course imported (web/notebook/kernel-snapshot.mjs, run in Node), which the kernel's workers start from
  (web/notebook/kernel-start.js, hooked into them here), loading the wheels' files after the first cell.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import notebook_offline
from buildkit import ROOT, STDLIB, download_wheels, pins, python_files, run

LITE_VENV = ROOT / ".venv-notebook"
WORK = ROOT / ".cache" / "notebook"  # the lite dir: jupyter-lite.json and the contents
WHEEL_CACHE = ROOT / ".cache" / "notebook-wheels"
REQUIREMENTS = ROOT / "requirements-notebook-wheels.txt"
KERNEL_WHEELS = LITE_VENV / "share/jupyter/labextensions/@jupyterlite/pyodide-kernel-extension/static/pypi"
KERNEL_OWN = ("piplite", "pyodide_kernel", "ipykernel")  # shipped inside the kernel's extension
APPS = ("notebooks", "edit", "tree")
WHEELS = "wheels"
LOCK = "pyodide-lock.json"
COURSE_WHEEL = "ember-course"
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
PYODIDE_URL = "./../assets/gen/pyodide/pyodide.mjs"  # the course's own; "./" resolves against the app
STDLIB_URL = f"./../assets/gen/{STDLIB}"  # the lesson pages' standard library, its start modules compiled
DOIT_CACHE = ".jupyterlite.doit.db"
KERNEL_STATIC = Path("extensions/@jupyterlite/pyodide-kernel-extension/static")  # inside the built app
# The kernel's worker starts in these steps (both of its builds: with and without shared memory), each awaited in turn.
KERNEL_STEPS = ("initRuntime", "initFilesystem", "initPackageManager", "initKernel", "initGlobals")
SNAPSHOT = "kernel/python.snapshot"  # gzipped, in the app (named by its hash there): its Python with IPython imported
SNAPSHOT_MAKER = ROOT / "web" / "notebook" / "kernel-snapshot.mjs"
KERNEL_START = ROOT / "web" / "notebook" / "kernel-start.js"  # prepended to the kernel's workers
FIRST_FILES = [COURSE_WHEEL]  # wheels whose files go in before the first cell (the others after it)
# Where the kernel's workers call kernel-start.js's hooks: (pattern, replacement), each found once in each worker.
KERNEL_HOOKS = (
    (r"this\._pyodide=await (\w+)\(\{indexURL:", r"this._pyodide=await self.__emberKernel.boot(\1,{indexURL:"),
    (r"async execute\((\w+),(\w+)\)\{await this\.setup\(\2\);",
     r'async execute(\1,\2){await self.__emberKernel.before("execute"),await this.setup(\2);'),
    (r"let (\w+)=await this\._kernel\.run\((\w+)\.code\)",
     r"let \1=await self.__emberKernel.after(this._kernel.run(\2.code))"),
    (r"async complete\((\w+),(\w+)\)\{await this\.setup\(\2\);",
     r'async complete(\1,\2){await self.__emberKernel.before("complete"),await this.setup(\2);'),
    (r"async inspect\((\w+),(\w+)\)\{await this\.setup\(\2\);",
     r'async inspect(\1,\2){await self.__emberKernel.before("inspect"),await this.setup(\2);'),
)
# Where the kernel (in the page) makes its worker: it takes the one the notebook's page made early, if any.
KERNEL_WORKER_HOOK = (
    r'let (\w+)=(\w+)=>new Worker\(\2,\{type:"module"\}\);return crossOriginIsolated',
    r'let \1=\2=>window.__emberKernelWorker?.(\2)||new Worker(\2,{type:"module"});return crossOriginIsolated',
)
# The chunks the notebooks page loads as it starts (recorded in scripts/notebook-start-chunks.json), packed into one
# file that every app page loads first: one request instead of about ninety, each through the app's service worker.
START_CHUNKS = ROOT / "scripts" / "notebook-start-chunks.json"
START_PACK = "ember-start"  # build/ember-start.<hash>.js
LEFTOVERS = ("rspack.config.js", "rspack.config.analyze.js", "rspack.config.watch.js", "package.json")
# Files of the app that the course's service worker does not save for offline use: its service workers (a browser
# fetches those itself) and the licences of JupyterLite's parts (shipped, never asked for by the app).
NOT_SAVED = (notebook_offline.SERVICE_WORKER, notebook_offline.JUPYTERLITE_WORKER, "build/third-party-licenses.json")
# Font Awesome in the formats older browsers needed: every browser that runs the app takes the .woff2 its style
# sheet names first (2.6 MB of fonts, and their compressed copies, never asked for).
OLD_FONTS = ("fa-*.eot", "fa-*.svg", "fa-*.ttf", "fa-*.woff")
# Plugins the course's notebook never uses, left out of every app page (JupyterLab's disabledExtensions): each one the
# app starts costs its activation, and each one with settings the compiling of its schema's validator (the slowest
# part of the app's start). Outputs the course never shows (JSON, JavaScript, Mermaid, Vega, audio, video), the
# language server client, the log console, the cell tags and metadata forms (and the notebook tools they hang on),
# and the inline completer (Tab completion stays): nothing a learner reaches through the course. Menus, the file
# browser, themes, completion, the tooltip, search and the table of contents stay.
DISABLED_PLUGINS = (
    "@jupyterlab/javascript-extension",
    "@jupyterlab/json-extension",
    "@jupyterlab/mermaid-extension",
    "@jupyterlab/vega5-extension",
    "@jupyterlab/audio-extension",
    "@jupyterlab/video-extension",
    "@jupyterlab/lsp-extension",
    "@jupyterlab/notebook-extension:language-server",  # these three need the language server client
    "@jupyterlab/fileeditor-extension:language-server",
    "@jupyterlite/application-extension:lsp-connection-manager",
    "@jupyterlab/logconsole-extension",
    "@jupyterlab/celltags-extension",
    "@jupyterlab/metadataform-extension",
    "@jupyterlab/notebook-extension:update-raw-mimetype",  # needs the metadata forms
    "@jupyterlab/notebook-extension:tools",
    "@jupyterlab/completer-extension:inline-completer",
    # "Not Trusted" in the menu bar: the course's notebooks come without outputs, so there is nothing to trust, and
    # the word only alarms a learner (and at a phone's width it did not fit).
    "@jupyter-notebook/notebook-extension:trusted",
    # Parts of JupyterLab a course notebook has no use for: terminals (JupyterLite has none to open), the workspaces
    # menu and sidebar (JupyterLite's own workspace router stays: its URL resolver needs it), viewers of CSV, PDF and
    # HTML files (the learner's drive holds notebooks and ember/*.py), and the REPL app's plugins (the REPL is not
    # built). Each costs its activation and, with settings, its validator's compiling: in alternating runs of
    # `bench/site.py --notebook` (bench/RESULTS.md, 2026-12-07 05:05), a warm visit's first output came 0.17 and 0.27 s
    # sooner; a cold one's differences were within the machine's noise.
    "@jupyterlab/terminal-extension",
    "@jupyterlab/workspaces-extension",
    "@jupyterlab/csvviewer-extension",
    "@jupyterlab/pdf-extension",
    "@jupyterlab/htmlviewer-extension",
    "@jupyterlite/repl-extension",
)
# Federated extensions installed beside JupyterLite that the app need not load: jupyterlab_pygments (Pygments' colours
# for HTML outputs that nbconvert makes; the course's outputs are its own).
DROPPED_EXTENSIONS = ("jupyterlab_pygments",)
# JupyterLite's settings fetch all their schemas (build/schemas/all.json, 138 kB, and all_federated.json) again for
# every plugin whose settings are asked for, eight times a visit: each file is fetched once per page, read anew each
# time (so no caller shares another's objects).
SETTINGS_FETCH = (
    r"async _getAll\((\w+)\)\{var (\w+);"
    r"let (\w+)=null!=\(\2=(\w+)\.PageConfig\.getOption\(\"settingsUrl\"\)\)\?\2:\"/\";"
    r"return await \(await fetch\((\w+)\.URLExt\.join\(\3,\1\)\)\)\.json\(\)\}",
    r'async _getAll(\1){var \2;let \3=null!=(\2=\4.PageConfig.getOption("settingsUrl"))?\2:"/",'
    r"k=\5.URLExt.join(\3,\1),c=self.__emberSettings||(self.__emberSettings=new Map);"
    r"c.has(k)||c.set(k,fetch(k).then(r=>{if(!r.ok)throw Error(`${k}: ${r.status}`);return r.text()}));"
    r"try{return JSON.parse(await c.get(k))}catch(e){c.delete(k);throw e}}",
)
# A notebook's kernel was sometimes not started but asked for ("Select Kernel", a dialog a learner has no reason to
# meet: the course has one kernel), and a Shift+Enter pressed as soon as the cells showed was sometimes dropped without
# a word (its prompt stayed "[ ]"). Two races, each mended where it is decided:
# - JupyterLab chooses the kernel to start from the list of kernels on offer, and a start that came before that list
#   had arrived found none to choose: a start now waits for the list (its first request, which never fails).
KERNEL_START_WAITS_FOR_SPECS = (
    r"async startKernel\(\)\{let (\w+),(\w+)=this\.kernelPreference;",
    r"async startKernel(){await this.specsManager.ready;let \1,\2=this.kernelPreference;",
)
# - The cells show a moment before the notebook starts its kernel (JupyterLab first lists the notebook's checkpoints,
#   then sets the kernel the notebook names and starts it); a cell run in that moment tried to start a kernel itself,
#   before the notebook had named one: JupyterLab asked the learner to choose, or the run was lost. A cell run with
#   no kernel in its session now waits (at most 30 s) for the notebook's own start to begin, then for it to end (the
#   session's initialize(): a second call answers the first's promise), and then runs. Only if there is still no
#   kernel, and that start did not already ask (a dialog of its own), does it start one or ask, as before (after
#   Kernel → Shut Down, say).
RUN_WAITS_FOR_START = (
    r"if\((\w+)\.hasNoKernel&&await \1\.startKernel\(\)&&(\w+)&&await \2\.selectKernel\(\1\),\1\.hasNoKernel\)",
    r"let __emberAsked=!1;if(!(\1.session&&\1.session.kernel)){for(let __emberWait=0;!(\1.session&&\1.session.kernel)"
    r"&&!\1._initializing&&!\1.isDisposed&&__emberWait<600;__emberWait++)"
    r"await new Promise(__emberGo=>setTimeout(__emberGo,50));"
    r"\1.session&&\1.session.kernel||(__emberAsked=await \1.initialize().catch(()=>!0))}"
    r"if(\1.hasNoKernel&&!__emberAsked&&await \1.startKernel()&&\2&&await \2.selectKernel(\1),\1.hasNoKernel)",
)
# The browser tab's title: Notebook's own plugin names the notebook ("L10"), and JupyterLab's workspace state, saved as
# the learner works, put back the app's name ("ember notebooks") each time, so every notebook tab read the same. The
# state's title is now left alone while a notebook or file is open.
TAB_TITLE_KEEPS_THE_FILE = (
    r'(currentWidget:(\w+)\}=[^`]{0,400}?\2 instanceof (\w+)\.DocumentWidget\?.{0,600}?)'
    r'else document\.title=(`\$\{(\w+)\.PageConfig\.getOption\("appName"\)\|\|"JupyterLab"\}'
    r'\$\{"default"===(\w+)\?"":` \(\$\{\6\}\)`\}`)\}',
    r"\1else \2 instanceof \3.DocumentWidget||(document.title=\4)}",
)
# JupyterLab's and JupyterLite's code mended in the built app: each pattern must be found exactly once in its chunks.
JUPYTERLAB_MENDS = (
    ("SETTINGS_FETCH", SETTINGS_FETCH),
    ("KERNEL_START_WAITS_FOR_SPECS", KERNEL_START_WAITS_FOR_SPECS),
    ("RUN_WAITS_FOR_START", RUN_WAITS_FOR_START),
    ("TAB_TITLE_KEEPS_THE_FILE", TAB_TITLE_KEEPS_THE_FILE),
)

sys.path.insert(0, str(ROOT))
from labs.course.model import REFERENCE_DIR, load_course  # noqa: E402 - needs the repository on sys.path first
from labs.course.pages import lesson_pages  # noqa: E402
from labs.frontends.notebook import STORAGE_NAME, VIZ_FROM_APP  # noqa: E402 - the drive's IndexedDB database; the lesson pages write there too
from labs.frontends.notebook_files import APP_FOLDER, notebook_contents  # noqa: E402


def write_contents(target: Path) -> None:
    """The app's built contents: one notebook per lesson with a lab, and ember/ as it starts."""
    shutil.rmtree(target, ignore_errors=True)
    for path, text in notebook_contents(load_course(), lesson_pages()).items():
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_text(text, encoding="utf-8")


def _record_line(name: str, data: bytes) -> list[str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def course_wheel(target: Path) -> Path:
    """The course's Python (labs, hx, and the finished engine as labs/reference/) as one wheel.

    The finished engine goes inside labs/ so that the only `ember` the kernel can import is the learner's.
    """
    files = {path.relative_to(ROOT).as_posix(): path.read_bytes() for path in python_files(("labs", "hx"))}
    for path in sorted(REFERENCE_DIR.glob("*.py")):
        files[f"labs/reference/{path.name}"] = path.read_bytes()
    version = "0.1.0+" + hashlib.sha256(b"".join(name.encode() + data for name, data in files.items())).hexdigest()[:12]
    info = f"ember_course-{version}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {COURSE_WHEEL}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: ember build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in files.items():
        writer.writerow(_record_line(name, data))
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
    wheel = target / f"ember_course-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    return wheel


def _canonical(name: str) -> str:
    return name.replace("_", "-").lower()


def pyodide_lock(wheels: list[Path], upstream: dict) -> dict:
    """A lock for exactly these wheels: real names and hashes; imports and dependencies as Pyodide's lock has them."""
    packages = {}
    shipped = {_canonical(w.name.split("-")[0]) for w in wheels}
    for wheel in wheels:
        name, version = wheel.name.split("-")[:2]
        key = _canonical(name)
        known = upstream["packages"].get(key, {})
        imports = ["labs", "hx"] if key == COURSE_WHEEL else known.get("imports", [name])
        packages[key] = {
            "name": key, "version": version, "file_name": wheel.name, "install_dir": "site",
            "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(), "package_type": "package",
            "imports": imports,
            "depends": [_canonical(d) for d in known.get("depends", []) if _canonical(d) in shipped],
            "unvendored_tests": False, "shared_library": False,
        }
    return {"info": upstream["info"], "packages": packages}


def lite_config(packages: list[str]) -> dict:
    """jupyter-lite.json: a fixed drive name, the course's Pyodide and standard library, the shipped wheels, no
    index."""
    kernel = {
        "pyodideUrl": PYODIDE_URL,
        "disablePyPIFallback": True,
        "loadPyodideOptions": {"lockFileURL": f"./{WHEELS}/{LOCK}", "stdLibURL": STDLIB_URL, "packages": packages},
    }
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "ember notebooks",
            "appUrl": "./notebooks",
            # The tab's icon: the course's own (JupyterLite names one of its JupyterLab app, which is not built).
            "faviconUrl": "./favicon.ico",
            "contentsStorageName": STORAGE_NAME,
            "disabledExtensions": list(DISABLED_PLUGINS),
            "settingsStorageName": f"{STORAGE_NAME}-settings",
            "litePluginSettings": {KERNEL_PLUGIN: kernel},
            # The app's light or dark theme follows the learner's system, as the lessons' scheme does.
            "settingsOverrides": {"@jupyterlab/apputils-extension:themes": {"adaptive-theme": True}},
        },
    }


def build(site: Path, upstream_lock: Path) -> None:
    """Build the notebook app into ``site``/notebook/ (after MkDocs has built the rest of ``site``)."""
    print("== building the notebook app", flush=True)
    WORK.mkdir(parents=True, exist_ok=True)
    write_contents(WORK / "content")
    staged = WORK / WHEELS
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir()
    wheels = [shutil.copy2(w, staged / w.name) for w in download_wheels(REQUIREMENTS, WHEEL_CACHE)]
    for name in KERNEL_OWN:
        (found,) = KERNEL_WHEELS.glob(f"{name}-*.whl")
        wheels.append(shutil.copy2(found, staged / found.name))
    wheels.append(course_wheel(staged))
    lock = pyodide_lock([Path(w) for w in wheels], json.loads(upstream_lock.read_text()))
    expected = set(pins(REQUIREMENTS)) | set(KERNEL_OWN) | {COURSE_WHEEL.replace("-", "_")}
    if {key.replace("-", "_") for key in lock["packages"]} != expected:
        raise SystemExit(f"the notebook's lock lists {sorted(lock['packages'])}, expected {sorted(expected)}")
    (staged / LOCK).write_text(json.dumps(lock, indent=1) + "\n")
    (WORK / "jupyter-lite.json").write_text(json.dumps(lite_config(sorted(lock["packages"])), indent=2) + "\n")
    target = site / APP_FOLDER
    shutil.rmtree(target, ignore_errors=True)
    apps = [part for app in APPS for part in ("--apps", app)]
    (WORK / DOIT_CACHE).unlink(missing_ok=True)  # it can call a changed jupyter-lite.json "up to date"
    run(str(LITE_VENV / "bin" / "jupyter"), "lite", "build", "--lite-dir", str(WORK),
        "--contents", str(WORK / "content"), "--output-dir", str(target), *apps,
        "--no-sourcemaps", "--force", "--log-level", "WARN", cwd=WORK)
    (WORK / DOIT_CACHE).unlink(missing_ok=True)
    built = json.loads((target / "jupyter-lite.json").read_text())["jupyter-config-data"]
    if built.get("litePluginSettings", {}).get(KERNEL_PLUGIN, {}).get("pyodideUrl") != PYODIDE_URL:
        raise SystemExit("the built notebook app does not load the course's Pyodide: check jupyter-lite.json")
    drop_extensions(target)
    mend_jupyterlab(target)
    workers = {path.name.split(".")[0]: path.relative_to(target).as_posix()
               for path in (target / KERNEL_STATIC).glob("*.worker.*.js")}
    # its service worker reads the course's offline copy; its pages say more, and make the kernel's worker early
    notebook_offline.add_offline(target, workers)
    shutil.copytree(staged, target / WHEELS)
    mark_kernel_steps(target)
    pack_start_chunks(target)
    preload_start_files(target)
    start_from_snapshot(site, target)
    for name in LEFTOVERS:
        (target / name).unlink(missing_ok=True)
    for pattern in OLD_FONTS:
        for font in (target / "build").glob(pattern):
            font.unlink()
    # The app's editor asks for the host's /favicon.ico, its pages for the app's (faviconUrl): the course's own icon.
    shutil.copy2(site / "assets" / "images" / "favicon.png", site / "favicon.ico")
    shutil.copy2(site / "assets" / "images" / "favicon.png", target / "favicon.ico")
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"  notebook app: {sum(1 for p in target.rglob('*') if p.is_file())} files, {size / 1e6:.1f} MB", flush=True)


def drop_extensions(app: Path) -> None:
    """Leave DROPPED_EXTENSIONS out of the built app: out of its list of federated extensions, and their files."""
    config_file = app / "jupyter-lite.json"
    config = json.loads(config_file.read_text())
    data = config["jupyter-config-data"]
    kept = [ext for ext in data["federated_extensions"] if ext["name"] not in DROPPED_EXTENSIONS]
    if len(kept) != len(data["federated_extensions"]) - len(DROPPED_EXTENSIONS):
        raise SystemExit(f"the app's federated extensions are {[e['name'] for e in data['federated_extensions']]}: "
                         f"check DROPPED_EXTENSIONS")
    data["federated_extensions"] = kept
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    for name in DROPPED_EXTENSIONS:
        shutil.rmtree(app / "extensions" / name)


def mend_jupyterlab(app: Path) -> None:
    """Apply JUPYTERLAB_MENDS to the app's chunks (the settings' fetching, the two races of a notebook's kernel start,
    the tab's title), reading and writing each chunk once."""
    found = dict.fromkeys((name for name, _ in JUPYTERLAB_MENDS), 0)
    for chunk in sorted((app / "build").glob("*.js")):
        text = original = chunk.read_text(encoding="utf-8")
        for name, (pattern, replacement) in JUPYTERLAB_MENDS:
            text, hits = re.subn(pattern, replacement, text)
            found[name] += hits
        if text != original:
            chunk.write_text(text, encoding="utf-8")
    for name, hits in found.items():
        if hits != 1:
            raise SystemExit(f"the app's code for {name} was found {hits} times, not once: see {name}")


def pack_start_chunks(app: Path) -> None:
    """Concatenate the chunks the notebooks page starts with (START_CHUNKS) into one script that every app page loads
    right after the course's own, before JupyterLite starts: each chunk pushes its
    modules onto the app's chunk list, so the app finds them loaded and asks for none of them (any chunk left out is
    loaded as before). The packed chunks' own files are then never asked for: they are left out."""
    recorded = json.loads(START_CHUNKS.read_text())
    version = notebook_offline.app_version(app)
    if recorded["jupyterlite"] != version:  # the app works without the pack (slower): built so, to record a new list
        print(f"  WARNING: {START_CHUNKS.name} was recorded for JupyterLite {recorded['jupyterlite']}, the app is "
              f"{version}: its start chunks are not packed; run bench/record_notebook_chunks.py", flush=True)
        return
    parts = []
    for chunk in recorded["chunks"]:
        found = [path for path in (app / "build").glob(f"{chunk}.*.js") if path.name.count(".") == 2]
        if len(found) != 1:
            raise SystemExit(f"the app's chunk {chunk} is not in build/ ({found}): "
                             "run bench/record_notebook_chunks.py")
        parts.append(found[0].read_text(encoding="utf-8").rstrip("\n"))
        found[0].unlink()
    text = "\n".join(parts) + "\n"
    name = f"{START_PACK}.{hashlib.sha256(text.encode()).hexdigest()[:12]}.js"
    (app / "build" / name).write_text(text, encoding="utf-8")
    for page in notebook_offline.PAGES:
        notebook_offline.add_start_chunks(app / page / "index.html", f"../build/{name}")


def preload_start_files(app: Path) -> None:
    """Ask for the files an app page fetches one after another as it starts, as soon as the page is read: JupyterLite's
    configuration script, the configuration files it then reads (jupyter-lite.json and .ipynb, and index.html, of the
    page's folder and the app's), the settings' schemas, and the kernel extension's entry script. Each was asked for
    only once the one before had come; the browser hands each preloaded answer to the request that wants it."""
    config = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]
    entries = [f"{ext['name']}/{ext['load']}" for ext in config["federated_extensions"]]
    for page in notebook_offline.PAGES:
        html_file = app / page / "index.html"
        html = html_file.read_text(encoding="utf-8")
        found = re.findall(r"import\(\s*'(\.\./config-utils\.js\?_=\w+)'", html)
        if len(found) != 1:
            raise SystemExit(f"{html_file}: JupyterLite's configuration script imported {len(found)} times, not once")
        links = [f'<link rel="modulepreload" href="{found[0]}">']
        links += [f'<link rel="preload" as="fetch" crossorigin="anonymous" href="{folder}{name}">'
                  for folder in ("", "../") for name in ("jupyter-lite.json", "jupyter-lite.ipynb", "index.html")
                  if (app / page / folder / name).exists()]
        links += [f'<link rel="preload" as="fetch" crossorigin="anonymous" href="../build/schemas/{name}">'
                  for name in ("all.json", "all_federated.json") if (app / "build" / "schemas" / name).exists()]
        links += [f'<link rel="preload" as="script" href="../extensions/{entry}">' for entry in entries]
        tags = "".join(f"\n    {link}" for link in links).replace("\\", "\\\\")
        # after the packed start chunks (the largest file, asked for first), or the course's script if not packed
        html, hits = re.subn(rf'(<script src="\.\./build/{START_PACK}\.\w+\.js"></script>)', r"\g<1>" + tags, html,
                             count=1)
        if not hits:
            html, hits = re.subn(rf'(<script src="\.\./{re.escape(notebook_offline.PAGE_SCRIPT)}\?_=\w+"></script>)',
                                 r"\g<1>" + tags, html, count=1)
        if hits != 1:
            raise SystemExit(f"{html_file}: neither the start chunks nor the course's script are in it")
        html_file.write_text(html, encoding="utf-8")


def mark_kernel_steps(app: Path) -> None:
    """Mark on the kernel worker's clock when each step of its start ends (``performance.mark("kernel: <step>")``),
    as the lesson's worker marks its boot's: bench/site.py reads them into the notebook's timeline."""
    awaited = ",".join(f"await this.{step}(e)" for step in KERNEL_STEPS)
    marked = ",".join(f'await this.{step}(e),performance.mark("kernel: {step}")' for step in KERNEL_STEPS)
    workers = sorted((app / KERNEL_STATIC).glob("*.worker.*.js"))
    for worker in workers:
        text = worker.read_text(encoding="utf-8")
        if text.count(awaited) != 1:
            raise SystemExit(f"the kernel's worker {worker.name} does not start as expected: check KERNEL_STEPS")
        # Once started, the kernel tells its page (web/notebook/kernel-start.js's `started`): the notebook's status
        # says "ready" on that, not on the toolbar alone (which says "idle" before there is a kernel too).
        started = marked + ",self.__emberKernel?.started?.()"
        worker.write_text(text.replace(awaited, 'performance.mark("kernel: start"),' + started), encoding="utf-8")
    if len(workers) != 2:
        raise SystemExit(f"expected the kernel's two workers (comlink, coincident), found {[w.name for w in workers]}")


def hand_over_kernel_worker(app: Path) -> None:
    """Make the kernel take the worker the notebook's page made early (web/src/runtime/notebook-page.js), if there is
    one, instead of making its own: where the kernel makes its worker, it asks ``window.__emberKernelWorker`` first."""
    chunks = [path for path in sorted((app / KERNEL_STATIC).glob("*.js")) if ".worker." not in path.name]
    found = 0
    for chunk in chunks:
        text = chunk.read_text(encoding="utf-8")
        text, hits = re.subn(*KERNEL_WORKER_HOOK, text)
        if hits:
            chunk.write_text(text, encoding="utf-8")
            found += hits
    if found != 1:
        raise SystemExit(f"the kernel's extension makes its worker in {found} places, not 1: see KERNEL_WORKER_HOOK")


def start_from_snapshot(site: Path, app: Path) -> None:
    """Make the kernel start from a memory snapshot of its Python with IPython imported (web/notebook/): write the
    snapshot, hook web/notebook/kernel-start.js into the kernel's workers, and name the snapshot in the kernel's
    settings (a key ending in URL: the app resolves it against its root)."""
    made = app / SNAPSHOT
    made.parent.mkdir(exist_ok=True)
    run("node", str(SNAPSHOT_MAKER), str(site / "assets/gen/pyodide") + "/", str(site / "assets/gen" / STDLIB),
        str(app / WHEELS / LOCK), str(made))
    # Named by its hash: a browser's cached copy of another build's snapshot (another course) is never taken for it.
    zipped = made.read_bytes()
    snapshot = made.with_name(f"{made.stem}-{hashlib.sha256(zipped).hexdigest()[:12]}{made.suffix}")
    made.rename(snapshot)
    unzipped_size = int.from_bytes(zipped[-4:], "little")  # gzip's last field: the size unzipped (under 4 GiB)
    config_file = app / "jupyter-lite.json"
    config = json.loads(config_file.read_text())
    kernel = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    options = kernel["loadPyodideOptions"]
    options.update(emberSnapshotURL=f"./{snapshot.relative_to(app).as_posix()}",
                   emberSnapshotBytes=unzipped_size, emberFirst=FIRST_FILES)
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    # The same settings, for the worker to start Python before the kernel asks (paths from the app's folder).
    early = {"app": "../" * len(KERNEL_STATIC.parts), "pyodideUrl": kernel["pyodideUrl"], "loadPyodideOptions": options,
             "viz": VIZ_FROM_APP}  # and the course's Graphviz, which the first cell loads
    helper = f"self.__emberKernelEarly = {json.dumps(early)};\n" + KERNEL_START.read_text(encoding="utf-8")
    for worker in sorted((app / KERNEL_STATIC).glob("*.worker.*.js")):
        text = worker.read_text(encoding="utf-8")
        for pattern, replacement in KERNEL_HOOKS:
            text, found = re.subn(pattern, replacement, text)
            if found != 1:
                raise SystemExit(f"the kernel's worker {worker.name}: {pattern!r} found {found} times, not once")
        worker.write_text(helper + text, encoding="utf-8")
    hand_over_kernel_worker(app)

