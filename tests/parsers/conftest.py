"""Every parser test runs twice: with the C walks (``amc.drivers.hierarchy._native``) and with
the Python ones, which stay the reference. The C run skips with a reason where the module was not
built, and fails instead under ``AMC_REQUIRE_NATIVE=1`` (CI sets it: a wheel built without a C
compiler must not pass as tested)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from amc.drivers.hierarchy import native

BUILT = native.load({})  # the module whether or not AMC_PURE_PYTHON is set for this process
REQUIRED = os.environ.get("AMC_REQUIRE_NATIVE", "").strip() == "1"


@pytest.fixture(autouse=True, params=["c", "python"])
def walks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Which walks answer this run of the test: "c" or "python"."""
    if request.param == "c":
        if BUILT is None:
            if REQUIRED:
                pytest.fail(
                    "AMC_REQUIRE_NATIVE=1 but amc.drivers.hierarchy._native is not built or does not load"
                )
            pytest.skip(
                "the C walks are not built (install with a C compiler: pip install -e . builds "
                "drivers/hierarchy/_native.c); the Python run of this test still runs"
            )
        monkeypatch.setattr(native, "NATIVE", BUILT)
    else:
        monkeypatch.setattr(native, "NATIVE", None)
    yield str(request.param)
