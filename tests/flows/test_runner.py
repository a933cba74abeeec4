"""The one flow runner through its public entry point, ``amc.flows.run_flows``, on the simulated
device: what its listeners hear and in which order, how flows are shared over devices, that a
failing flow does not stop the others unless a workspace says so, and that a flow is never run
twice. ``amc run``'s own tests (test_run_cli.py, test_cli.py …) check the same runner from the
command line."""

from __future__ import annotations

import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from amc import connect as connect_module
from amc.core.errors import ConfigError, DeviceOffline
from amc.flows import FlowValidationError, RunListener, RunResult, run_flows
from amc.flows.run import (
    NOT_RUN_AFTER,
    NOT_STARTED,
    FlowDone,
    FlowStarted,
    RunDone,
    RunEvent,
    RunStarted,
    StepDone,
)
from amc.runtime.cancel import Cancel

from .helpers import REPO, write_flow

DEMO = "com.example.amc.demo"
# A launch and a look: the simulated screen slides in over 100-400 ms, so a flow holds its device a while.
PASSING = f"name: {{name}}\nsteps:\n  - launch_app: {DEMO}\n  - assert_visible: {{{{id: username}}}}\n"
NOWHERE = "{{text: Nowhere to be seen, timeout: 0.5}}"
FAILING = f"name: {{name}}\nsteps:\n  - launch_app: {DEMO}\n  - wait_for: {NOWHERE}\n"


class Heard:
    """A listener keeping every event, and what was on disk when each FlowDone came."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []
        self.reports_on_disk: list[bool] = []
        self._lock = threading.Lock()

    def on_event(self, event: RunEvent) -> None:
        with self._lock:
            self.events.append(event)
            if isinstance(event, FlowDone) and event.outcome.report is not None:
                self.reports_on_disk.append(event.outcome.report.is_file())

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.events]


def _flows(folder: Path, **flows: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in flows.items():
        write_flow(folder, text.format(name=name), f"{name}.yaml")
    return folder


def test_the_listener_hears_the_run_in_order(tmp_path: Path) -> None:
    heard = Heard()
    listener: RunListener = heard  # the Protocol: any object with on_event
    flow = _flows(tmp_path / "flows", login=PASSING) / "login.yaml"
    result = run_flows(flow, devices="sim:android", out=tmp_path / "runs", listeners=[listener])
    assert isinstance(result, RunResult) and result.passed and not result.interrupted
    assert heard.kinds() == ["RunStarted", "FlowStarted", "StepDone", "StepDone", "FlowDone", "RunDone"]
    started, flow_started, *steps, done, run_done = heard.events
    assert isinstance(started, RunStarted) and [d.spec for d in started.devices] == ["sim:android"]
    assert started.devices[0].device_id == "emulator-5554" and started.flows == 1
    assert isinstance(flow_started, FlowStarted) and flow_started.flow.name == "login"
    assert flow_started.run_dir.is_dir() and flow_started.total == 2
    assert [s.record["action"] for s in steps if isinstance(s, StepDone)] == ["launch_app", "assert_visible"]
    assert [s.record["status"] for s in steps if isinstance(s, StepDone)] == ["passed", "passed"]
    assert isinstance(done, FlowDone) and done.outcome.status == "succeeded"
    assert done.outcome.run_dir == flow_started.run_dir
    assert heard.reports_on_disk == [True]  # the report listener is heard first: the page is there
    assert isinstance(run_done, RunDone) and run_done.outcomes == result.outcomes
    assert run_done.index is None and run_done.junit is None  # one flow: no index page; no JUnit asked


def test_two_devices_share_the_flows_each_flow_once(tmp_path: Path) -> None:
    heard = Heard()
    flows = _flows(tmp_path / "flows", a=PASSING, b=PASSING, c=PASSING, d=PASSING)
    junit = tmp_path / "junit.xml"
    result = run_flows(
        [flows], devices=["sim:android", "sim:android"], out=tmp_path / "runs", junit=junit, listeners=[heard]
    )
    assert result.passed
    ends = [e.outcome for e in heard.events if isinstance(e, FlowDone)]
    assert sorted(o.flow for o in ends) == ["a", "b", "c", "d"]  # each flow once
    assert {o.device for o in ends} == {"sim:android", "sim:android #2"}  # both phones took flows
    starts = [e for e in heard.events if isinstance(e, FlowStarted)]
    assert {s.device.device_id for s in starts} == {"emulator-5554", "emulator-5556"}
    for outcome in ends:  # per flow: started, its steps, done, in that order
        mine = [
            type(e).__name__
            for e in heard.events
            if (isinstance(e, FlowStarted | StepDone) and e.flow.name == outcome.flow)
            or (isinstance(e, FlowDone) and e.outcome.flow == outcome.flow)
        ]
        assert mine == ["FlowStarted", "StepDone", "StepDone", "FlowDone"]
    assert heard.kinds()[0] == "RunStarted" and heard.kinds()[-1] == "RunDone"
    assert result.index is not None and result.index.is_file()  # several flows: the index page
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert sorted(s.get("name") or "" for s in suites) == ["sim:android", "sim:android #2"]
    assert sum(len(s.findall("testcase")) for s in suites) == 4


def test_a_failing_flow_does_not_stop_the_others(tmp_path: Path) -> None:
    flows = _flows(tmp_path / "flows", a=PASSING, b=FAILING, c=PASSING)
    result = run_flows(flows, out=tmp_path / "runs")  # no device: each flow on a fresh simulated one
    assert [(o.flow, o.status) for o in result.outcomes] == [
        ("a", "succeeded"),
        ("b", "failed"),
        ("c", "succeeded"),
    ]
    assert not result.passed
    failed = result.outcomes[1]
    assert failed.first_failure is not None and "step 2 wait_for" in failed.first_failure
    assert re.search(r"b\.yaml:4:5", failed.first_failure)


def test_a_workspace_that_says_so_stops_its_sequence_at_the_first_failure(tmp_path: Path) -> None:
    space = _flows(tmp_path / "space", a=PASSING, b=FAILING, c=PASSING)
    (space / "config.yaml").write_text(
        "executionOrder:\n  continueOnFailure: false\n  flowsOrder: [a, b, c]\n", encoding="utf-8"
    )
    result = run_flows(space, devices=["sim:android"], out=tmp_path / "runs")
    assert [(o.flow, o.status) for o in result.outcomes] == [
        ("a", "succeeded"),
        ("b", "failed"),
        ("c", "skipped"),
    ]
    assert result.outcomes[2].error is not None and result.outcomes[2].error.startswith(NOT_RUN_AFTER)
    assert result.outcomes[2].run_dir is None  # not run: nothing sent, no folder


class _Offline:
    """A device whose every look fails as an unplugged phone's does."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)

    def observe(self) -> Any:
        raise DeviceOffline("device offline", state="offline", hint="reconnect the cable")


