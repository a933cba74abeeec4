"""JUnit XML for CI systems: one ``<testsuite>`` per device, one ``<testcase>`` per flow.

The shape is the one Jenkins' xunit plugin describes in its ``junit-10.xsd`` (and GitLab, GitHub
test reporters and Surefire readers accept): ``testsuites`` (name, tests, failures, errors, time)
holding ``testsuite`` elements (name, tests, failures, errors, skipped, time, timestamp, hostname,
with ``properties``) holding ``testcase`` elements (name, classname, time) with at most one
``failure`` / ``error`` / ``skipped`` (message, type), ``flakyFailure`` for a failure a ``retry``
block got past, and ``system-out`` naming the flow's run folder and report (with the
``[[ATTACHMENT|…]]`` line GitLab and Jenkins' attachments plugin read). Text from a device may hold
characters XML 1.0 cannot carry: they are dropped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .redaction import Redactor
from .report import write_text_file

__all__ = ["CASE_STATUSES", "CaseResult", "SuiteResult", "junit_xml", "write_junit"]

CASE_STATUSES = ("passed", "failed", "error", "skipped")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MAX_MESSAGE = 1000


Clean = Callable[..., str]


def _cleaner(redactor: Redactor | None) -> Clean:
    """What every text of the document goes through: the run's secrets hidden (before any cut),
    the characters XML cannot carry dropped, and at most ``limit`` characters kept."""

    def clean(text: str, limit: int | None = None) -> str:
        if redactor is not None:
            text = redactor.text(text)
        text = _NOT_XML.sub("", text)
        return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"

    return clean


@dataclass(frozen=True)
class CaseResult:
    """One flow on one device. ``status``: ``passed``, ``failed`` (a step failed), ``error`` (the
    device failed) or ``skipped`` (not run there: ``message`` says why). ``retried``: the messages of
    failures a ``retry`` block got past."""

    name: str
    classname: str
    status: str
    time: float = 0.0
    message: str | None = None
    kind: str | None = None
    detail: str | None = None
    run_dir: str | None = None
    report: str | None = None
    retried: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.status not in CASE_STATUSES:
            raise ValueError(f"CaseResult.status must be one of {CASE_STATUSES}, got {self.status!r}")


@dataclass(frozen=True)
class SuiteResult:
    """One device's flows. ``timestamp`` is ISO 8601 (when its first flow started)."""

    name: str
    cases: tuple[CaseResult, ...]
    timestamp: str
    hostname: str = "localhost"
    properties: Mapping[str, str] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(case.status == status for case in self.cases)

    @property
    def time(self) -> float:
        return sum(case.time for case in self.cases)


def _seconds(value: float) -> str:
    return f"{max(0.0, value):.3f}"


def _case(parent: ET.Element, case: CaseResult, _clean: Clean) -> None:
    element = ET.SubElement(
        parent, "testcase", name=_clean(case.name), classname=_clean(case.classname), time=_seconds(case.time)
    )
    if case.status in ("failed", "error", "skipped"):
        tag = {"failed": "failure", "error": "error", "skipped": "skipped"}[case.status]
        outcome = ET.SubElement(element, tag, message=_clean(case.message or case.status, _MAX_MESSAGE))
        if case.kind:
            outcome.set("type", _clean(case.kind))
        if case.detail:
            outcome.text = _clean(case.detail)
    for message in case.retried:
        flaky = ET.SubElement(element, "flakyFailure", message=_clean(message, _MAX_MESSAGE), type="retried")
        flaky.text = _clean(message)
    lines = [f"run folder: {case.run_dir}"] if case.run_dir else []
    if case.report:
        lines += [f"report: {case.report}", f"[[ATTACHMENT|{case.report}]]"]
    if lines:
        ET.SubElement(element, "system-out").text = _clean("\n".join(lines))


def junit_xml(
    suites: Sequence[SuiteResult], *, name: str = "amc run", redactor: Redactor | None = None
) -> bytes:
    """The JUnit XML document for ``suites``, UTF-8 with an XML declaration; every text with the
    ``redactor``'s secrets hidden."""
    _clean = _cleaner(redactor)
    root = ET.Element(
        "testsuites",
        name=_clean(name),
        tests=str(sum(len(s.cases) for s in suites)),
        failures=str(sum(s.count("failed") for s in suites)),
        errors=str(sum(s.count("error") for s in suites)),
        time=_seconds(sum(s.time for s in suites)),
    )
    for suite in suites:
        element = ET.SubElement(
            root,
            "testsuite",
            name=_clean(suite.name),
            tests=str(len(suite.cases)),
            failures=str(suite.count("failed")),
            errors=str(suite.count("error")),
            skipped=str(suite.count("skipped")),
            time=_seconds(suite.time),
            timestamp=suite.timestamp,
            hostname=_clean(suite.hostname),
        )
        if suite.properties:
            properties = ET.SubElement(element, "properties")
            for key, value in suite.properties.items():
                ET.SubElement(properties, "property", name=_clean(key), value=_clean(value))
        for case in suite.cases:
            _case(element, case, _clean)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def write_junit(path: str | Path, suites: Sequence[SuiteResult], *, redactor: Redactor | None = None) -> Path:
    """Write the JUnit XML of ``suites`` to ``path`` (atomically), the ``redactor``'s secrets hidden;
    a ``ConfigError`` naming the path when it cannot be written."""
    target = Path(path)
    write_text_file(target, junit_xml(suites, redactor=redactor).decode("utf-8"), what="the JUnit XML")
    return target
