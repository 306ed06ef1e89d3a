"""The course as data: lessons, gaps with their history, claims and questions.

Each lesson is one folder of ``labs/lessons/`` (``10-order-of-blame/``): its data in ``lesson.toml``,
the code behind its claims in ``checks.py``, its page in ``page.md``, its known-wrong pieces and other
correct pieces beside them. :func:`load_course` reads the data and the checks, pairs them with the gaps
found in the finished modules of ``ember/``, and refuses anything that does not line up (unknown ids, a
claim without a message, a gap without a starter).
"""

from __future__ import annotations

import importlib.util
import json
import re
import string
import sys
import zlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from labs.course.gaps import GAP_ID, Gap, find_gaps, lesson_of, normalize

if TYPE_CHECKING:
    from labs.course.registry import ClaimFunction

LABS_DIR = Path(__file__).resolve().parent.parent
LESSONS_DIR = LABS_DIR / "lessons"
PARTS_FILE = "parts.toml"
LESSON_FILE = "lesson.toml"  # in each lesson's folder, beside CHECKS_FILE and the page
CHECKS_FILE = "checks.py"
LESSON_SHIPS = (LESSON_FILE, CHECKS_FILE)  # what the page's Python gets of a lesson's folder: not its page or its tests
LESSON_FOLDER = re.compile(r"(\d\d)-[a-z0-9]+(?:-[a-z0-9]+)*")  # '10-order-of-blame': the number, then the page's name
# The lessons' TOML files, already parsed, as the build ships them beside the files in the page's Python:
# reading JSON instead of parsing TOML saves the page's worker about a tenth of a second of its cold start.
TABLES_FILE = "tables.json"
_PACKAGED_REFERENCE = LABS_DIR / "reference"  # where the notebook's wheel keeps it
# The finished engine, with its gap markers. In the notebook's wheel it lives inside labs/, so that the
# only importable `ember` there is the learner's own.
_REPOSITORY_REFERENCE = LABS_DIR.parent / "ember"
REFERENCE_DIR = _PACKAGED_REFERENCE if _PACKAGED_REFERENCE.is_dir() else _REPOSITORY_REFERENCE


def _marked_files(reference_dir: Path) -> dict[str, tuple[str, list[Gap]]]:
    """Every module of ``ember/`` that marks gaps -> (its source, its gaps), in the order their lessons start.

    A file may import any other by name, whatever its lesson: ``nn.py`` imports ``scalar.py``, and
    ``tensor.py`` (from lesson 14) imports ``shapes.py`` (whose first gaps are lesson 15's).
    """
    marked = {}
    for path in reference_dir.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        gaps = find_gaps(source)
        if gaps:
            marked[path.name] = (source, gaps)

    def starts(name: str) -> tuple[int, str]:
        return min(lesson_number(gap.id) for gap in marked[name][1]), name

    return {name: marked[name] for name in sorted(marked, key=starts)}


FEEDBACK_VERDICT = r"(right|correct|wrong|not quite|yes|no)\b"  # the page writes the verdict itself


class CourseError(ValueError):
    """The course data is inconsistent."""


def lesson_number(gap_or_lesson_id: str) -> int:
    """13 for 'L13' or 'L13.sigmoid'."""
    return int(lesson_of(gap_or_lesson_id)[1:])


@dataclass(frozen=True)
class GapSpec:
    """One lesson's piece of a region: what the learner writes in that lesson."""

    id: str
    title: str
    hints: tuple[str, ...]
    starter: str | None  # None when the gap reopens an earlier one
    reopens: str | None
    finished: str
    file: str

    @property
    def lesson(self) -> str:
        """'L10' for 'L10.backward'."""
        return lesson_of(self.id)

    @property
    def number(self) -> int:
        """10 for 'L10.backward'."""
        return lesson_number(self.id)


