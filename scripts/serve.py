"""A tiny static server for the built site, with the headers that let Stop interrupt Python.

Usage: python scripts/serve.py [FOLDER] [--port 8000] [--no-isolation]
It listens on 127.0.0.1 only. Where the build wrote a precompressed copy of a file (``.br``,
``.gz``) and the browser accepts that encoding, it sends the copy with ``Content-Encoding``.
A page that carries a Content-Security-Policy (scripts/page_policy.py writes it in) is sent with it as a
header too, with ``frame-ancestors 'self'``, which a policy in the page cannot say.
"""

from __future__ import annotations

import argparse
import contextlib
import email.utils
import functools
import http.server
import os
import re
import socket
import sys
from pathlib import Path
from typing import BinaryIO, ClassVar

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # preferred first
# The notebook app is served without the isolation headers: it needs none (its drive works through
# its own service worker), and JupyterLite 0.8.6's isolated path hangs when Python writes a file.
NOT_ISOLATED = "/notebook/"
POLICY = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
HEAD_BYTES = 16384  # the policy sits right after the charset, at the top of the head


def page_policy(path: Path) -> str | None:
    """The Content-Security-Policy a built page carries in its head (a header adds frame-ancestors), or None."""
    if path.suffix != ".html":
        return None
    with path.open("rb") as handle:
        found = POLICY.search(handle.read(HEAD_BYTES))
    return f"{found[1].decode()}; frame-ancestors 'self'" if found else None


def accepted(header: str) -> set[str]:
    """The encodings an Accept-Encoding header allows (those not given q=0)."""
    allowed = set()
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name and params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000"):
            allowed.add(name.strip().lower())
    return allowed


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves files with correct types; adds cross-origin isolation headers unless turned off."""

    isolate = True
    policy: str | None = None  # the page's Content-Security-Policy, set per request (send_head)
    extensions_map: ClassVar[dict[str, str]] = {  # type: ignore[misc]  # one map for every request
        **http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def send_head(self) -> BinaryIO | None:
        """Send a precompressed copy when there is one the browser accepts; otherwise as usual."""
        self.policy = None
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        if not path.is_file():
            return super().send_head()
        self.policy = None if self.path.startswith(NOT_ISOLATED) else page_policy(path)
        allowed = accepted(self.headers.get("Accept-Encoding", ""))
        for encoding, suffix in ENCODINGS:
            copy = path.with_name(path.name + suffix)
            if encoding in allowed and copy.is_file():
                return self.send_file(copy, self.guess_type(str(path)), encoding)
        if any(path.with_name(path.name + suffix).is_file() for _, suffix in ENCODINGS):
            return self.send_file(path, self.guess_type(str(path)), None)
        return super().send_head()

    def send_file(self, path: Path, content_type: str, encoding: str | None) -> BinaryIO | None:
        """Headers for one file of a file that has precompressed copies (answers 304 when unchanged)."""
        stat = path.stat()
        since = self.headers.get("If-Modified-Since")
        if since and "If-None-Match" not in self.headers:
            with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
                if int(stat.st_mtime) <= email.utils.parsedate_to_datetime(since).timestamp():
                    self.send_response(304)
                    self.send_header("Vary", "Accept-Encoding")
                    self.end_headers()
                    return None
        handle = path.open("rb")
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(os.fstat(handle.fileno()).st_size))
        self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
        self.end_headers()
        return handle

    def end_headers(self) -> None:
        if self.policy:
            self.send_header("Content-Security-Policy", self.policy)
        if self.isolate and not self.path.startswith(NOT_ISOLATED):
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        if not getattr(self.server, "quiet", False):
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    """A threading server that says nothing when a browser hangs up in the middle of an answer (a page
    closed or left while its files were still coming); every other error is printed as usual."""

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket],
                     client_address: tuple[str, int]) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def make_server(folder: Path, port: int, isolate: bool = True, quiet: bool = False) -> SiteServer:
    """A server for ``folder`` on 127.0.0.1:``port`` (0 picks a free port)."""
    handler = functools.partial(type("SiteHandler", (Handler,), {"isolate": isolate}), directory=str(folder))
    server = SiteServer(("127.0.0.1", port), handler)
    server.quiet = quiet  # type: ignore[attr-defined]
    return server


def main() -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="site", type=Path)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--no-isolation", action="store_true", help="leave out the COOP/COEP headers")
    args = parser.parse_args()
    if not (args.folder / "index.html").exists():
        raise SystemExit(f"{args.folder}/index.html not found: build the site first (bash scripts/serve.sh)")
    server = make_server(args.folder, args.port, isolate=not args.no_isolation)
    print(f"Serving {args.folder}/ on http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
