"""The pages' Content-Security-Policy: the site's own scripts, and the inline ones the build wrote, by their hashes.

Every built page (not the notebook app's, under ``notebook/``) gets the policy as a ``<meta http-equiv>`` right after
its charset, so it holds on any host; ``scripts/serve.py`` sends it as a header too. One policy serves every page: the
theme's instant navigation swaps pages without a reload, so a page's inline scripts must be allowed by the policy of
the page the learner came in by. Usage: ``python scripts/page_policy.py SITE_DIR`` (after ``mkdocs build``).
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from pathlib import Path

NOT_HERE = "notebook"  # JupyterLite's pages: a policy of their own would break them (docs/hosting.md)
SCRIPT = re.compile(r"<script(\s[^>]*)?>(.*?)</script>", re.DOTALL | re.IGNORECASE)
TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
RUNS = {"", "text/javascript", "application/javascript", "module"}  # script types the browser runs
META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
CHARSET = re.compile(r"<meta charset=[^>]*>")

# What the pages need: Python's WebAssembly in the worker, the worker and the theme's search worker from the site,
# KaTeX's and the theme's inline styles (style attributes), pictures as data: and blob: (downloads, plots). No inline
# script but those hashed, no eval, no plugins, no <base>, forms only to the site.
DIRECTIVES = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'wasm-unsafe-eval'"),
    ("style-src", "'self' 'unsafe-inline'"),
    ("img-src", "'self' data: blob:"),
    ("font-src", "'self' data:"),
    ("connect-src", "'self' data: blob:"),
    ("worker-src", "'self' blob:"),
    ("frame-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
)


def inline_scripts(page: str) -> list[str]:
    """The text of every inline script of a page that the browser would run (not JSON data, not held ones)."""
    found = []
    for match in SCRIPT.finditer(page):
        attributes = match.group(1) or ""
        if re.search(r"\bsrc\s*=", attributes, re.IGNORECASE):
            continue
        kind = TYPE.search(attributes)
        if (kind[1].lower() if kind else "") in RUNS:
            found.append(match.group(2))
    return found


def script_hash(text: str) -> str:
    """A CSP source for an inline script: 'sha256-…' of its UTF-8 text."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def policy(hashes: list[str]) -> str:
    """The policy, with the inline scripts' hashes added to script-src."""
    parts = []
    for name, value in DIRECTIVES:
        if name == "script-src":
            value = " ".join([value, *hashes])
        parts.append(f"{name} {value}")
    return "; ".join(parts)


def pages(site: Path) -> list[Path]:
    """The site's HTML pages, without the notebook app's."""
    return sorted(path for path in site.rglob("*.html") if path.relative_to(site).parts[0] != NOT_HERE)


def apply(site: Path) -> str:
    """Write the policy into every page of ``site``; answer it."""
    files = pages(site)
    texts = {path: path.read_text(encoding="utf-8") for path in files}
    hashes = sorted({script_hash(script) for text in texts.values() for script in inline_scripts(text)})
    text_of_policy = policy(hashes)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{text_of_policy}">'
    for path, text in texts.items():
        text = META.sub("", text)
        charset = CHARSET.search(text)
        if charset is None:
            raise SystemExit(f"{path}: no <meta charset> to put the page's policy after")
        path.write_text(text[: charset.end()] + meta + text[charset.end() :], encoding="utf-8")
    return text_of_policy


def page_policy(page_head: str) -> str | None:
    """The policy a page carries in its head, or None."""
    found = META.search(page_head)
    return found[1] if found else None


if __name__ == "__main__":
    written = apply(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
    print(f"== Content-Security-Policy in every page: {len(written)} characters")
