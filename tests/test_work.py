"""The learner's work across the seam: exact texts, markers typed in a gap, earlier pieces, output, input."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from labs.checking.learner import Work, build_modules, earlier_finished, finished_pieces
from labs.course.gaps import find_gaps
from labs.course.model import load_course
from labs.frontends.cli import main
from labs.frontends.session import NO_INPUT, NO_INPUT_BROWSER, Session
from labs.showing.outputs import SHOWN_LINES

COURSE = load_course()


def ask(session: Session, kind: str, payload: dict, **kwargs: Any) -> dict:
    return json.loads(session.handle(kind, json.dumps({"lab": "L10", **payload}), **kwargs))


def gap_texts(source: str) -> dict[str, str]:
    return {gap.id: gap.text for gap in find_gaps(source)}


# --- exact texts --------------------------------------------------------------------------

def test_an_exact_text_goes_into_the_module_byte_for_byte_tabs_and_all() -> None:
    typed = "    def backward(self) -> None:  \n\t# a tab, then trailing spaces   \n        pass"
    modules = build_modules(COURSE, "L10", Work(finished_pieces(COURSE, 9), {"L10.backward": typed}))
    assert gap_texts(modules["scalar.py"].source)["L10.backward"] == typed
    (gap,) = [g for g in modules["scalar.py"].gaps if g.id == "L10.backward"]
    assert gap.text == typed  # the answer says where the gap lies without parsing the file again
    lines = modules["scalar.py"].source.split("\n")
    assert lines[gap.open_line - 1].strip() == "# --- gap L10.backward ---"
    assert lines[gap.close_line - 1].strip() == "# --- end gap ---"


def test_mixed_tabs_and_spaces_come_back_as_typed_through_the_session(session: Session) -> None:
    typed = "  a\n\tb"
    answer = ask(session, "module", {"exact": {"L10.backward": typed}})
    assert gap_texts(answer["files"]["scalar.py"]["source"])["L10.backward"] == typed


def test_an_exact_text_of_an_earlier_stage_carries_into_the_reopened_gap() -> None:
    mine = ("        def _backward() -> None:\n"
            "            self.grad = out.grad  # mine\n            other.grad = out.grad")
    modules = build_modules(COURSE, "L09", Work({}, {"L08.add_backward": mine}))
    assert gap_texts(modules["scalar.py"].source)["L09.add_backward"] == mine


def test_older_saved_pieces_come_back_as_exact_texts_indented_to_their_gap(session: Session) -> None:
    body = "def __neg__(self) -> Value:\n    return self * -1\n"
    answer = ask(session, "module", {"pieces": {"L09.neg": body}})
    assert answer["exact"] == {"L09.neg": "    def __neg__(self) -> Value:\n        return self * -1"}
    again = ask(session, "module", {"exact": answer["exact"]})
    assert again["files"]["scalar.py"]["source"] == answer["files"]["scalar.py"]["source"]


# --- a marker typed inside a gap ----------------------------------------------------------

MARKED = "    def backward(self) -> None:\n        self.grad = 1.0\n        # --- end gap ---\n        x = 2"


def test_a_marker_typed_in_a_gap_is_named_by_its_line_and_nothing_is_dropped(session: Session) -> None:
    pieces = finished_pieces(COURSE, 9)
    module = ask(session, "module", {"pieces": pieces, "exact": {"L10.backward": MARKED}})
    assert module["problem"]["kind"] == "marker" and module["problem"]["gap"] == "L10.backward"
    assert module["problem"]["place"]["gap_line"] == 3
    assert "Line 3 of gap L10.backward looks like a gap marker" in module["problem"]["message"]
    (gap,) = [g for g in module["files"]["scalar.py"]["gaps"] if g["id"] == "L10.backward"]
    lines = module["files"]["scalar.py"]["source"].split("\n")
    assert "\n".join(lines[gap["open_line"]:gap["close_line"] - 1]) == MARKED  # all four lines are there

    report = ask(session, "check", {"pieces": pieces, "exact": {"L10.backward": MARKED}})
    assert report["problem"]["kind"] == "marker" and not report["passed"]
    assert all(r["problem"]["kind"] == "marker" for r in report["results"])
    cell = ask(session, "run", {"page": "/p/", "pieces": pieces, "exact": {"L10.backward": MARKED}, "code": "1"})
    assert cell["error"]["kind"] == "marker"


def test_a_marker_in_a_gap_of_a_later_lesson_does_not_block_this_one(session: Session) -> None:
    report = ask(session, "check", {"pieces": finished_pieces(COURSE, 10), "exact": {"L11.pow": MARKED}})
    assert report["passed"], report


# --- finished pieces for earlier gaps -----------------------------------------------------

def test_one_rule_fills_only_the_earlier_gaps_the_learner_left_out() -> None:
    mine = "def __neg__(self):\n    return self * -1  # mine\n"
    found = earlier_finished(COURSE, "L10", Work({"L09.neg": mine}))
    earlier = {gap_id for gap_id, gap in COURSE.gaps.items() if gap.number < 10}
    assert set(found.missing) == earlier - {"L09.neg"}
    assert found.own == ("L09.neg",)
    assert found.changes(COURSE, replace_own=True) == {"L09.neg": COURSE.gaps["L09.neg"].finished}
    assert not [gap_id for gap_id in found.missing if COURSE.gaps[gap_id].number >= 10]


def test_the_learners_own_earlier_pieces_are_told_apart_from_those_that_match_and_come_in_lesson_order() -> None:
    earlier = [gap_id for gap_id, gap in COURSE.gaps.items() if gap.number < 10]
    late, early = max(earlier, key=lambda g: COURSE.gaps[g].number), min(earlier, key=lambda g: COURSE.gaps[g].number)
    pieces = {gap_id: COURSE.gaps[gap_id].finished for gap_id in earlier}  # every earlier gap written
    pieces[late] += "    # mine\n"
    pieces[early] += "    # mine too\n"
    found = earlier_finished(COURSE, "L10", Work(pieces))
    assert not found.missing
    assert found.own == (early, late)  # the earlier lesson first, whatever the files' order
    assert found.matching == len(earlier) - 2


def test_the_page_gets_the_finished_pieces_as_exact_texts(session: Session) -> None:
    answer = ask(session, "earlier", {"exact": {"L07.init": "    pass"}})
    assert "L07.init" not in answer["changes"] and answer["own"] == ["L07.init"]
    assert answer["changes"]["L09.neg"].startswith("    def __neg__")
    work = Work({"L07.init": COURSE.gaps["L07.init"].finished}, answer["changes"])
    modules = build_modules(COURSE, "L10", work)
    assert gap_texts(modules["scalar.py"].source)["L09.neg"] == answer["changes"]["L09.neg"]


def test_the_command_line_uses_the_same_rule(tmp_path: Path, capsys) -> None:
    assert main(["start", "L10", "--dir", str(tmp_path), "--ref-deps"]) == 0
    source = (tmp_path / "ember" / "scalar.py").read_text()
    missing = earlier_finished(COURSE, "L10", Work()).missing
    assert f"{len(missing)} earlier gaps you had not written" in capsys.readouterr().out
    bodies = {gap.id: gap.body for gap in find_gaps(source)}
    assert bodies["L09.neg"] == COURSE.gaps["L09.neg"].finished


def test_the_terminal_names_ref_deps_for_a_missing_earlier_gap(tmp_path: Path, capsys) -> None:
    assert main(["start", "L10", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["check", "L10", "--file", str(tmp_path / "ember" / "scalar.py")]) == 1
    assert "python -m labs start L10 --ref-deps" in capsys.readouterr().out


# --- what a cell prints -------------------------------------------------------------------

def test_a_flood_of_output_is_quick_and_capped_on_screen(session: Session) -> None:
    started = time.perf_counter()
    result = ask(session, "run", {"page": "/p/", "pieces": {}, "code": "for i in range(200_000):\n    print(i)"})
    assert time.perf_counter() - started < 10  # the old merging of strings took over a minute here
    (item,) = result["outputs"]
    assert item["text"].count("\n") == SHOWN_LINES and item["text"].startswith("0\n1\n")
    assert item["more_lines"] == 200_000 - SHOWN_LINES and item["total_lines"] == 200_000
    assert item["full"].endswith("199999\n") and item["full"].count("\n") == 200_000


def test_short_output_is_sent_whole_and_text_goes_live_in_batches(session: Session) -> None:
    live: list[str] = []
    code = "import time\nfor i in range(3):\n    print('step', i)\n    time.sleep(0.12)\nprint('done')"
    result = ask(session, "run", {"page": "/p/", "pieces": {}, "code": code}, live=live.append)
    assert [{k: v for k, v in item.items() if k != "html"} for item in result["outputs"]] == [
        {"kind": "stdout", "text": "step 0\nstep 1\nstep 2\ndone\n"}]
    batches = [json.loads(text) for text in live]
    assert batches and all(b["kind"] == "text" for b in batches)
    assert batches[-1]["text"].startswith("step 0") and len(batches) <= 4


def test_input_asks_the_page_and_waits_for_the_answer(session: Session) -> None:
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "Ada"

    code = "name = input('Your name? ')\nprint('Hello,', name)"
    result = ask(session, "run", {"page": "/p/", "pieces": {}, "code": code}, ask=answer)
    assert prompts == ["Your name? "]
    assert result["error"] is None
    assert result["outputs"][0]["text"] == "Your name? Ada\nHello, Ada\n"


def test_input_without_a_way_to_wait_says_why_in_one_sentence(session: Session) -> None:
    result = ask(session, "run", {"page": "/p/", "pieces": {}, "code": "x = input()"})
    assert result["error"]["message"] == f"InputUnavailable: {NO_INPUT} (line 1 of this cell)"
    cancelled = ask(session, "run", {"page": "/p/", "pieces": {}, "code": "x = input()"}, ask=lambda prompt: None)
    assert cancelled["error"]["kind"] == "stopped"


def test_input_in_a_browser_that_shares_no_memory_blames_the_browser_not_the_host(session: Session) -> None:
    session.input_missing = "browser"  # as the page's worker sets it on an isolated page without SharedArrayBuffer
    result = ask(session, "run", {"page": "/p/", "pieces": {}, "code": "x = input()"})
    assert result["error"]["message"] == f"InputUnavailable: {NO_INPUT_BROWSER} (line 1 of this cell)"
    assert "server" not in NO_INPUT_BROWSER and "this browser" in NO_INPUT_BROWSER


def test_a_new_attribute_on_a_slotted_value_is_explained(session: Session) -> None:
    code = "from ember.scalar import Value\nv = Value(1.0)\nv.colour = 'red'"
    result = ask(session, "run", {"page": "/p/", "pieces": finished_pieces(COURSE, 9), "code": code})
    assert "lists the attributes it can hold in __slots__" in result["error"]["message"]
    assert "'colour'" in result["error"]["message"]
