"""Lesson 10 as a new learner meets it: questions, examples, the lab, Stop, and coming back."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from labs.checking.pipeline import check_lesson
from labs.course.model import load_course
from labs.course.questions import option_order

from .harness import LESSON_10, SITE
from .learner import (
    BOOT_MS,
    BREADTH_FIRST,
    LOOP_THAT_SAYS_SO,
    RUN_MS,
    cell,
    held,
    lab_editor,
    load_finished_pieces,
    open_page,
    replace_cell_code,
    run_cell,
    run_checks,
    stored_body,
    stored_piece,
    type_into_gap,
    wait_for_lab,
)

COURSE = load_course()
FINISHED_BACKWARD = COURSE.gaps["L10.backward"].finished


def test_questions_answer_before_python_is_ready(page: Page, base_url: str) -> None:
    with held(page.context, "**/assets/gen/manifest.json"):  # Python's start waits for it
        open_page(page, base_url + LESSON_10)
        question = page.locator('.ember-question[data-question="L10.bfs"]')
        question.get_by_label("28", exact=True).check()
        expect(question.locator(".ember-feedback")).to_contain_text("Not quite.")
        expect(question.locator(".ember-feedback")).to_contain_text("visited too early")
        expect(question.locator(".ember-explain")).to_be_hidden()  # a wrong pick leaves room for another try
        question.get_by_label("4", exact=True).check()
        expect(question.locator(".ember-feedback")).to_contain_text("Right.")
        expect(question.locator(".ember-explain")).to_be_visible()
        assert page.evaluate("document.documentElement.dataset.python") == "starting"  # all of it before Python
    page.reload()
    expect(page.locator('.ember-question[data-question="L10.bfs"] input[value="four"]')).to_be_checked()


def test_the_keyboard_alone_answers_a_question(page: Page, base_url: str) -> None:
    key = "L10.safe_order"
    question = next(q for q in COURSE.lesson("L10").questions if q.id == "safe_order")
    ids = [option.id for option in question.options]
    # a learner whose second option is a wrong one: the arrow key picks it, then they ask for the answer
    seed = next(s for s in (f"{n:08x}" for n in range(100)) if option_order(s, key, ids)[1] != question.answer)
    page.goto(base_url + "hosting/")
    page.evaluate("seed => localStorage.setItem('ember:v1', JSON.stringify({ seed }))", seed)
    open_page(page, base_url + LESSON_10)
    box = page.locator(f'.ember-question[data-question="{key}"]')
    box.locator("input").first.focus()
    page.keyboard.press("ArrowDown")  # radio groups move and select with the arrow keys
    expect(box.locator(f'input[value="{option_order(seed, key, ids)[1]}"]')).to_be_checked()
    feedback = box.locator(".ember-feedback")
    expect(feedback).to_contain_text("Not quite.")
    page.keyboard.press("Tab")  # from the options to Show the answer
    expect(box.get_by_role("button", name="Show the answer")).to_be_focused()
    page.keyboard.press("Enter")
    expect(box.locator(".ember-explain")).to_be_visible()
    expect(feedback).to_be_focused()


def test_the_breadth_first_example_gives_4_against_28_with_a_drawing(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    output = run_cell(page, 0)
    expect(output.locator(".ember-error")).to_contain_text("Not written yet")
    output.get_by_role("button", name="Load the finished pieces of earlier lessons").click()
    expect(output).to_contain_text("Loaded. Run the cell again.")  # the pieces are written: run it only now
    output = run_cell(page, 0)
    expect(output).to_contain_text("w.grad = 4.0")
    expect(output).to_contain_text("dc/dw  = 28.0")
    expect(output.locator("table.hx-table")).to_contain_text("28")
    expect(output.locator("svg")).to_have_count(1)
    expect(output.locator("svg g.node")).not_to_have_count(0)


def test_the_recursive_sort_raises_recursion_error(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    expect(run_cell(page, 1)).to_contain_text("RecursionError: maximum recursion depth exceeded")


def test_the_lab_from_starter_to_every_claim_passing(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)

    claims = run_checks(page)
    expect(claims).to_have_count(len(COURSE.lesson("L10").claims))
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "fail")
    expect(claims.first).to_contain_text("Write gap L10.backward first: it still holds its starter.")

    type_into_gap(page, "L10.backward", FINISHED_BACKWARD)
    claims = run_checks(page)
    for index in range(claims.count()):
        expect(claims.nth(index)).to_have_attribute("data-state", "pass")
    expect(page.locator(".ember-closing")).to_have_attribute("data-lit", "true")

    type_into_gap(page, "L10.backward", BREADTH_FIRST)
    claims = run_checks(page)
    trap = page.locator('.ember-claims li[data-claim="L10.trap_graph"]')
    expect(trap).to_have_attribute("data-state", "fail")
    expect(trap).to_contain_text("w.grad should be 28.0 and x.grad 7.0; got w.grad = 4.0")

    page.reload()
    wait_for_lab(page)
    assert "queue.pop(0)" in (stored_piece(page, "L10.backward") or "")
    expect(lab_editor(page)).to_contain_text("queue = [self]", timeout=RUN_MS)  # drawn once the lab has scrolled


def test_text_outside_the_gaps_cannot_change(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    editor = lab_editor(page)
    editor.locator(".cm-line", has_text="# --- gap L10.backward ---").click()
    page.keyboard.insert_text("oops")
    expect(editor).not_to_contain_text("oops")
    page.locator('.ember-gap[data-gap="L10.backward"]').get_by_role("button", name="Go to the gap").click()
    page.keyboard.press("Backspace")  # would join the gap's first line to its marker
    marker = editor.locator(".cm-line", has_text="# --- gap L10.backward ---")
    expect(marker).to_have_text("    # --- gap L10.backward ---")
    assert stored_piece(page, "L10.backward") is None
    page.locator('.ember-gap[data-gap="L10.backward"]').get_by_role("button", name="Go to the gap").click()
    page.keyboard.insert_text("# mine")  # inside the gap, typing works
    expect(editor).to_contain_text("# mine")
    assert "# mine" in (stored_piece(page, "L10.backward") or "")


def test_stop_interrupts_an_endless_loop_in_place_and_python_runs_again(page: Page, base_url: str) -> None:
    """On an isolated page Stop interrupts Python where it is: what the loop had made is still there after it.
    (A restart, the fallback when an interrupt does not land, would lose it.) How long Stop takes is
    bench/site.py's figure; the bound here only says that Stop ends the run at all."""
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    replace_cell_code(page, 2, LOOP_THAT_SAYS_SO.format(name="turns"))
    box = cell(page, 2)
    box.get_by_role("button", name="Run", exact=True).click()
    stop = box.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    expect(box.locator(".ember-output")).to_contain_text("looping", timeout=RUN_MS)  # the loop is under way
    stop.click()
    expect(box.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=10_000)
    expect(box.locator(".ember-output")).to_contain_text("Stopped")
    expect(box.locator(".ember-output")).not_to_contain_text("restarted")
    replace_cell_code(page, 2, "print(turns > 0, 6 * 7)")
    expect(run_cell(page, 2)).to_contain_text("True 42")


