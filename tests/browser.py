"""A real headless Chromium for the tests that look at pages: Debian's chromium driven through
Selenium and Debian's chromium-driver (selenium comes with Appium-Python-Client).

Where the browser is missing the tests skip, saying how to install it, unless
``AMC_REQUIRE_BROWSER=1`` (as ``.ci/run`` sets it): then they fail, so CI cannot pass without
having looked. Selenium is given both paths, so Selenium Manager never runs (it would download a
browser).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CHROMEDRIVER", "CHROMIUM", "chromium", "need_browser"]

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
_INSTALL = "install Debian's packages: `apt-get install chromium chromium-driver`"


def need_browser(*paths: str) -> None:
    """Skip (or, with AMC_REQUIRE_BROWSER=1, fail) unless every path is an executable."""
    missing = [p for p in paths if shutil.which(p) is None]
    if not missing:
        return
    message = f"needs {' and '.join(missing)}: {_INSTALL}"
    if os.environ.get("AMC_REQUIRE_BROWSER") == "1":
        pytest.fail(f"AMC_REQUIRE_BROWSER=1 but this test {message}")
    pytest.skip(message)


@contextmanager
def chromium(profile: Path, *, width: int = 1280, height: int = 1400) -> Iterator[Any]:
    """A headless Chromium under Selenium, closed afterwards."""
    need_browser(CHROMIUM, CHROMEDRIVER)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--force-device-scale-factor=1",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(30)
        yield driver
    finally:
        driver.quit()
