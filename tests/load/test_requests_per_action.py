"""The harness makes no more device requests per action than each client used directly, except
one request for a verification the client does not do.

The same measurement as ``python -m benchmarks`` (benchmarks/wire.py), counts only (no time is
asserted): for every backend, the harness's observe-then-tap against the client's usual one-liner,
a launch and typing against the client's own calls, and a 20-step flow through the task loop
against 20 client clicks.
"""

from __future__ import annotations

import pytest

from benchmarks.wire import BUILDERS, FLOW_STEPS, measure_actions, measure_calls, measure_flows

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


# launch_app, type_text, the first type_text: what each client's own call costs (see
# benchmarks/README.md)
CLIENT_CALLS = {
    "facebook-wda": (1, 1, 1),  # POST /wda/apps/launch; POST /wda/keys
    # monkey; ime list -s -a, settings get secure default_input_method, two AdbKeyboard broadcasts;
    # the first time, AdbKeyboard not being current: five ime commands (lists, enable, set), three
    # settings commands (get, put, get until it is current) and the two broadcasts
    "uiautomator2": (1, 4, 10),
    "Appium-Python-Client": (1, 2, 2),  # mobile: activateApp; GET /element/active, POST .../value
}


@pytest.mark.parametrize("backend", sorted(BUILDERS))
def test_launch_costs_one_verification_more_and_typing_no_more_than_the_client(backend: str) -> None:
    results = measure_calls(backend)
    (mine,) = [r for r in results if r.harness]
    # Over Appium an Android launch also asks mobile: isLocked and reads the page source once:
    # UiAutomator2's getCurrentPackage names the app behind a lock screen and behind its own crash
    # or ANR dialog (drivers/appium/apps.py)
    checks = 3 if backend == "Appium Android" else 1
    assert (mine.launch_requests, mine.typing_requests) == (1 + checks, 1)  # the launch and its check; one
    # The first call over uiautomator2 also makes AdbKeyboard current: a broadcast no receiver
    # took, ime enable, settings get (to put it back on close), ime set, the broadcast again.
    assert mine.first_typing_requests == (5 if backend == "uiautomator2" else 1)
    theirs = [r for r in results if not r.harness]
    assert theirs
    for client in theirs:
        counts = (client.launch_requests, client.typing_requests, client.first_typing_requests)
        assert counts == CLIENT_CALLS[client.way]
        assert mine.launch_requests == client.launch_requests + checks  # checks the client does not do
        assert mine.typing_requests <= client.typing_requests
        assert mine.first_typing_requests <= client.first_typing_requests


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["WebDriverAgent", "uiautomator2"])
def test_a_20_step_flow_costs_one_look_and_one_settle_look_more_than_the_bare_clicks_at_most(
    backend: str,
) -> None:
    results = measure_flows(backend, FLOW_STEPS, rounds=1, latency=0.0)
    (mine,) = [r for r in results if r.harness]
    # the first look, then per tap the tap, the idle query and its look (uiautomator2's waitForIdle);
    # on WebDriverAgent the tap and its look, whose source waits for idle itself, and once the
    # session's settings (the cool-off that makes it wait)
    if backend == "WebDriverAgent":
        assert mine.requests == 2 + 2 * FLOW_STEPS
    else:
        assert mine.requests == 1 + 3 * FLOW_STEPS
    for theirs in (r for r in results if not r.harness):
        assert theirs.requests == CLIENT_REQUESTS[theirs.way] * FLOW_STEPS
        # a bare click checks no outcome and waits for no screen to settle: at most the first look
        # and one settle look per step more
        assert mine.requests <= theirs.requests + 1 + FLOW_STEPS
