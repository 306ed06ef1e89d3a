"""scripts/page_policy.py: every page's Content-Security-Policy, with the hashes of the inline scripts it runs; and
scripts/serve.py sending it as a header."""

from __future__ import annotations

import base64
import hashlib
import http.client
import threading
from pathlib import Path

from scripts.page_policy import apply, inline_scripts, page_policy, script_hash
from scripts.serve import make_server

HEAD = '<!doctype html><html><head><meta charset="utf-8">'
PAGE = (HEAD + '<script data-gen="x">boot()</script><script src="a.js"></script>'
        '<script id="__config" type="application/json">{"a": 1}</script>'
        '<script id="ember-theme" type="text/plain" data-src="t.js"></script></head>'
        '<body><script>palette()</script><script type="module">go()</script></body></html>')
OTHER = HEAD + "</head><body><script>other()</script></body></html>"


def sha(text: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def test_only_the_inline_scripts_that_run_are_hashed() -> None:
    assert inline_scripts(PAGE) == ["boot()", "palette()", "go()"]
    assert script_hash("boot()") == sha("boot()")


def site(tmp_path: Path) -> Path:
    (tmp_path / "lesson").mkdir()
    (tmp_path / "lesson" / "index.html").write_text(PAGE)
    (tmp_path / "index.html").write_text(OTHER)
    (tmp_path / "notebook").mkdir()
    (tmp_path / "notebook" / "index.html").write_text(OTHER.replace("other()", "jupyter()"))
    return tmp_path


def test_every_page_but_the_notebooks_gets_one_policy_with_every_hash_before_its_scripts(tmp_path: Path) -> None:
    folder = site(tmp_path)
    policy = apply(folder)
    script_src = next(part for part in policy.split("; ") if part.startswith("script-src "))
    assert script_src.split() == ["script-src", "'self'", "'wasm-unsafe-eval'",
                                  *sorted(sha(s) for s in ("boot()", "palette()", "go()", "other()"))]
    assert "'unsafe-inline'" not in script_src and "object-src 'none'" in policy and "base-uri 'self'" in policy
    for page in (folder / "index.html", folder / "lesson" / "index.html"):
        text = page.read_text()
        assert page_policy(text) == policy
        assert text.index("Content-Security-Policy") < text.index("<script")  # it governs every script of the page
    assert page_policy((folder / "notebook" / "index.html").read_text()) is None
    assert apply(folder) == policy and (folder / "index.html").read_text().count("Content-Security-Policy") == 1


def test_serve_sends_a_pages_policy_as_a_header_with_frame_ancestors(tmp_path: Path) -> None:
    folder = site(tmp_path)
    policy = apply(folder)
    (folder / "app.js").write_text("x()")
    server = make_server(folder, 0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        headers = {}
        for path in ("/lesson/", "/index.html", "/notebook/", "/app.js"):
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            headers[path] = response.getheader("Content-Security-Policy")
            connection.close()
    finally:
        server.shutdown()
        server.server_close()
    assert headers["/lesson/"] == headers["/index.html"] == f"{policy}; frame-ancestors 'self'"
    assert headers["/notebook/"] is None and headers["/app.js"] is None
