"""QA flows: YAML files of app steps, validated with positions, run through the task loop."""

from .loader import MAX_FLOW_BYTES, load_flow, parse_flow
from .model import (
    COMMANDS,
    AppRef,
    Flow,
    FlowStep,
    FlowValidationError,
    SourcePosition,
)
from .planner import FlowPlanner, skip_instead, skip_reason

__all__ = [
    "COMMANDS",
    "MAX_FLOW_BYTES",
    "AppRef",
    "Flow",
    "FlowPlanner",
    "FlowStep",
    "FlowValidationError",
    "SourcePosition",
    "load_flow",
    "parse_flow",
    "skip_instead",
    "skip_reason",
]