@dataclass(frozen=True)
class Region:
    """One place in a module, written in one lesson and possibly reopened in later ones."""

    file: str
    stages: tuple[GapSpec, ...]
    indent: str = ""  # the indentation of its markers in the finished module

    @property
    def starter(self) -> str:
        """What the region holds before its first lesson."""
        starter = self.stages[0].starter
        assert starter is not None
        return starter

    @property
    def final_id(self) -> str:
        """The id of the region's last stage, as the finished module's marker shows it."""
        return self.stages[-1].id


@dataclass(frozen=True)
class Claim:
    """A named statement a lesson's checks make about the learner's engine."""

    lesson: str
    id: str
    name: str
    uses: tuple[str, ...]
    messages: dict[str, str]
    seconds: float

    @property
    def key(self) -> str:
        """'L10.trap_graph'."""
        return f"{self.lesson}.{self.id}"

    def message(self, key: str, values: dict[str, object]) -> str:
        """The failure message ``key`` with its values filled in."""
        if key not in self.messages:
            raise CourseError(f"claim {self.key} has no message {key!r}")
        return self.messages[key].format(**values)


@dataclass(frozen=True)
class Option:
    """One answer of a multiple-choice question, with the feedback it earns."""

    id: str
    text: str
    feedback: str


@dataclass(frozen=True)
class Question:
    """A multiple-choice question with feedback for every option."""

    id: str
    prompt: str
    options: tuple[Option, ...]
    answer: str
    explain: str
    # For a prediction: text of its page that shows the answer (a cell's code, or the prose after it), each of
    # which must stand only below the question.
    revealed_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Part:
    """A part of the course: its number, its title and its lessons (none yet for a part in preparation)."""

    number: int
    title: str
    first: str  # the id of its first lesson, e.g. 'L07'
    lessons: tuple[str, ...] = ()
    intro: str = ""  # what the home page says of the part above its lessons (Markdown)


@dataclass(frozen=True)
class Lesson:
    """One lesson: its gaps, claims and questions."""

    id: str
    part: int
    title: str
    question: str
    minutes: int
    builds_on: tuple[str, ...]
    can_now: str
    needs: tuple[str, ...]
    gaps: tuple[str, ...]
    claims: tuple[Claim, ...]
    questions: tuple[Question, ...]
    starts_from: str = ""  # the header's words for what a lesson that builds on no lesson needs
    folder: Path = field(default=Path(), compare=False)  # its folder of labs/lessons/; its name is its page's address

    @property
    def number(self) -> int:
        """10 for 'L10'."""
        return lesson_number(self.id)

    def claim(self, claim_id: str) -> Claim:
        """The claim with this id."""
        for item in self.claims:
            if item.id == claim_id:
                return item
        raise KeyError(f"{self.id} has no claim {claim_id!r}")

    def needed_gaps(self, claim: Claim) -> tuple[str, ...]:
        """Every gap a claim relies on: the lesson's earlier needs, then the claim's own."""
        return self.needs + tuple(gap for gap in claim.uses if gap not in self.needs)


@dataclass(frozen=True)
class Course:
    """All lessons, all gaps, and the finished modules they were cut from."""

    lessons: dict[str, Lesson]
    gaps: dict[str, GapSpec]
    regions: dict[str, Region]  # any stage id -> its region
    reference: dict[str, str]  # learner file name -> finished source, in the order their lessons start
    parts: tuple[Part, ...] = ()

    def lesson(self, lesson_id: str) -> Lesson:
        """The lesson with this id, or a clear error listing the known ones."""
        key = lesson_id.upper()
        if key not in self.lessons:
            known = ", ".join(self.lessons)
            raise CourseError(f"there is no lesson {lesson_id!r}; the lessons are {known}")
        return self.lessons[key]

    def check_function(self, claim: Claim) -> ClaimFunction:
        """The function behind a claim: its lesson's checks.py registers it when first imported."""
        from labs.course.registry import REGISTRY  # the checks' tools come with the first check

        import_checks(self.lessons[claim.lesson])
        try:
            return REGISTRY[(claim.lesson, claim.id)]
        except KeyError:
            folder = self.lessons[claim.lesson].folder.name
            raise CourseError(f"claim {claim.key} has no check function in {folder}/{CHECKS_FILE}") from None

    def import_check_modules(self) -> None:
        """Import every lesson's checks.py (a check imports only its own lesson's)."""
        for lesson in self.lessons.values():
            import_checks(lesson)

    def region_list(self) -> list[Region]:
        """Each region once, in file order."""
        unique: dict[str, Region] = {}
        for region in self.regions.values():
            unique.setdefault(region.final_id, region)
        return list(unique.values())


