"""The one flow runner: which flows (paths, folders, Maestro workspaces, tags), where (a schedule over
devices), and what the run tells its listeners (the console, the JUnit writer, the HTML report, yours).

``amc run``, MCP's ``run_flow`` and :func:`run_flows` (the short way in from Python) all run flows
through this package. In short::

    from amc.flows import run_flows

    result = run_flows(["flows/"], devices=["sim:android"], junit="report.xml")
    assert result.passed
"""

from .api import RunResult, run_flows, run_plan
from .events import (
    FlowDone,
    FlowStarted,
    Listeners,
    RunDevice,
    RunDone,
    RunEvent,
    RunListener,
    RunStarted,
    StepDone,
)
from .one import LOG_FILE, FlowRun, flow_config, flow_planner, run_logging
from .outcome import NO_DEVICE, NOT_RUN_AFTER, NOT_STARTED, FlowOutcome, step_position
from .plan import RunPlan, connect_all, plan_jobs, plan_run
from .reports import HtmlReport, JUnitWriter
from .schedule import Device, Job, run_schedule
from .selection import FLOW_SUFFIXES

__all__ = [
    "FLOW_SUFFIXES",
    "LOG_FILE",
    "NOT_RUN_AFTER",
    "NOT_STARTED",
    "NO_DEVICE",
    "Device",
    "FlowDone",
    "FlowOutcome",
    "FlowRun",
    "FlowStarted",
    "HtmlReport",
    "JUnitWriter",
    "Job",
    "Listeners",
    "RunDevice",
    "RunDone",
    "RunEvent",
    "RunListener",
    "RunPlan",
    "RunResult",
    "RunStarted",
    "StepDone",
    "connect_all",
    "flow_config",
    "flow_planner",
    "plan_jobs",
    "plan_run",
    "run_flows",
    "run_logging",
    "run_plan",
    "run_schedule",
    "step_position",
]
