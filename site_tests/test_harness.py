"""The browser the tests and benchmarks launch: Debian's Chromium with the harness's flags, none of Playwright's own
lost on the way."""

from __future__ import annotations

import uuid
from pathlib import Path

from playwright.sync_api import Playwright

from .harness import launch


def command_line_with(marker: str) -> list[str]:
    """The command line of the browser process (not a renderer or helper) that carries ``marker``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = [arg.decode() for arg in (entry / "cmdline").read_bytes().split(b"\0") if arg]
        except OSError:
            continue
        if marker in args and not any(arg.startswith("--type=") for arg in args):
            return args
    raise AssertionError(f"no browser process with {marker}")


def test_the_browser_keeps_playwrights_disabled_features_and_builds_no_address_bar_pop_up(
        playwright: Playwright) -> None:
    """Chromium honours only the last --disable-features switch: it must hold every name an earlier one held. And
    a new tab then starts no address bar pop-up (a WebUI page of the browser's own, about 1.2 CPU-seconds a tab)."""
    marker = f"--ember-harness-{uuid.uuid4().hex}"  # a switch Chromium ignores, to find its process by
    browser = launch(playwright, [marker])
    try:
        switches = [arg.split("=", 1)[1].split(",") for arg in command_line_with(marker)
                    if arg.startswith("--disable-features=")]
        assert len(switches) >= 2, switches  # Playwright's own, then the harness's
        lost = {name for earlier in switches[:-1] for name in earlier} - set(switches[-1])
        assert not lost, f"Playwright disables {sorted(lost)}, dropped by the harness's list: update it"
        page = browser.new_page()
        page.goto("about:blank")
        cdp = browser.new_browser_cdp_session()
        targets = cdp.send("Target.getTargets", {"filter": [{}]})["targetInfos"]
        popups = [target["url"] for target in targets if "omnibox" in target["url"]]
        assert not popups, f"the address bar's pop-up was built: {popups}"
    finally:
        browser.close()
