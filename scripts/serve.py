"""A tiny static server for the built site, with the headers that let Stop interrupt Python.

Usage: python scripts/serve.py [FOLDER] [--port 8000] [--no-isolation]
It listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
from pathlib import Path
from typing import ClassVar

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves files with correct types; adds cross-origin isolation headers unless turned off."""

    isolate = True
    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self) -> None:
        if self.isolate:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        if not getattr(self.server, "quiet", False):
            super().log_message(format, *args)


def make_server(folder: Path, port: int, isolate: bool = True, quiet: bool = False) -> http.server.ThreadingHTTPServer:
    """A server for ``folder`` on 127.0.0.1:``port`` (0 picks a free port)."""
    handler = functools.partial(type("SiteHandler", (Handler,), {"isolate": isolate}), directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
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
