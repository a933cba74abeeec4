"""The files ``maestro test`` writes, written from a run of ``amc run``'s machinery.

- :func:`read_junit`: the JUnit XML ``amc run --junit`` wrote, read back as its suites (the one
  record of every flow's outcome on every device that a front end gets);
- :func:`maestro_junit`: Maestro's JUnit shape (its ``report/JUnitTestSuiteReporter.kt``):
  ``testsuites`` > ``testsuite`` (``name`` = the test suite name, default ``Test Suite``,
  ``device``, ``tests``, ``failures``, ``time`` in seconds, ``timestamp``) > ``testcase`` (``id``,
  ``name``, ``classname`` all the flow's name, ``time``, ``timestamp``, ``status`` one of
  ``FlowStatus.kt``'s ``SUCCESS`` / ``ERROR``) with a ``failure`` whose text is the message.
  Maestro has no skipped flow; a flow amc did not run on a device (its ``platform:``) is written
  ``status="CANCELED"`` with JUnit's ``<skipped/>``;
- :func:`maestro_html`: one page of every flow (Maestro's ``HtmlTestSuiteReporter.kt``: per suite a
  summary, total / failed / successful counts, the failed flows' names, one card per flow with its
  failure), each flow linked to amc's own report of its run (steps, screens, the filmstrip);
- :func:`write_debug_output`: Maestro's debug folder (``report/TestDebugReporter.kt``):
  ``DIR/.maestro/tests/<yyyy-MM-dd_HHmmss>/`` (``DIR`` itself when flattened) holding
  ``maestro.log``, ``commands-(<flow>).json`` (a list of ``{command, metadata: {status,
  timestamp, duration, error}}``, statuses of ``CommandStatus.kt``: ``COMPLETED``, ``FAILED``,
  ``SKIPPED``, ``WARNED``) and ``screenshot-<❌|✅|⚠️>-<epoch ms>-(<flow>).png`` (``/`` in a flow
  name written ``_`` in the commands file's name, as Maestro does).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from .junit import CaseResult, SuiteResult
from .redaction import Redactor
from .report import environment, write_text_file
from .report_views import REPORT_FILE
from .timeline import read_timeline

__all__ = [
    "DEFAULT_SUITE_NAME",
    "maestro_html",
    "maestro_junit",
    "read_junit",
    "write_debug_output",
    "write_maestro_report",
]

DEFAULT_SUITE_NAME = "Test Suite"  # JUnitTestSuiteReporter.kt: testSuiteName ?: "Test Suite"
_FLOW_STATUS = {"passed": "SUCCESS", "failed": "ERROR", "error": "ERROR", "skipped": "CANCELED"}
_COMMAND_STATUS = {"passed": "COMPLETED", "failed": "FAILED", "skipped": "SKIPPED", "warning": "WARNED"}
_SHOT_MARK = {"passed": "✅", "failed": "❌", "warning": "⚠️"}  # TestDebugReporter.saveFlow; else "﹖"
_MAX_JUNIT_BYTES = 64 * 1024 * 1024


def read_junit(path: str | os.PathLike[str]) -> list[SuiteResult]:
    """The suites of a JUnit file ``amc run --junit`` wrote (``junit.junit_xml``'s shape)."""
    target = Path(path)
    if target.stat().st_size > _MAX_JUNIT_BYTES:
        raise ConfigError(f"the JUnit file {target} is larger than {_MAX_JUNIT_BYTES} bytes")
    root = ET.parse(target).getroot()
    suites: list[SuiteResult] = []
    for suite in root.iter("testsuite"):
        properties = {p.get("name", ""): p.get("value", "") for p in suite.iter("property")}
        cases = []
        for case in suite.iter("testcase"):
            status, message, kind, detail = "passed", None, None, None
            for tag, name in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
                found = case.find(tag)
                if found is not None:
                    status, message, kind, detail = name, found.get("message"), found.get("type"), found.text
            out = case.findtext("system-out") or ""
            lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
            cases.append(
                CaseResult(
                    name=case.get("name", ""),
                    classname=case.get("classname", ""),
                    status=status,
                    time=float(case.get("time") or 0),
                    message=message,
                    kind=kind,
                    detail=detail,
                    run_dir=lines.get("run folder"),
                    report=lines.get("report"),
                )
            )
        suites.append(
            SuiteResult(
                suite.get("name", ""),
                tuple(cases),
                suite.get("timestamp", ""),
                suite.get("hostname", "localhost"),
                properties,
            )
        )
    return suites


def _device(suite: SuiteResult) -> str:
    """The device's id (Maestro's ``device``): the suite's ``device_id``, else the one the first
    run folder's timeline names (a simulated device made for each flow), else its spec."""
    if suite.properties.get("device_id"):
        return suite.properties["device_id"]
    for case in suite.cases:
        if case.run_dir is not None and Path(case.run_dir, "timeline.jsonl").is_file():
            device = (read_timeline(case.run_dir).header or {}).get("device")
            if isinstance(device, Mapping) and device.get("id"):
                return str(device["id"])
    return suite.properties.get("device") or suite.name


def _local_time(iso: str) -> str | None:
    """An ISO 8601 time as Maestro writes its timestamps: local time, no zone, to the second."""
    try:
        return datetime.fromisoformat(iso).astimezone().replace(tzinfo=None).isoformat(timespec="seconds")
    except ValueError:
        return None


def maestro_junit(suites: Sequence[SuiteResult], *, suite_name: str | None = None) -> bytes:
    """Maestro's JUnit XML for ``suites`` (one per device), UTF-8 with an XML declaration."""
    root = ET.Element("testsuites")
    for suite in suites:
        element = ET.SubElement(
            root,
            "testsuite",
            name=suite_name or DEFAULT_SUITE_NAME,
            device=_device(suite),
            tests=str(len(suite.cases)),
            failures=str(sum(_FLOW_STATUS[c.status] == "ERROR" for c in suite.cases)),
            time=str(round(suite.time, 3)),
        )
        stamp = _local_time(suite.timestamp)
        if stamp:
            element.set("timestamp", stamp)
        for case in suite.cases:
            item = ET.SubElement(
                element,
                "testcase",
                id=case.name,
                name=case.name,
                classname=case.name,
                time=str(round(case.time, 3)),
                status=_FLOW_STATUS[case.status],
            )
            if case.status in ("failed", "error"):
                ET.SubElement(item, "failure").text = case.message or case.status
            elif case.status == "skipped":
                ET.SubElement(item, "skipped", message=case.message or "not run on this device")
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def maestro_html(suites: Sequence[SuiteResult], page: Path) -> str:
    """Maestro's one-page HTML report of ``suites``, written to ``page`` (links relative to it)."""
    shown = []
    for suite in suites:
        flows = []
        for case in suite.cases:
            report = None
            if case.run_dir is not None and (Path(case.run_dir) / REPORT_FILE).is_file():
                report = os.path.relpath(Path(case.run_dir) / REPORT_FILE, page.parent)
            flows.append(
                {"name": case.name, "status": _FLOW_STATUS[case.status], "case": case, "report": report}
            )
        failed = [f["name"] for f in flows if f["status"] == "ERROR"]
        shown.append(
            {
                "device": _device(suite),
                "passed": not failed,
                "duration": round(suite.time, 3),
                "flows": flows,
                "failed": failed,
            }
        )
    return environment().get_template("maestro_report.html.j2").render(suites=shown)


def write_maestro_report(
    fmt: str,
    output: Path,
    suites: Sequence[SuiteResult],
    *,
    suite_name: str | None,
    redactor: Redactor,
) -> Path:
    """The ``--format`` file at ``output`` (``junit``, ``html``, ``html-detailed``)."""
    if fmt == "junit":
        text = maestro_junit(suites, suite_name=suite_name).decode("utf-8")
    else:
        text = maestro_html(suites, output)
    write_text_file(output, redactor.text(text), what=f"the {fmt} report")
    return output


def _command(record: Mapping[str, Any]) -> dict[str, Any]:
    """One step of a timeline as a commands-(flow).json entry."""
    step: Mapping[str, Any] = record["step"] if isinstance(record.get("step"), Mapping) else {}
    result: Mapping[str, Any] = record["result"] if isinstance(record.get("result"), Mapping) else {}
    status = str(record.get("status", ""))
    metadata: dict[str, Any] = {"status": _COMMAND_STATUS.get(status, status.upper() or "PENDING")}
    with contextlib.suppress(ValueError):
        metadata["timestamp"] = int(datetime.fromisoformat(str(record.get("time"))).timestamp() * 1000)
    duration = result.get("duration")
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        metadata["duration"] = int(duration * 1000)
    if result.get("error"):
        metadata["error"] = {"message": str(result.get("error")), "kind": result.get("error_kind")}
    command = {str(record.get("action", "?")): step.get("args", {})}
    return {"command": command, "metadata": metadata, "source": step.get("rationale")}


def write_debug_output(
    root: Path,
    suites: Sequence[SuiteResult],
    *,
    flatten: bool,
    redactor: Redactor,
    now: datetime | None = None,
) -> Path:
    """Maestro's debug folder under ``root`` for every flow that ran; the folder written."""
    folder = (
        root if flatten else root / ".maestro" / "tests" / (now or datetime.now()).strftime("%Y-%m-%d_%H%M%S")
    )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the debug output folder {folder}: {exc.strerror or exc}") from exc
    log: list[str] = []
    for suite in suites:
        for case in suite.cases:
            if case.run_dir is None or not Path(case.run_dir).is_dir():
                continue
            run_dir = Path(case.run_dir)
            timeline = read_timeline(run_dir)
            name = case.name.replace("/", "_")
            commands = [_command(record) for record in timeline.steps]
            if commands:
                text = json.dumps(commands, indent=2, ensure_ascii=False)
                write_text_file(
                    folder / f"commands-({name}).json", redactor.text(text), what="a commands file"
                )
            for record in timeline.steps:
                files = record.get("files") if isinstance(record.get("files"), Mapping) else {}
                shot = files.get("screenshot") if isinstance(files, Mapping) else None
                if not isinstance(shot, str) or "/" in shot or not (run_dir / shot).is_file():
                    continue
                mark = _SHOT_MARK.get(str(record.get("status")), "﹖")
                stamp = _command(record)["metadata"].get("timestamp", 0)
                shutil.copyfile(
                    run_dir / shot, folder / f"screenshot-{mark}-{stamp}-({case.name.replace('/', '_')}).png"
                )
            own_log = run_dir / "run.log"
            log.append(f"---- {case.name} on {suite.name}: {case.status} (run folder {run_dir}) ----")
            if own_log.is_file():
                log.append(own_log.read_text(encoding="utf-8", errors="replace").rstrip("\n"))
    write_text_file(folder / "maestro.log", redactor.text("\n".join(log) + "\n"), what="maestro.log")
    return folder