def test_a_flow_whose_device_failed_is_not_run_again_elsewhere(tmp_path: Path) -> None:
    made: list[str] = []

    def connect(spec: str, **options: Any) -> Any:
        driver = connect_module.connect(spec, **options)
        made.append(spec)
        return _Offline(driver) if len(made) == 2 else driver

    heard = Heard()
    flows = _flows(tmp_path / "flows", a=PASSING, b=PASSING, c=PASSING, d=PASSING)
    result = run_flows(
        flows, devices=["sim:android"] * 2, out=tmp_path / "runs", connect=connect, listeners=[heard]
    )
    started = [e.flow.name for e in heard.events if isinstance(e, FlowStarted)]
    assert sorted(started) == ["a", "b", "c", "d"]  # every flow started once: none sent twice
    lost = [o for o in result.outcomes if o.status != "succeeded"]
    assert [(o.device, o.status, o.error_kind) for o in lost] == [
        ("sim:android #2", "device_error", "DeviceOffline")
    ]


def test_a_stop_request_ends_the_flow_in_progress_and_leaves_the_rest_unstarted(tmp_path: Path) -> None:
    cancel = Cancel()

    class StopAtFirstStep:
        def on_event(self, event: RunEvent) -> None:
            if isinstance(event, StepDone):
                cancel.set()  # what Ctrl-C does under `amc run`

    flows = _flows(tmp_path / "flows", a=PASSING, b=PASSING)
    result = run_flows(flows, out=tmp_path / "runs", cancel=cancel, listeners=[StopAtFirstStep()])
    assert result.interrupted and not result.passed
    assert [(o.flow, o.status) for o in result.outcomes] == [("a", "interrupted"), ("b", "skipped")]
    assert result.outcomes[1].error == NOT_STARTED
    assert result.outcomes[0].steps == 1  # the step in progress was not sent again, nor any after it


def test_bad_input_is_a_typed_error_before_any_device_is_asked(tmp_path: Path) -> None:
    asked: list[str] = []

    def connect(spec: str, **options: Any) -> Any:
        asked.append(spec)
        raise AssertionError("no device may be contacted")

    bad = write_flow(tmp_path, "name: bad\nsteps:\n  - tapp: Sign in\n", "bad.yaml")
    with pytest.raises(FlowValidationError) as problem:
        run_flows(bad, devices="sim:android", out=tmp_path / "runs", connect=connect)
    assert "bad.yaml:3" in str(problem.value)
    with pytest.raises(ConfigError, match="--each-device needs several"):
        run_flows(bad, devices="sim:android", each_device=True, connect=connect)
    with pytest.raises(ConfigError, match="not KEY=VALUE"):
        run_flows(bad, env={"1x": "y"}, connect=connect)
    assert asked == []


def _python_example() -> str:
    docs = (REPO / "docs" / "flows.md").read_text(encoding="utf-8")
    section = docs.split("### From Python: `run_flows`", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_python_example_in_the_docs_runs_as_described(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(_python_example(), "docs/flows.md", "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["demo-login succeeded", "demo-login-fails failed", "passed: False"]
    assert (tmp_path / "build" / "junit.xml").is_file()
    assert (tmp_path / "build" / "flows" / "index.html").is_file()
