"""A live WebDriverAgent face to point hostile input at: a request it counts means something ran."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

# The README's simulated iPhone flow: valid, so only the hostile part can stop it.
GOOD_FLOW = Path(__file__).resolve().parents[2] / "examples" / "flows" / "settings_ios.yaml"


@pytest.fixture(scope="module")
def face() -> Iterator[WdaFace]:
    with WdaFace(SimDevice("ios")) as running:
        yield running


@pytest.fixture
def wda(face: WdaFace) -> Iterator[WdaFace]:
    """The face with its counters at zero; a test asserts ``wda.count() == 0`` when nothing may run."""
    face.faults.reset_counts()
    yield face
    face.faults.clear()
