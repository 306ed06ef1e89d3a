"""The build renders each page's math with KaTeX (web/prerender-math.mjs), so no page runs KaTeX."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "web" / "prerender-math.mjs"

HEAD = '<head><link rel="stylesheet" href="../../assets/stylesheets/main.css"></head>'
PAGE = HEAD + """<p>Take <span class="arithmatex">\\(x &gt; 0 \\;\\&amp;\\; y &lt; 1\\)</span> and</p>
<div class="arithmatex">\\[\\frac{\\partial c}{\\partial x} = 7\\]</div>
<pre><code>print("\\\\(not math\\\\)")</code></pre>"""


def prerender(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", str(SCRIPT), str(site)], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_inline_and_display_math_become_katex_html_from_their_unescaped_tex(tmp_path: Path) -> None:
    page = tmp_path / "lessons" / "one" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE, encoding="utf-8")
    done = prerender(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 formulas rendered" in done.stdout
    html = page.read_text(encoding="utf-8")
    assert html.count('class="katex"') == 2 and html.count('class="katex-display"') == 1
    # KaTeX keeps the TeX it was given in its MathML: the entities were turned back into characters first
    assert '<annotation encoding="application/x-tex">x &gt; 0 \\;\\&amp;\\; y &lt; 1</annotation>' in html
    assert 'class="arithmatex">\\(' not in html and 'class="arithmatex">\\[' not in html
    assert '<code>print("\\\\(not math\\\\)")</code>' in html  # code is not math


def test_a_page_with_math_asks_for_the_fonts_its_math_uses_before_its_style_sheets(tmp_path: Path) -> None:
    fonts = "../../assets/gen/katex/fonts"
    for name, math in (("letters", "\\(x + 1\\)"), ("digits", "\\(2 + 1\\)")):
        page = tmp_path / "lessons" / name / "index.html"
        page.parent.mkdir(parents=True)
        page.write_text(f'{HEAD}<p><span class="arithmatex">{math}</span></p>', encoding="utf-8")
    (tmp_path / "plain.html").write_text(HEAD + "<p>no math</p>", encoding="utf-8")
    assert prerender(tmp_path).returncode == 0
    main, italic = (f'<link rel="preload" href="{fonts}/KaTeX_{font}.woff2" as="font" type="font/woff2" crossorigin>'
                    for font in ("Main-Regular", "Math-Italic"))
    letters = (tmp_path / "lessons" / "letters" / "index.html").read_text(encoding="utf-8")
    assert letters.startswith(f"<head>{main}{italic}<link rel=\"stylesheet\"")  # a letter is set in Math-Italic
    digits = (tmp_path / "lessons" / "digits" / "index.html").read_text(encoding="utf-8")
    assert digits.startswith(f"<head>{main}<link rel=\"stylesheet\"") and "Math-Italic" not in digits
    assert (tmp_path / "plain.html").read_text(encoding="utf-8") == HEAD + "<p>no math</p>"


@pytest.mark.parametrize(("name", "math", "says"), [
    ("broken.html", "\\(\\frac{1}{\\)", "KaTeX cannot render"),  # TeX that KaTeX refuses
    ("unclosed.html", "\\(x + 1", "math left unrendered"),  # math the pattern cannot match
    ("bare.html", "\\(x + 1\\)", "no style sheet"),  # nowhere to ask for its fonts before the style sheets
])
def test_math_that_cannot_be_rendered_fails_the_build_naming_the_page(tmp_path: Path, name: str, math: str,
                                                                      says: str) -> None:
    (tmp_path / name).write_text(f'<span class="arithmatex">{math}</span>', encoding="utf-8")
    done = prerender(tmp_path)
    assert done.returncode != 0
    assert name in done.stderr and says in done.stderr


def test_the_notebook_app_is_left_alone(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "notebook").mkdir(parents=True)
    (site / "notebook" / "index.html").write_text(PAGE, encoding="utf-8")
    assert prerender(site).returncode == 0
    assert (site / "notebook" / "index.html").read_text(encoding="utf-8") == PAGE
