"""The headless Chromium every browser test uses: where it is, why it is missing, the fixture.

Needs Playwright for Python and a Chromium (Debian's `chromium`, which `.ci/run` installs; or
`$AAU_CHROMIUM`; or Google Chrome). Without them a test using `browser` skips with the reason,
except under CI (`CI` set), where it fails. Import the fixture into a test module:
`from _browser import browser  # noqa: F401`.
"""

from __future__ import annotations

import os
import shutil

import pytest


def find_chromium() -> str | None:
    """`$AAU_CHROMIUM`, else the first of chromium / chromium-browser / google-chrome on PATH."""
    env = os.environ.get("AAU_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _unavailable() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install playwright)"
    if find_chromium() is None:
        return ("no Chromium found (apt-get install chromium, or set AAU_CHROMIUM to a "
                "Chromium/Chrome binary)")
    return None


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (Playwright, `--no-sandbox`) per test module."""
    reason = _unavailable()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
        yield b
        b.close()

