"""QA flows: YAML files of app steps, validated with positions, run through the task loop; the one
flow runner (:mod:`.run`: :func:`run_flows`) that chooses them, schedules them over devices and reports."""

from .conditions import Condition, holds
from .loader import MAX_FLOW_BYTES, load_flow, parse_flow, read_flow_file
from .model import (
    BLOCK_COMMANDS,
    COMMANDS,
    AppRef,
    Flow,
    FlowStep,
    FlowValidationError,
    Node,
    Repeat,
    Retry,
    RunFlow,
    SourcePosition,
)
from .planner import FlowInterrupted, FlowPlanner, skip_instead, skip_reason
from .roots import FileOutsideRoot, file_in_roots, in_roots
from .run import RunListener, RunResult, run_flows

__all__ = [
    "BLOCK_COMMANDS",
    "COMMANDS",
    "MAX_FLOW_BYTES",
    "AppRef",
    "Condition",
    "FileOutsideRoot",
    "Flow",
    "FlowInterrupted",
    "FlowPlanner",
    "FlowStep",
    "FlowValidationError",
    "Node",
    "Repeat",
    "Retry",
    "RunFlow",
    "RunListener",
    "RunResult",
    "SourcePosition",
    "file_in_roots",
    "holds",
    "in_roots",
    "load_flow",
    "parse_flow",
    "read_flow_file",
    "run_flows",
    "skip_instead",
    "skip_reason",
]
