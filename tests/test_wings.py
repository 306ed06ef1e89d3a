"""The page code lives in four wings named for what flows through them, and imports run one way only:
``page/ → work/ → runtime/ → base/``. A module imports from its own wing or a wing to its right; every file of
``web/src`` sits in one of the four. Read from the source: every ``import … from``, ``export … from``, ``import()``
(also in JSDoc types), ``new Worker(new URL(…, import.meta.url))`` and ``importScripts``."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "web" / "src"
WINGS = ("base", "runtime", "work", "page")  # each may import only from itself and those before it

SPECIFIERS = (
    re.compile(r"""^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']""", re.MULTILINE),  # import/export … from
    re.compile(r"""^\s*import\s*["']([^"']+)["']""", re.MULTILINE),  # import "x" (for its effects)
    re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)"""),  # import("x"), in code or in a JSDoc type
    re.compile(r"""\bimport\(\s*new URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)"""),
    re.compile(r"""\bnew (?:Shared)?Worker\(\s*new URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)"""),
    re.compile(r"""\bimportScripts\(\s*["']([^"']+)["']"""),
)
# What the code names but the build does not bundle: files served beside the built code (Pyodide, Graphviz's
# viz.js, JupyterLite's own service worker), and the course's data the drive reads (labs/data/).
SERVED = {"runtime/pyodide/pyodide.mjs", "page/viz.js", "runtime/jupyterlite-sw.js"}
OUTSIDE = ("../../labs/data/",)  # as seen from web/src


def specifiers(text: str) -> list[str]:
    """Every module a file's text names, in the order found."""
    return [found.group(1) for pattern in SPECIFIERS for found in pattern.finditer(text)]


def wrong_imports(files: dict[str, str]) -> list[str]:
    """What breaks the wing order in these files ({path under web/src: text}), one line each; none if all is well."""
    faults = []
    for path, text in sorted(files.items()):
        wing = path.split("/", 1)[0]
        if wing not in WINGS or "/" not in path:
            faults.append(f"{path}: outside the four wings {WINGS}")
            continue
        for spec in specifiers(text):
            if not spec.startswith("."):
                continue  # an npm package
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
            if target in SERVED or target.startswith(OUTSIDE):
                continue
            candidates = [target, f"{target}.d.ts", f"{target}.js"]
            found = next((name for name in candidates if name in files), None)
            if found is None:
                faults.append(f"{path}: {spec} names no file of web/src")
                continue
            other = found.split("/", 1)[0]
            if other not in WINGS:
                faults.append(f"{path}: {spec} is outside the four wings")
            elif WINGS.index(other) > WINGS.index(wing):
                faults.append(f"{path} ({wing}/) imports {spec} from {other}/, a wing to its left")
    return faults


def source_files() -> dict[str, str]:
    """Every file of web/src, by its path under it."""
    return {path.relative_to(SRC).as_posix(): path.read_text(encoding="utf-8")
            for path in SRC.rglob("*") if path.is_file()}


def test_the_page_code_imports_only_along_its_wings() -> None:
    files = source_files()
    assert {path.split("/", 1)[0] for path in files} == set(WINGS)
    assert sum(len(specifiers(text)) for text in files.values()) > 100  # the reader finds the imports
    assert wrong_imports(files) == []


def test_an_import_against_the_order_is_found_in_every_form() -> None:
    base = {"base/dom.js": "export const el = 1;", "runtime/protocol.js": "export const REQUEST = 1;",
            "work/storage.js": "export const work = 1;", "page/lab.js": "export class Lab {}"}
    upward = {
        "base/ids.js": 'import { REQUEST } from "../runtime/protocol.js";',
        "runtime/runtime.js": '/** @typedef {import("../work/storage.js").Work} Work */',
        "work/folder.js": 'export { Lab } from "../page/lab.js";',
        "runtime/boot.js": 'const w = new Worker(new URL("../page/lab.js", import.meta.url), { type: "module" });',
        "work/drive.js": 'const lab = await import("../page/lab.js");',
        "runtime/sw.js": 'importScripts("../work/storage.js");',
    }
    for path, text in upward.items():
        faults = wrong_imports({**base, path: text})
        assert len(faults) == 1 and faults[0].startswith(path) and "a wing to its left" in faults[0], (path, faults)
    downward = {"page/cells.js": 'import * as storage from "../work/storage.js";\nimport { el } from "../base/dom.js";',
                "work/tabs.js": 'import { REQUEST } from "../runtime/protocol.js";'}
    assert wrong_imports({**base, **downward}) == []


def test_a_file_outside_the_wings_or_an_import_of_nothing_is_found() -> None:
    assert wrong_imports({"helpers.js": "", "base/dom.js": ""}) == ["helpers.js: outside the four wings "
                                                                     "('base', 'runtime', 'work', 'page')"]
    assert wrong_imports({"page/lab.js": 'import { x } from "./gone.js";'}) == ["page/lab.js: ./gone.js names no "
                                                                                "file of web/src"]
