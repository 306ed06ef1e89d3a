"""The lesson notebooks' side of the course, run in the notebook's Pyodide kernel.

``await start("L10")`` (the first cell of every lesson notebook) finds the learner's engine, makes
the lesson cells' display functions (``show``, ``plot``, ...) draw into the notebook, and forgets
any ``ember`` modules imported before, so that the next import reads the learner's files afresh.
``check("L10")`` then runs that lab's checks on those files and prints each claim, as
``python -m labs check`` does. ``ask("L10.bfs")`` lists a question's options in the order the learner's
lesson page shows them (the page hands its seed over in ``ember/.learner.json``), ``answer("L10.bfs", "b")``
gives the verdict on one, and ``show_answer("L10.bfs")`` tells the answer.

The learner's files are the notebook drive's ``ember/`` folder, which the kernel sees as its working
folder. Where the drive cannot reach the kernel (plain HTTP from an address other than localhost:
no service worker, no cross-origin isolation), the kernel reads the same files straight from the
browser's storage (IndexedDB) and writes them into a folder of its own.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labs.checking.learner import INIT_SOURCE, forget_ember
from labs.course.datasets import DATA_DIR
from labs.course.gaps import fill_gaps, find_gaps
from labs.course.model import CourseError, Question, load_course
from labs.course.questions import FALLBACK_SEED, Shown, answer_view, ask_view, find_question, is_seed, reveal_view
from labs.showing.display import Display, Item
from labs.showing.render import item_html

if TYPE_CHECKING:  # the checks' machinery comes with the first check
    from labs.checking.earlier import EarlierFault

DRIVE = json.loads((DATA_DIR / "notebook_drive.json").read_text(encoding="utf-8"))
STORAGE_NAME = DRIVE["database"]  # the app's contentsStorageName: the IndexedDB database of its drive
DRIVE_FROM_APP = "../assets/gen/drive.js"  # the drive's reader, shared with the lesson pages (web/src/work/drive.js)
COPY_DIR = Path("/home/pyodide/ember-from-storage")  # where the fallback writes the learner's files
VIZ_FROM_APP = "../assets/gen/viz.js"  # the course's Graphviz (viz.js), relative to the app's folder
LEARNER_FILE = f"{DRIVE['folder']}/{DRIVE['seed_file']}"  # the page's hand-over: {"seed": ...}, the order of options

_state: dict[str, Any] = {"folder": None, "viz": None}



def _app_root() -> str:
    """The notebook app's address, from the kernel worker's own (…/notebook/extensions/…/worker.js)."""
    import js  # Pyodide's bridge to the worker's globals

    href = str(js.location.href)
    at = href.rfind("/extensions/")
    return href[: at + 1] if at != -1 else href.rsplit("/", 1)[0] + "/"


async def _stored_files() -> dict[str, str]:
    """The drive's ember/ files, read from IndexedDB by the kernel itself; {} when there are none."""
    from pyodide.code import run_js

    reader = await run_js(f"import({_app_root() + DRIVE_FROM_APP!r})")
    answer = await reader.readFolderJson()
    return json.loads(answer) if answer else {}


async def find_engine() -> tuple[Path, str]:
    """The folder whose ember/ holds the learner's files, and a sentence saying where they came from."""
    drive = Path.cwd()
    if (drive / "ember" / "scalar.py").is_file():
        return drive, "the notebook's drive (ember/ beside this notebook)"
    files = await _stored_files()
    if not files:
        raise RuntimeError(
            "Your ember/ files are not here: the notebook's drive is not reachable from Python on this "
            "host, and this browser holds no copy of them. Open this notebook from the lesson page's "
            "Open as notebook button.")
    for key, content in files.items():
        target = COPY_DIR / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    init = COPY_DIR / "ember" / "__init__.py"
    if not init.exists():
        init.write_text(INIT_SOURCE, encoding="utf-8")
    return COPY_DIR, "the browser's storage (this host gives Python no drive, so a copy was made)"


async def _load_viz() -> Any:
    """The course's Graphviz: the one the kernel's worker began loading as Python started (web/notebook/
    kernel-start.js), else loaded here."""
    from pyodide.code import run_js

    early = run_js("globalThis.__emberViz")
    if early is not None and (viz := await early) is not None:
        return viz
    module = await run_js(f"import({_app_root() + VIZ_FROM_APP!r})")
    return await module.instance()


def svg(dot: str) -> str:
    """Graphviz DOT as an SVG picture, drawn by the course's viz.js inside the kernel's worker."""
    viz = _state["viz"]
    if viz is None:
        raise RuntimeError("run the notebook's first cell (await start(...)) before drawing a graph")
    from pyodide.ffi import to_js

    return str(viz.renderString(dot, to_js({"format": "svg"}, dict_converter=_js_object)))


def _js_object(pairs: Any) -> Any:
    import js

    return js.Object.fromEntries(pairs)


class NotebookDisplay:
    """Shows display items as HTML outputs; an item with a key replaces its earlier output in place."""

    def __init__(self, draw: Callable[[str], str] = svg) -> None:
        self.draw = draw
        self.shown: set[str] = set()

    def emit(self, item: Item) -> None:
        """Show one item below the running cell (or update the output with the same key)."""
        from IPython.display import HTML, display, update_display

        output = HTML(item_html(item, self.draw))
        key = item.get("key")
        if key is None:
            display(output)
        elif key in self.shown:
            update_display(output, display_id=f"ember-{key}")
        else:
            self.shown.add(key)
            display(output, display_id=f"ember-{key}")


