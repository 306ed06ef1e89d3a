"""Learner code runs in the worker and cannot reach the page: what it posts the page is cleaned or dropped.

A cell and a lab's gap post the page made-up worker messages whose HTML carries script (event-handler attributes,
<script>, javascript: links, frames, forms, a Graphviz picture with a javascript: URL, mutation tricks). Each
script would call ``emberScriptRan``, a function the test gives the page: it must never be called. The outputs a
cell shows the usual way (a table, a plot, a drawn graph) still show, the pages carry their Content-Security-Policy,
and the worker's code finds no IndexedDB, Cache API or new workers to reach the site's stored data with.
"""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import ConsoleMessage, Locator, Page, expect

from .learner import RUN_MS, open_page, replace_cell_code, run_cell, run_checks, settled, type_into_gap, wait_for_lab

LESSON_01 = "lessons/01-slopes-by-nudging/"

# Each would call emberScriptRan(name) if it ran in the page.
HOSTILE = [
    """<img src="data:," onerror="emberScriptRan('img onerror')">""",
    """<script>emberScriptRan('script')</script>""",
    """<svg onload="emberScriptRan('svg onload')"><circle r="5"></circle></svg>""",
    """<a href="javascript:emberScriptRan('javascript link')">a link</a>""",
    """<a href=" jAvAsCrIpT:emberScriptRan('mixed-case link')">another link</a>""",
    """<svg><a xlink:href="javascript:emberScriptRan('svg link')"><text x="0" y="15">svg link</text></a></svg>""",
    """<svg><animate onbegin="emberScriptRan('animate onbegin')" attributeName="x" dur="1s"></animate></svg>""",
    """<iframe srcdoc="<script>parent.emberScriptRan('iframe')</script>"></iframe>""",
    """<details open ontoggle="emberScriptRan('details ontoggle')"><summary>s</summary></details>""",
    """<math><mtext><table><mglyph><style><img src="data:," onerror="emberScriptRan('mxss')"></style></mglyph>"""
    """</table></mtext></math>""",
    """<form action="javascript:emberScriptRan('form')"><button>go</button></form>""",
    """<object data="javascript:emberScriptRan('object')"></object>""",
    """<meta http-equiv="refresh" content="0;url=javascript:emberScriptRan('meta')">""",
    """<noscript><p title="</noscript><img src="data:," onerror=emberScriptRan('noscript')>"></noscript>""",
    """<div><figure class="ember-figure" data-dot='digraph { a [URL="javascript:emberScriptRan(1)"]; a -> b }'"""
    """ data-alt="dot"></figure></div>""",
    """<div class="ember-stepper"><ol class="ember-steps"><li class="ember-step" data-node="a">"""
    """<span class="ember-step-words"><img src="data:," onerror="emberScriptRan('step')"></span></li></ol></div>""",
]

# Python that posts the page made-up messages for every request id it might be answering (ids count up from 1).
FORGE = f"""
import builtins, js, json
HOSTILE = {json.dumps(HOSTILE)}
def forge(make):
    if getattr(builtins, "forged", False):  # once per worker: the checks call the gap's code many times
        return
    builtins.forged = True
    for i in range(1, 60):
        for message in make(i):
            js.postMessage(js.JSON.parse(json.dumps(message)))
"""

# A cell: made-up live items and a made-up answer to its run, after made-up messages of no shape the page knows.
FORGED_RUN = FORGE + """
forge(lambda i: [
    {"id": i},
    {"id": str(i), "ok": True, "result": {"outputs": [{"kind": "x", "html": HOSTILE[0]}], "error": None}},
    {"id": i, "ok": True, "result": {"outputs": HOSTILE[0]}},
    {"id": i, "ok": True, "result": {"outputs": [HOSTILE[0]], "error": None}},
    {"id": i, "ok": "yes", "result": {"outputs": [{"kind": "x", "html": HOSTILE[0]}]}},
    *({"id": i, "progress": {"kind": "plot", "key": f"k{n}", "html": h}} for n, h in enumerate(HOSTILE)),
    {"id": i, "ok": True, "result": {
        "outputs": [{"kind": "stdout", "html": h, "full": "long"} for h in HOSTILE],
        "error": {"kind": "error", "message": HOSTILE[0], "gap": None, "place": None}}},
])
"""

# A cell the usual way: a table, a plot and a drawn graph; and what the worker's code can reach.
LEGITIMATE = """
show_table(["name", "value"], [("a", 1), ("b", 2)], title="a table")
plot({"loss": [(1, 1.0), (2, 0.5), (3, 0.2)]}, title="a plot")
recipe = {"serve": ["bake"], "bake": ["mix"], "mix": []}
def order(root, parents):
    out = []
    def visit(n):
        if n not in out:
            for p in parents(n):
                visit(p)
            out.append(n)
    visit(root)
    return out
show_sort_steps(order, "serve", recipe.__getitem__, title="a graph")
import js
print("within reach:", [name for name in ("indexedDB", "caches", "Worker") if getattr(js, name, None) is not None])
"""

