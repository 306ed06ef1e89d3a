"""The page shows each output item as labs/showing/render.py draws it: the same HTML, plus only what moves."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from labs.checking.learner import Work
from labs.frontends.session import Session
from labs.showing.render import Look, render

from .learner import open_page, replace_cell_code, run_cell, wait_for_lab

LESSON_01 = "lessons/01-slopes-by-nudging/"
# Every kind a cell can show without the learner's engine, with text that would be markup if it were not escaped.
CODE = '''\
print("<b>bold?</b>")
print("\\n".join(f"line <{i}>" for i in range(1005)))
show_table(["name", "<h>"], [("<script>x</script>", 0.5), ("a & b", 3)], title="<ledger>")
plot({"<a>": [(1, 1.0), (2, 0.5), (3, 0.2)], "b": [(1, 2.0), (3, 1.0)]}, title="t", log_y=True, key="k")
show_field(lambda p: p[0] * p[1], (-1, 1, -1, 1), [((0.5, 0.5), (0.5, -0.5))], resolution=6, title="<xy>")
show_boundary(lambda x, y: x - y, [(0, 1), (1, 0), (0.5, 0.2)], [1, -1, 1], resolution=5, title="split")
recipe = {"serve": ["bake", "<tea>"], "bake": ["mix"], "mix": [], "<tea>": []}
def order(root, parents):
    done, out = set(), []
    def visit(n):
        if n not in done:
            done.add(n)
            for p in parents(n):
                visit(p)
            out.append(n)
    visit(root)
    return out
show_sort_steps(order, "serve", recipe.__getitem__, title="<recipe>")
'''

# The output as the page shows it, without what the page's own code added (marked data-ui) and
# without the hiding of a step-through's frames: the rest must be Python's HTML as it is.
SHOWN = """(output) => {
  const copy = output.cloneNode(true);
  copy.querySelectorAll("[data-ui]").forEach((node) => node.remove());
  copy.querySelectorAll("[hidden]").forEach((node) => node.removeAttribute("hidden"));
  return copy.innerHTML;
}"""
# Python's HTML read back by the browser, so that both sides are written out the same way; the page's sanitizer
# (web/src/base/sanitize.js, DOMPurify) trims attribute values, such as the newline that ends a picture's DOT.
AS_BROWSER = """(html) => {
  const t = document.createElement('template');
  t.innerHTML = html;
  for (const node of t.content.querySelectorAll('*')) for (const a of node.attributes) a.value = a.value.trim();
  return t.innerHTML;
}"""


def test_a_cells_output_is_the_html_python_renders_for_its_items(page: Page, base_url: str,
                                                              terminal_session: Session) -> None:
    open_page(page, base_url + LESSON_01)
    wait_for_lab(page)
    replace_cell_code(page, 0, CODE)
    output = run_cell(page, 0)
    stepper = output.locator('.ember-stepper[data-kind="sort-steps"]')
    expect(stepper.locator("svg g.node")).not_to_have_count(0)  # viz.js drew the picture
    expect(stepper.get_by_role("button", name="Next")).to_be_visible()
    expect(output.get_by_role("button", name="Download it")).to_be_visible()  # long text: its buttons
    room = output.evaluate("(o) => o.clientWidth")
    result = terminal_session.run_cell("test", "L01", Work({}, {}), CODE, room=room)
    items = json.loads(result)["outputs"]
    assert [item["kind"] for item in items] == ["stdout", "table", "plot", "field", "boundary", "sort_steps"]
    expected = page.evaluate(AS_BROWSER, "".join(render(item, Look(room=room)) for item in items))
    assert output.evaluate(SHOWN) == expected
    assert output.locator("script").count() == 0 and "&lt;script&gt;" in expected
