"""The run's files as listeners: :class:`HtmlReport` (each run folder's ``report.html`` at its flow's
end, the ``index.html`` of several flows at the run's end) and :class:`JUnitWriter` (one JUnit
suite per device, one test case per flow). Both hide the run's secrets in what they write."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from pathlib import Path

from ...storage.index import IndexRow, write_index
from ...storage.junit import CaseResult, SuiteResult, write_junit
from ...storage.redaction import Redactor
from ...storage.report import render_report
from .events import FlowDone, RunDevice, RunDone, RunEvent, RunStarted
from .outcome import FlowOutcome

__all__ = ["HtmlReport", "JUnitWriter", "junit_suites"]


class HtmlReport:
    """Writes each flow's ``report.html`` into its run folder when it ends (linking back to the
    run's index page when there is one), and the index page when several flows ran."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._index: Path | None = None  # set at RunStarted, before any flow's thread starts

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self._index = event.index
        elif isinstance(event, FlowDone) and event.outcome.run_dir is not None:
            run_dir = event.outcome.run_dir
            render_report(run_dir, event.outcome.report, index=self._index, redactor=self.redactor)
        elif isinstance(event, RunDone) and event.index is not None:
            rows = [
                IndexRow(o.flow, o.file, o.device, o.duration, o.run_dir, o.first_failure, o.error)
                for o in event.outcomes
            ]
            write_index(event.index.parent, rows, redactor=self.redactor)


# JUnit's "error" is a test that could not finish: the device failed, or the run was stopped.
_CASE_STATUS = {"succeeded": "passed", "skipped": "skipped", "device_error": "error", "interrupted": "error"}


def _case(outcome: FlowOutcome) -> CaseResult:
    """One flow on one device as a JUnit test case (any other ending than these is a failure)."""
    problem = outcome.first_failure or outcome.error
    detail = problem
    if problem and outcome.run_dir is not None:
        detail = f"{problem}\ntimeline: {outcome.run_dir / 'timeline.jsonl'}"
    return CaseResult(
        name=outcome.flow,
        classname=outcome.file,
        status=_CASE_STATUS.get(outcome.status, "failed"),
        time=outcome.duration,
        message=problem or outcome.status,
        kind=outcome.error_kind,
        detail=detail,
        run_dir=str(outcome.run_dir) if outcome.run_dir else None,
        report=str(outcome.report) if outcome.report else None,
        retried=outcome.retried,
    )


def junit_suites(
    outcomes: Sequence[FlowOutcome], devices: Sequence[RunDevice], out: str
) -> list[SuiteResult]:
    """One JUnit suite per device, in the order the devices were given."""
    specs = list(dict.fromkeys([*(d.spec for d in devices), *(o.device for o in outcomes)]))
    about = {d.spec: d for d in devices}
    suites: list[SuiteResult] = []
    for spec in specs:
        mine = [o for o in outcomes if o.device == spec]
        if not mine:
            continue
        properties = {"device": spec, "platform": mine[0].platform, "runs": out}
        if spec in about:
            properties.update({"device_id": about[spec].device_id, "backend": about[spec].backend})
        for outcome in mine:  # each flow's own run folder, as a property too (testcases hold none)
            if outcome.run_dir is not None:
                name = f"run_folder:{outcome.flow}"
                taken = sum(key.split(" (")[0] == name for key in properties)
                properties[name if not taken else f"{name} ({taken + 1})"] = str(outcome.run_dir)
        started = min((o.started_at for o in mine if o.started_at), default="")
        suites.append(
            SuiteResult(spec, tuple(_case(o) for o in mine), started, socket.gethostname(), properties)
        )
    return suites


class JUnitWriter:
    """Writes the run's JUnit XML to ``RunDone.junit`` when the run ends."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._devices: tuple[RunDevice, ...] = ()

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self._devices = event.devices
        elif isinstance(event, RunDone) and event.junit is not None:
            suites = junit_suites(event.outcomes, self._devices, str(event.out))
            write_junit(event.junit, suites, redactor=self.redactor)