def _text(table: dict, key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CourseError(f"{where}: '{key}' must be a non-empty string")
    return value.strip()


def _read_gap_specs(lesson_id: str, table: dict) -> list[dict]:
    specs = []
    for raw in table.get("gaps", []):
        gap_id = _text(raw, "id", f"{lesson_id} gap")
        where = f"{lesson_id} gap {gap_id}"
        if not gap_id.startswith(lesson_id + "."):
            raise CourseError(f"{where}: a gap of {lesson_id} must have an id starting with '{lesson_id}.'")
        hints = tuple(raw.get("hints", ()))
        if len(hints) < 3 or not all(isinstance(h, str) and h.strip() for h in hints):
            raise CourseError(f"{where}: needs a hint ladder of at least three hints")
        reopens = raw.get("reopens")
        starter = raw.get("starter")
        if (starter is None) == (reopens is None):
            raise CourseError(f"{where}: give exactly one of 'starter' or 'reopens'")
        specs.append({
            "id": gap_id,
            "title": _text(raw, "title", where),
            "hints": tuple(h.strip() for h in hints),
            "starter": normalize(starter) if starter is not None else None,
            "reopens": reopens,
            "finished": normalize(raw["finished"]) if "finished" in raw else None,
        })
    return specs


def _read_claims(lesson_id: str, table: dict) -> list[Claim]:
    claims = []
    for raw in table.get("claims", []):
        claim_id = _text(raw, "id", f"{lesson_id} claim")
        where = f"claim {lesson_id}.{claim_id}"
        messages = raw.get("messages", {})
        if not messages:
            raise CourseError(f"{where}: has no failure message")
        for key, text in messages.items():
            if not isinstance(text, str) or not text.strip():
                raise CourseError(f"{where}: message {key!r} is empty")
            list(string.Formatter().parse(text))  # raises on a malformed template
        claims.append(Claim(
            lesson=lesson_id,
            id=claim_id,
            name=_text(raw, "name", where),
            uses=tuple(raw.get("uses", ())),
            messages={key: text.strip() for key, text in messages.items()},
            seconds=float(raw.get("seconds", 5.0)),
        ))
    return claims


def _read_questions(lesson_id: str, table: dict) -> list[Question]:
    questions = []
    for raw in table.get("questions", []):
        question_id = _text(raw, "id", f"{lesson_id} question")
        where = f"{lesson_id} question {question_id}"
        options = tuple(
            Option(_text(o, "id", where), _text(o, "text", where), _text(o, "feedback", where))
            for o in raw.get("options", [])
        )
        ids = [o.id for o in options]
        if len(options) < 2 or len(set(ids)) != len(ids):
            raise CourseError(f"{where}: needs at least two options with distinct ids")
        answer = _text(raw, "answer", where)
        if answer not in ids:
            raise CourseError(f"{where}: the answer {answer!r} is not one of its options {ids}")
        for option in options:
            if re.match(FEEDBACK_VERDICT, option.feedback, flags=re.IGNORECASE):
                raise CourseError(f"{where}: option {option.id}'s feedback starts with a verdict; the page "
                                  "shows 'Right.' or 'Not quite.' before it, so start with the reason")
        revealed_by = raw.get("revealed_by", [])
        if not isinstance(revealed_by, list) or not all(isinstance(t, str) and t.strip() for t in revealed_by):
            raise CourseError(f"{where}: 'revealed_by' must be a list of non-empty texts of its page")
        questions.append(Question(question_id, _text(raw, "prompt", where), options, answer,
                                  _text(raw, "explain", where), tuple(revealed_by)))
    return questions


# A TOML file's name -> {"crc32": checksum of its bytes, "table": its parsed content}. A checksum, not a hash:
# it tells a copy made from other bytes (a file edited after the build) apart, and zlib is in Pyodide from its
# start, where importing hashlib takes about 12 ms of every fresh start.
Tables = dict[str, dict]


def _parse_toml(data: bytes) -> dict:
    """A TOML file's bytes, parsed."""
    import tomllib  # imported only where it is needed: in the page, where the tables stand in, it is not

    return tomllib.loads(data.decode("utf-8"))


def lesson_folders(lessons_dir: Path = LESSONS_DIR) -> list[Path]:
    """Every lesson's folder (a folder holding a LESSON_FILE), in the order of their names."""
    folders = sorted(path.parent for path in lessons_dir.glob(f"*/{LESSON_FILE}"))
    for folder in folders:
        if not LESSON_FOLDER.fullmatch(folder.name):
            raise CourseError(f"lesson folder {folder.name!r}: name it by its number and its page, "
                              "such as '10-order-of-blame'")
    return folders


def folder_lesson(folder: Path) -> str:
    """The id of the lesson a folder holds, from its number: 'L10' for 10-order-of-blame/."""
    return "L" + folder.name[:2]


def _table_key(path: Path, lessons_dir: Path) -> str:
    return path.relative_to(lessons_dir).as_posix()


def parsed_tables(lessons_dir: Path = LESSONS_DIR) -> str:
    """The TABLES_FILE for the lessons: parts.toml and each lesson's data, parsed, with the checksum of its bytes."""
    tables = {}
    paths = [lessons_dir / PARTS_FILE] + [folder / LESSON_FILE for folder in lesson_folders(lessons_dir)]
    for path in paths:
        data = path.read_bytes()
        tables[_table_key(path, lessons_dir)] = {"crc32": zlib.crc32(data), "table": _parse_toml(data)}
    return json.dumps(tables, ensure_ascii=False, sort_keys=True)


def _built_tables(lessons_dir: Path) -> Tables:
    """The folder's TABLES_FILE if the build left one there (in the page's Python), else nothing."""
    try:
        return json.loads((lessons_dir / TABLES_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def _read_table(path: Path, built: Tables, lessons_dir: Path) -> dict:
    """A TOML file's content: its parsed copy from the build when that was made from these very bytes."""
    data = path.read_bytes()
    copy = built.get(_table_key(path, lessons_dir))
    if copy is not None and copy.get("crc32") == zlib.crc32(data):
        return copy["table"]
    return _parse_toml(data)


def _read_parts(lessons_dir: Path, built: Tables) -> list[Part]:
    """The parts of the course from parts.toml, checked to be numbered 1, 2, ... with rising first lessons."""
    table = _read_table(lessons_dir / PARTS_FILE, built, lessons_dir)
    parts: list[Part] = []
    for position, raw in enumerate(table.get("parts", []), start=1):
        where = f"{PARTS_FILE} part {position}"
        if raw.get("number") != position:
            raise CourseError(f"{where}: parts are numbered 1, 2, ... in order; this one says {raw.get('number')!r}")
        first = _text(raw, "first", where)
        if not re.fullmatch(r"L\d\d", first):
            raise CourseError(f"{where}: 'first' must be a lesson id such as 'L07', not {first!r}")
        if parts and lesson_number(first) <= lesson_number(parts[-1].first):
            raise CourseError(f"{where}: its first lesson {first} must come after {parts[-1].first}")
        parts.append(Part(position, _text(raw, "title", where), first, intro=str(raw.get("intro", "")).strip()))
    if not parts:
        raise CourseError(f"{PARTS_FILE}: the course needs at least one part")
    return parts


def part_of(parts: list[Part], lesson_id: str) -> int:
    """The number of the part a lesson belongs to: the last part whose first lesson is not after it."""
    found = [part.number for part in parts if lesson_number(part.first) <= lesson_number(lesson_id)]
    if not found:
        raise CourseError(f"{lesson_id} comes before the first part, which starts at {parts[0].first}")
    return found[-1]


def _reference_gaps(reference_dir: Path) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    """The finished sources, and each marker id found there -> (file, body, indent)."""
    reference: dict[str, str] = {}
    found: dict[str, tuple[str, str, str]] = {}
    for name, (source, gaps) in _marked_files(reference_dir).items():
        reference[name] = source
        for gap in gaps:
            if gap.id in found:
                raise CourseError(f"gap {gap.id} is marked in both {found[gap.id][0]} and {name}")
            found[gap.id] = (name, gap.body, gap.indent)
    return reference, found


def _build_regions(raw_specs: dict[str, dict], found: dict[str, tuple[str, str, str]]) -> tuple[dict, dict]:
    """Chain stages through 'reopens' into regions anchored at the finished module's markers."""
    reopened_by: dict[str, str] = {}
    for spec in raw_specs.values():
        if spec["reopens"] is not None:
            earlier = spec["reopens"]
            if earlier not in raw_specs:
                raise CourseError(f"gap {spec['id']} reopens unknown gap {earlier}")
            if lesson_number(earlier) >= lesson_number(spec["id"]):
                raise CourseError(f"gap {spec['id']} must reopen a gap of an earlier lesson")
            if earlier in reopened_by:
                raise CourseError(f"gap {earlier} is reopened twice")
            reopened_by[earlier] = spec["id"]
    gaps: dict[str, GapSpec] = {}
    regions: dict[str, Region] = {}
    for marker_id, (file_name, finished_body, indent) in found.items():
        if marker_id not in raw_specs:
            raise CourseError(f"{file_name} marks gap {marker_id}, which no lesson defines")
        if marker_id in reopened_by:
            raise CourseError(f"{file_name} marks {marker_id}, but it is reopened as {reopened_by[marker_id]}")
        chain = [marker_id]
        while raw_specs[chain[0]]["reopens"] is not None:
            chain.insert(0, raw_specs[chain[0]]["reopens"])
        stages = []
        for position, stage_id in enumerate(chain):
            spec = raw_specs[stage_id]
            last = position == len(chain) - 1
            if last and spec["finished"] is not None:
                raise CourseError(f"gap {stage_id}: its finished piece is the one in {file_name}")
            if not last and spec["finished"] is None:
                raise CourseError(f"gap {stage_id} is reopened later, so it needs its own 'finished' piece")
            stage = GapSpec(
                id=stage_id, title=spec["title"], hints=spec["hints"], starter=spec["starter"],
                reopens=spec["reopens"], finished=finished_body if last else spec["finished"], file=file_name,
            )
            stages.append(stage)
            gaps[stage_id] = stage
        region = Region(file_name, tuple(stages), indent)
        for stage in stages:
            regions[stage.id] = region
    missing = sorted(set(raw_specs) - set(gaps))
    if missing:
        raise CourseError(f"gaps defined in lessons but marked in no module: {', '.join(missing)}")
    return gaps, regions


def _validate(course: Course) -> None:
    for lesson in course.lessons.values():
        for gap_id in lesson.needs:
            if gap_id not in course.gaps:
                raise CourseError(f"{lesson.id} needs unknown gap {gap_id}")
            if lesson_number(gap_id) >= lesson.number:
                raise CourseError(f"{lesson.id}: 'needs' lists earlier lessons' gaps only, not {gap_id}")
        for claim in lesson.claims:
            for gap_id in claim.uses:
                if gap_id not in course.gaps:
                    raise CourseError(f"claim {claim.key} uses unknown gap {gap_id}")
                if lesson_number(gap_id) > lesson.number:
                    raise CourseError(f"claim {claim.key} uses {gap_id}, a gap of a later lesson")
        for earlier in lesson.builds_on:
            if earlier not in course.lessons:
                raise CourseError(f"{lesson.id} builds on unknown lesson {earlier}")
        if not lesson.builds_on and not lesson.starts_from:
            raise CourseError(f"{lesson.id} builds on no lesson, so it needs 'starts_from': what a learner needs first")
        ids = [c.id for c in lesson.claims]
        if len(set(ids)) != len(ids):
            raise CourseError(f"{lesson.id} has two claims with one id")
        ids = [q.id for q in lesson.questions]
        if len(set(ids)) != len(ids):
            raise CourseError(f"{lesson.id} has two questions with one id")


def _pair_checks(course: Course) -> None:
    """Import every lesson's check functions: each claim must have one, and each one a claim."""
    from labs.course.registry import REGISTRY

    course.import_check_modules()
    for lesson in course.lessons.values():
        for claim in lesson.claims:
            course.check_function(claim)
    for (lesson_id, claim_id), function in REGISTRY.items():
        owner = course.lessons.get(lesson_id)
        if owner is None or claim_id not in [c.id for c in owner.claims]:
            raise CourseError(f"check function for {lesson_id}.{claim_id} has no claim in the lesson data")
        if function.__module__ != checks_module(lesson_id):  # the page imports only that module for its checks
            raise CourseError(f"check function for {lesson_id}.{claim_id} is in {function.__module__}, "
                              f"not in {checks_module(lesson_id)}")


def checks_module(lesson_id: str) -> str:
    """The name a lesson's checks.py is imported under: 'labs.lessons.l10' for 'L10'."""
    return f"labs.lessons.{lesson_id.lower()}"


def import_checks(lesson: Lesson) -> None:
    """Import a lesson's checks.py (once), whose functions register themselves for its claims."""
    name = checks_module(lesson.id)
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, lesson.folder / CHECKS_FILE)
    if spec is None or spec.loader is None:
        raise CourseError(f"{lesson.folder.name}/{CHECKS_FILE} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


@cache
def load_course(lessons_dir: Path = LESSONS_DIR, reference_dir: Path = REFERENCE_DIR, checks: bool = True) -> Course:
    """Read and validate the whole course (once per process, pair of folders and ``checks``).

    With ``checks``, every lesson's check functions are imported and paired with its claims. Without, as
    in the page's Python (whose course the build checked), a lesson's functions are imported when one of
    its claims is first run: a start imports none of the eighteen modules.
    """
    reference, found = _reference_gaps(reference_dir)
    built = _built_tables(lessons_dir)
    parts = _read_parts(lessons_dir, built)
    raw_specs: dict[str, dict] = {}
    lessons: dict[str, Lesson] = {}
    for folder in lesson_folders(lessons_dir):
        lesson_id = folder_lesson(folder)
        table = _read_table(folder / LESSON_FILE, built, lessons_dir)
        if table.get("id") != lesson_id:
            raise CourseError(f"{folder.name}/{LESSON_FILE}: 'id' must be {lesson_id!r}, as the folder's number says")
        specs = _read_gap_specs(lesson_id, table)
        for spec in specs:
            if spec["id"] in raw_specs:
                raise CourseError(f"gap {spec['id']} is defined twice")
            raw_specs[spec["id"]] = spec
        lessons[lesson_id] = Lesson(
            id=lesson_id,
            part=part_of(parts, lesson_id),
            title=_text(table, "title", lesson_id),
            question=_text(table, "question", lesson_id),
            minutes=int(table.get("minutes", 20)),
            builds_on=tuple(table.get("builds_on", ())),
            can_now=_text(table, "can_now", lesson_id),
            needs=tuple(table.get("needs", ())),
            gaps=tuple(spec["id"] for spec in specs),
            claims=tuple(_read_claims(lesson_id, table)),
            questions=tuple(_read_questions(lesson_id, table)),
            starts_from=str(table.get("starts_from", "")).strip(),
            folder=folder,
        )
    for gap_id in raw_specs:
        if not re.fullmatch(GAP_ID, gap_id):
            raise CourseError(f"gap id {gap_id!r} is not of the form L10.name")
    gaps, regions = _build_regions(raw_specs, found)
    parts = [Part(p.number, p.title, p.first, tuple(key for key, one in lessons.items() if one.part == p.number),
                  p.intro)
             for p in parts]
    course = Course(lessons, gaps, regions, reference, tuple(parts))
    _validate(course)
    if checks:
        _pair_checks(course)
    return course