def test_without_isolation_stop_restarts_python_and_keeps_the_code(page: Page, plain_url: str) -> None:
    open_page(page, plain_url + LESSON_10)
    wait_for_lab(page)
    type_into_gap(page, "L10.backward", FINISHED_BACKWARD)
    replace_cell_code(page, 2, LOOP_THAT_SAYS_SO.format(name="turns"))
    box = cell(page, 2)
    box.get_by_role("button", name="Run", exact=True).click()
    expect(box.locator(".ember-output")).to_contain_text("looping", timeout=RUN_MS)  # the loop is under way
    box.get_by_role("button", name="Stop").click()
    expect(box.locator(".ember-output")).to_contain_text("Python was restarted", timeout=10_000)
    expect(page.locator(".ember-toast")).to_contain_text("Your code is safe")
    expect(page.locator("#ember-python")).to_have_attribute("data-state", "ready", timeout=BOOT_MS)
    check = "from ember.scalar import Value\nimport inspect\nprint('stack' in inspect.getsource(Value.backward))"
    replace_cell_code(page, 2, check)
    expect(run_cell(page, 2)).to_contain_text("True")


def test_loading_the_finished_pieces_can_be_undone(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    mine = "def __neg__(self) -> Value:\n    return self * -1  # mine"
    page.goto(base_url + "lessons/10-order-of-blame/")
    page.evaluate(
        """mine => {
          const state = JSON.parse(localStorage.getItem('ember:v1') || '{"pieces":{}}');
          state.pieces['L09.neg'] = {code: mine + '\\n', version: 'test'};
          localStorage.setItem('ember:v1', JSON.stringify(state));
        }""",
        mine,
    )
    page.reload()
    wait_for_lab(page)
    load_finished_pieces(page)
    assert stored_body(page, "L07.init") == COURSE.gaps["L07.init"].finished
    assert stored_body(page, "L09.neg") == mine + "\n"  # the learner's own piece is kept
    expect(page.locator(".ember-replace")).to_contain_text("L09.neg")
    page.locator(".ember-lab").get_by_role("button", name="Undo").click()
    expect(page.locator(".ember-lab .ember-notice")).to_have_text("Undone.")
    assert stored_piece(page, "L07.init") is None
    assert stored_body(page, "L09.neg") == mine + "\n"


def test_the_home_page_lists_the_course_and_progress(page: Page, base_url: str) -> None:
    page.goto(base_url + LESSON_10)
    wait_for_lab(page)
    page.goto(base_url)
    lessons = page.locator(".ember-lessons li")
    expect(lessons).to_have_count(len(COURSE.lessons))
    for part in COURSE.parts:
        if part.lessons:
            listed = page.locator(f'.ember-home[data-part="{part.number}"] .ember-lessons')
            expect(listed).to_have_attribute("start", str(COURSE.lessons[part.lessons[0]].number))
            expect(listed.locator("li")).to_have_count(len(part.lessons))
    expect(page.locator('.ember-lessons li[data-lesson="L10"]')).to_have_attribute("data-state", "started")
    expect(page.get_by_role("link", name="Continue where you left off: The order of blame")).to_be_visible()
    expect(page.locator("main")).to_contain_text("Part I")
    expect(page.locator("main")).to_contain_text("Part III")


def test_math_is_rendered_by_the_sites_own_katex(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    expect(page.locator(".katex").first).to_be_visible()


def test_opening_the_site_from_disk_says_how_to_serve_it(page: Page, browser) -> None:
    page.goto((SITE / LESSON_10 / "index.html").as_uri())
    expect(page.locator("#ember-file-warning")).to_contain_text("needs a small web server")


def test_a_crash_of_python_restarts_it_and_the_page_says_so(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    deep = "\n".join([
        "import sys", "sys.setrecursionlimit(100000)", "nested = []",
        "for _ in range(200000):", "    nested = [nested]", "repr(nested)",
    ])
    replace_cell_code(page, 2, deep)
    output = run_cell(page, 2)
    expect(output).to_contain_text("Python crashed")
    expect(output).to_contain_text("Your code is safe")
    expect(page.locator("#ember-python")).to_have_attribute("data-state", "ready", timeout=BOOT_MS)
    replace_cell_code(page, 2, "print(6 * 7)")
    expect(run_cell(page, 2)).to_contain_text("42")


def test_pieces_saved_under_an_older_course_version_still_load(page: Page, base_url: str) -> None:
    page.goto(base_url + LESSON_10)
    page.evaluate(
        """code => localStorage.setItem('ember:v1', JSON.stringify({
             pieces: {'L10.backward': {code, version: 'an-older-version', saved: 0}}}))""",
        FINISHED_BACKWARD.replace("order: list[Value] = []", "order: list[Value] = []  # from last term"),
    )
    page.reload()
    wait_for_lab(page)
    expect(lab_editor(page)).to_contain_text("# from last term")


def test_a_gap_can_be_reset_and_the_reset_undone(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    type_into_gap(page, "L10.backward", BREADTH_FIRST)
    assert "queue.pop(0)" in (stored_piece(page, "L10.backward") or "")
    lab = page.locator(".ember-lab")
    page.locator('.ember-gap[data-gap="L10.backward"]').get_by_role("button", name="Reset this gap").click()
    expect(lab.locator(".ember-notice")).to_contain_text("holds its starting code again")
    expect(lab_editor(page)).to_contain_text("raise NotImplementedError")
    assert stored_piece(page, "L10.backward") is None
    lab.get_by_role("button", name="Undo").click()
    expect(lab_editor(page)).to_contain_text("queue = [self]", timeout=RUN_MS)  # drawn once the lab has scrolled
    assert "queue.pop(0)" in (stored_piece(page, "L10.backward") or "")


def test_the_learner_downloads_their_module(page: Page, base_url: str) -> None:
    open_page(page, base_url + LESSON_10)
    wait_for_lab(page)
    load_finished_pieces(page)
    type_into_gap(page, "L10.backward", FINISHED_BACKWARD)
    with page.expect_download() as download:
        page.locator(".ember-lab").get_by_role("button", name="Download my ember/scalar.py").click()
    assert download.value.suggested_filename == "scalar.py"
    text = download.value.path().read_text(encoding="utf-8")
    assert "# --- gap L10.backward ---" in text and "stack: list[tuple[Value, bool]]" in text
    assert check_lesson("L10", {"scalar.py": text}).passed