def _user_namespace() -> dict[str, Any]:
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("start() sets up a notebook: run it in a notebook cell")
    return shell.user_ns


async def start(lesson_id: str) -> None:
    """Set the notebook up for a lesson: the learner's engine on the path, the display functions in place."""
    course = load_course()
    lesson = course.lesson(lesson_id)
    folder, origin = await find_engine()
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    forget_ember()
    if _state["viz"] is None:
        _state["viz"] = await _load_viz()
    _state["folder"] = folder
    namespace = _user_namespace()
    namespace.update(Display(NotebookDisplay().emit).functions())
    namespace.update(check=check, ask=ask, answer=answer, show_answer=show_answer, use_finished=use_finished)
    present = set(os.listdir(folder / "ember"))  # one look at the drive (each look is a round trip to the page)
    names = ", ".join(f"ember/{name}" for name in course.reference if name in present)
    print(f"{lesson.id} · {lesson.title}")
    print(f"Your engine: {names}, from {origin}.")
    print("Pictures: the course's Graphviz is loaded. Run the cells below in order.")


def check(lesson_id: str) -> None:
    """Run a lab's checks on the learner's files and print each claim, as `python -m labs check` does."""
    from labs.checking.on_disk import UsageError, check_files

    folder = _state["folder"]
    if folder is None:
        print("Run the notebook's first cell (await start(...)) first: it finds your files.")
        return
    report = io.StringIO()  # printed in one piece: the kernel's stream can drop lines written while checks run
    try:
        with contextlib.redirect_stdout(report):
            check_files(load_course(), lesson_id, folder / "ember" / "scalar.py", offer=_notebook_offer)
    except UsageError as error:
        report.write(f"{error}\n")
    print(report.getvalue(), end="")


def _notebook_offer(lab: str, fault: EarlierFault) -> str:
    """How the notebook offers the finished piece of an earlier gap at fault."""
    return (f'To take the finished piece instead, run use_finished("{fault.gap}") in a cell (your file is kept '
            f"beside it), or load it from the lab on lesson {lab[1:]}'s page.")


def use_finished(gap_id: str) -> None:
    """Put the finished piece in one of the learner's gaps (their file is copied aside first), as the page's lab
    and `python -m labs start LAB --ref-deps GAP` do."""
    course = load_course(checks=False)
    folder = _state["folder"]
    if folder is None:
        print("Run the notebook's first cell (await start(...)) first: it finds your files.")
        return
    if gap_id not in course.gaps:
        print(f"There is no gap {gap_id!r} in the course.")
        return
    path = folder / "ember" / course.gaps[gap_id].file
    source = path.read_text(encoding="utf-8")
    region = course.regions[gap_id].final_id
    marker = next((gap.id for gap in find_gaps(source) if course.regions[gap.id].final_id == region), None)
    if marker is None:
        print(f"Your {path.name} has no gap {gap_id} yet.")
        return
    number = 1
    while (backup := path.with_name(f"{path.name}.{number}.bak")).exists():
        number += 1
    backup.write_text(source, encoding="utf-8")
    path.write_text(fill_gaps(source, {marker: (marker, course.gaps[gap_id].finished)}), encoding="utf-8")
    forget_ember()
    print(f"{marker} in ember/{path.name} now holds the finished piece; your file is kept as {backup.name}.")


# --- the lesson's questions ----------------------------------------------------------------------


def learner_seed() -> tuple[str, bool]:
    """The seed the lesson page handed over (and True), or the course's fallback seed (and False)."""
    folder = _state["folder"] or Path.cwd()
    try:
        seed = json.loads((folder / LEARNER_FILE).read_text(encoding="utf-8")).get("seed")
    except (OSError, ValueError, AttributeError):
        return FALLBACK_SEED, False
    return (seed, True) if is_seed(seed) else (FALLBACK_SEED, False)


def _show(shown: Shown) -> None:
    """Show words as HTML in a notebook (with their plain text beside), or print them elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        print(shown.text)
        return
    if get_ipython() is None:
        print(shown.text)
        return
    display({"text/html": shown.html, "text/plain": shown.text}, raw=True)


def _question(key: str) -> Question | None:
    """The question named ``key``, or None after saying there is none."""
    try:
        return find_question(load_course(), key)
    except CourseError as error:
        print(f"{error}.")
        return None


def ask(key: str) -> None:
    """List a question's options, lettered in the order the learner's lesson page shows them."""
    question = _question(key)
    if question is not None:
        _show(ask_view(question, key, *learner_seed()))


def answer(key: str, choice: str) -> None:
    """The verdict on an answer (a letter or an option's text): that option's feedback, or 'Right.' and why."""
    question = _question(key)
    if question is not None:
        _show(answer_view(question, key, learner_seed()[0], str(choice)))


def show_answer(key: str) -> None:
    """The right option of a question, its feedback and the explanation."""
    question = _question(key)
    if question is not None:
        _show(reveal_view(question, key, learner_seed()[0]))
