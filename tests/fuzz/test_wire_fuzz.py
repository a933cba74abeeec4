"""Issue 41, item 2: every reply each adapter reads, fuzzed at the wire.

For each adapter (uiautomator2 over the adb face, WebDriverAgent, Appium on Android and iOS) and
each call in :data:`tests.fuzz.calls.CALLS` (every Driver method, ``connect``, discovery), the reply
points the call reads are found by running it once (:func:`tests.fuzz.wire.reply_points`); then
hypothesis draws a point, a shape from :data:`tests.fuzz.shapes.SHAPES` and a seed, and the face
sends that answer hostile over its real protocol on 127.0.0.1. Each call must return what the
Driver protocol allows or raise a :class:`~amc.core.errors.HarnessError`; anything else is listed,
with its class and where it was raised. Bounded for CI: :data:`EXAMPLES` examples per call,
derandomized (the same examples every run), no example database.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from amc.sim.faults import Answer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.calls import ADAPTERS, CALLS, Rig, calls_for, protocol_calls
from tests.fuzz.shapes import SHAPES, Shape, kind_of, shapes_for
from tests.fuzz.wire import Outcome, reply_points, run_hostile

pytestmark = pytest.mark.timeout(300)

EXAMPLES = int(os.environ.get("AMC_FUZZ_EXAMPLES", "12"))  # hypothesis examples per call and adapter


class _Rigs:
    """One rig per adapter, started when first asked for, stopped when the module ends."""

    def __init__(self) -> None:
        self.started: dict[str, Rig] = {}

    def __call__(self, adapter: str) -> Rig:
        if adapter not in self.started:
            self.started[adapter] = Rig(adapter).start()
        return self.started[adapter]


@pytest.fixture(scope="module")
def rigs() -> Iterator[_Rigs]:
    made = _Rigs()
    try:
        yield made
    finally:
        for rig in made.started.values():
            rig.stop()


def test_every_driver_method_is_fuzzed() -> None:
    missing = protocol_calls() - set(CALLS)
    assert not missing, f"Driver members with no entry in tests/fuzz/calls.py CALLS: {sorted(missing)}"
    assert not set(CALLS) - protocol_calls(), "CALLS names members the Driver protocol no longer has"


@pytest.mark.parametrize(("adapter", "name"), [(a, n) for a in ADAPTERS for n in calls_for(a)])
def test_a_hostile_reply_is_a_typed_error_or_an_allowed_value(rigs: _Rigs, adapter: str, name: str) -> None:
    """Every reply point of the call with every shape that applies to it (seed 0), then
    :data:`EXAMPLES` more drawn by hypothesis (a point, a shape, a seed)."""
    rig = rigs(adapter)
    points = reply_points(rig, name)
    found: dict[tuple[str, str], str] = {}

    def run(route: str, shape: Shape, seed: int) -> None:
        outcome: Outcome = run_hostile(rig, name, route, shape, seed)
        if not outcome.ok:
            key = (outcome.what.split(":")[0], outcome.where)
            found.setdefault(key, f"{route} / {shape.name} / seed {seed}: {outcome.what}")

    for route in points:
        for shape in shapes_for(kind_of(Answer(route, b""))):
            run(route, shape, 0)

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def hostile(data: st.DataObject) -> None:
        route = data.draw(st.sampled_from(points), label="route")
        shape = data.draw(st.sampled_from(shapes_for(kind_of(Answer(route, b"")))), label="shape")
        run(route, shape, data.draw(st.integers(1, 2**16), label="seed"))

    if points:
        hostile()
    else:  # a call that reads nothing from the wire (a property, close on some adapters) still returns
        run("", SHAPES[0], 0)
    assert not found, "untyped outcomes:\n" + "\n".join(f"{w}: {d}" for (_, w), d in found.items())