# The lab's gap: slope() that posts made-up answers to the checks (and live items) before it answers.
FORGED_GAP = (
    "def slope(f, x, h=1e-6):\n"
    + "".join(f"    {line}\n" for line in FORGE.strip().split("\n"))
    + """    forge(lambda i: [
        {"id": i, "ok": True, "result": {"results": HOSTILE}},
        *({"id": i, "progress": {"kind": "plot", "key": "k", "html": h}} for h in HOSTILE),
        {"id": i, "ok": True, "result": {"passed": False, "problem": None, "earlier": None, "results": [
            {"claim": "L01.square", "passed": False, "message": h, "problem": None} for h in HOSTILE]}},
    ])
    if h <= 0:
        raise ValueError("h must be positive")
    return (f(x + h) - f(x - h)) / (2 * h)
"""
)

# Whatever survived in an output that could run: elements, on… attributes, javascript: addresses.
RUNNABLE = """(root) => {
  const found = [];
  for (const node of root.querySelectorAll("script, iframe, object, embed, form, meta, style, base, noscript"))
    found.push(node.outerHTML);
  for (const node of root.querySelectorAll("*")) {
    for (const { name, value } of node.attributes) {
      if (name.startsWith("on")) found.push(`${node.localName} ${name}`);
      if (/^\\s*javascript:/i.test(value)) found.push(`${node.localName} ${name}=${value}`);
    }
  }
  return found;
}"""
# Click every link of an output that still goes somewhere, HTML's and SVG's, as a learner might.
CLICK_LINKS = """(root) => {
  const goes = (link) => link.hasAttribute("href") || link.hasAttribute("xlink:href");
  const links = [...root.querySelectorAll("a")].filter(goes);
  for (const link of links) link.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
  return links.length;
}"""


def listen(page: Page) -> tuple[list[str], list[str]]:
    """What ran (names given to emberScriptRan) and what the page's Content-Security-Policy refused, but for the
    event handlers of HTML the sanitizer reads: its inert parse meets the policy before it takes the handlers out."""
    ran: list[str] = []
    refused: list[str] = []
    page.expose_function("emberScriptRan", lambda name: ran.append(str(name)))

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text and "inline event handler" not in message.text:
            refused.append(message.text)
    page.on("console", console)
    return ran, refused


def no_script_in(output: Locator) -> None:
    assert output.evaluate(RUNNABLE) == []
    output.evaluate(CLICK_LINKS)


def test_made_up_worker_messages_run_no_script_and_real_outputs_still_show(page: Page, base_url: str) -> None:
    ran, refused = listen(page)
    open_page(page, base_url + LESSON_01)
    wait_for_lab(page)
    replace_cell_code(page, 0, FORGED_RUN)
    output = run_cell(page, 0)
    # The page took the made-up answer (its shape is right), and showed its HTML cleaned: text stays, script goes.
    expect(output.locator(".ember-error[role=alert]")).to_contain_text("<img")  # a problem's message is text
    expect(output).to_contain_text("a link")
    no_script_in(output)
    expect(output.locator("figure[data-dot] svg g.node")).to_have_count(2)  # the made-up DOT, drawn and cleaned

    replace_cell_code(page, 0, LEGITIMATE)
    output = run_cell(page, 0)
    expect(output.locator("table").first).to_contain_text("value")
    expect(output.locator("svg[role=img]").first).to_be_visible()  # the plot
    expect(output.locator(".ember-stepper svg g.node")).to_have_count(3)  # the graph viz.js drew
    expect(output.get_by_role("button", name="Next")).to_be_visible()
    expect(output).to_contain_text("within reach: []")
    no_script_in(output)
    settled(page)  # an image's error, an animation's start: what would run has had its turn
    assert ran == []
    assert refused == []  # nothing the page needs was refused (its scripts, wasm, workers, styles, fonts, pictures)


def test_a_gap_run_by_the_checks_cannot_reach_the_page_either(page: Page, base_url: str) -> None:
    ran, refused = listen(page)
    open_page(page, base_url + LESSON_01)
    wait_for_lab(page)
    type_into_gap(page, "L01.slope", FORGED_GAP, indent="")
    claims = run_checks(page)
    lab = page.locator(".ember-lab")
    # The made-up report (well formed) was shown, its messages as text; the one of no known shape was dropped.
    expect(claims.first).to_contain_text("emberScriptRan", timeout=RUN_MS)
    no_script_in(lab)
    settled(page)
    assert ran == []
    assert refused == []


def test_the_pages_carry_a_policy_that_refuses_inline_script(page: Page, base_url: str) -> None:
    with urllib.request.urlopen(base_url + LESSON_01) as answer:
        header = answer.headers["Content-Security-Policy"]
        body = answer.read().decode()
    assert "frame-ancestors 'self'" in header and "script-src 'self' 'wasm-unsafe-eval' 'sha256-" in header
    assert '<meta http-equiv="Content-Security-Policy"' in body[:2000]  # before any script of the page
    assert "'unsafe-inline'" not in header.split("script-src")[1].split(";")[0]
    ran, refused = listen(page)
    open_page(page, base_url + LESSON_01)
    with page.expect_console_message(lambda message: "Executing inline script violates" in message.text):
        page.evaluate("""() => {
          const script = document.createElement("script");
          script.textContent = "emberScriptRan('inserted inline script')";
          document.body.append(script);
        }""")
    assert page.evaluate("typeof __md_get") == "function"  # the theme's own inline script ran (its hash is allowed)
    settled(page)
    assert ran == []
    # Refused (once by the page's own policy, once by the header's: both hold), and nothing else was.
    assert refused and all("Executing inline script violates" in text for text in refused), refused
