"""The harness makes no more device requests per action than each client used directly.

The same measurement as ``python -m benchmarks`` (benchmarks/wire.py), counts only (no time is
asserted): for every backend, the harness's observe-then-tap against the client's usual one-liner,
and a 20-step flow through the task loop against 20 client clicks.
"""

from __future__ import annotations

import pytest

from benchmarks.wire import BUILDERS, FLOW_STEPS, measure_actions, measure_flows

pytestmark = pytest.mark.timeout(120)

# What each way costs, in requests that reach the phone (see benchmarks/README.md).
CLIENT_REQUESTS = {
    "facebook-wda": 3,  # find elements, the element's rect, tap
    "uiautomator2 (selector)": 3,  # waitForExists, objInfo, click
    "uiautomator2 (xpath)": 2,  # dumpWindowHierarchy, click
    "Appium-Python-Client": 2,  # find element, element click
}


@pytest.mark.parametrize("backend", sorted(BUILDERS))
def test_the_harness_is_ahead_or_level_on_requests_per_action(backend: str) -> None:
    results = measure_actions(backend, rounds=2, latency_rounds=0)
    (mine,) = [r for r in results if r.harness]
    assert mine.requests == 2  # one observation (the page source) and the tap
    for theirs in (r for r in results if not r.harness):
        assert theirs.requests == CLIENT_REQUESTS[theirs.way]
        assert mine.requests <= theirs.requests


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["WebDriverAgent", "uiautomator2"])
def test_a_20_step_flow_costs_one_observation_more_than_the_bare_clicks_at_most(backend: str) -> None:
    results = measure_flows(backend, FLOW_STEPS, rounds=1, latency=0.0)
    (mine,) = [r for r in results if r.harness]
    assert mine.requests == 1 + 2 * FLOW_STEPS  # the first look, then a tap and an observation per step
    for theirs in (r for r in results if not r.harness):
        assert theirs.requests == CLIENT_REQUESTS[theirs.way] * FLOW_STEPS
        assert mine.requests <= theirs.requests + 1
