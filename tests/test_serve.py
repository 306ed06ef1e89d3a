"""scripts/serve.py and the build's offline listing: precompressed copies, isolation headers, the file list."""

from __future__ import annotations

import gzip
import http.client
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts.build_site import offline_listing
from scripts.serve import accepted, make_server

SCRIPT = b"console.log('ember');\n" * 200


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "app.js").write_bytes(SCRIPT)
    (tmp_path / "app.js.gz").write_bytes(gzip.compress(SCRIPT))
    (tmp_path / "app.js.br").write_bytes(b"pretend brotli")
    (tmp_path / "plain.txt").write_text("no copies\n")
    (tmp_path / "lesson").mkdir()
    (tmp_path / "lesson" / "index.html").write_text("<p>lesson</p>")
    (tmp_path / "lesson" / "index.html.gz").write_bytes(gzip.compress(b"<p>lesson</p>"))
    (tmp_path / "notebook").mkdir()
    (tmp_path / "notebook" / "index.html").write_text("<p>notebook</p>")
    return tmp_path


@pytest.fixture
def server(folder: Path) -> Iterator[int]:
    server = make_server(folder, 0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    answer = response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    connection.close()
    return answer


def test_brotli_is_preferred_then_gzip_then_the_file(server: int) -> None:
    status, headers, body = get(server, "/app.js", **{"Accept-Encoding": "gzip, deflate, br"})
    assert (status, headers["content-encoding"], body) == (200, "br", b"pretend brotli")
    assert headers["content-type"] == "text/javascript" and headers["vary"] == "Accept-Encoding"
    assert headers["cross-origin-embedder-policy"] == "require-corp"
    _, headers, body = get(server, "/app.js", **{"Accept-Encoding": "gzip, deflate"})
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == SCRIPT
    assert headers["content-length"] == str(len(body))
    _, headers, body = get(server, "/app.js", **{"Accept-Encoding": "br;q=0, identity"})
    assert "content-encoding" not in headers and body == SCRIPT and headers["vary"] == "Accept-Encoding"


def test_a_folder_serves_its_index_compressed_and_files_without_copies_as_they_are(server: int) -> None:
    _, headers, body = get(server, "/lesson/", **{"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == b"<p>lesson</p>"
    assert headers["content-type"] == "text/html"
    status, headers, body = get(server, "/plain.txt", **{"Accept-Encoding": "gzip, br"})
    assert status == 200 and "content-encoding" not in headers and body == b"no copies\n"


def test_an_unchanged_copy_answers_304(server: int) -> None:
    _, headers, _ = get(server, "/app.js", **{"Accept-Encoding": "gzip"})
    since = headers["last-modified"]
    status, again, body = get(server, "/app.js", **{"Accept-Encoding": "gzip", "If-Modified-Since": since})
    assert (status, body) == (304, b"") and again["vary"] == "Accept-Encoding"


def test_the_notebook_app_is_served_without_isolation_headers_and_the_lessons_with_them(server: int) -> None:
    _, lesson, _ = get(server, "/lesson/")
    _, notebook, body = get(server, "/notebook/index.html")
    assert lesson["cross-origin-opener-policy"] == "same-origin"
    assert body == b"<p>notebook</p>"
    assert not [name for name in notebook if name.startswith("cross-origin")]


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert accepted("gzip, deflate, br, zstd") == {"gzip", "deflate", "br", "zstd"}
    assert accepted("br;q=0, gzip;q=0.5") == {"gzip"}
    assert accepted("") == set()


def test_the_offline_listing_has_every_file_but_copies_maps_and_itself(folder: Path) -> None:
    (folder / "app.js.map").write_text("{}")
    (folder / "sw.js").write_text("// worker")
    listing = offline_listing(folder)
    files = listing["files"]
    assert isinstance(files, list)
    assert [file["path"] for file in files] == ["app.js", "lesson/index.html", "plain.txt"]
    assert files[0]["size"] == len(SCRIPT)
    (folder / "plain.txt").write_text("changed\n")
    assert offline_listing(folder)["version"] != listing["version"]  # any change makes a new version


def test_a_browser_hanging_up_mid_answer_is_not_reported_and_the_server_goes_on(
        folder: Path, server: int, capfd: pytest.CaptureFixture[str]) -> None:
    (folder / "big.bin").write_bytes(bytes(8 << 20))  # more than the socket buffers hold
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", server)) as hanging_up:
            hanging_up.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, not close
            hanging_up.sendall(b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            hanging_up.recv(1024)
    assert get(server, "/plain.txt")[0] == 200
    time.sleep(0.5)  # the handler threads meet the reset while writing
    assert "Traceback" not in capfd.readouterr().err
