"""QA flows: YAML files of app steps, validated with positions, run through the task loop."""

from runtime.flows.loader import MAX_FLOW_BYTES, load_flow, parse_flow
from runtime.flows.model import (
    COMMANDS,
    AppRef,
    Flow,
    FlowStep,
    FlowValidationError,
    SourcePosition,
)
from runtime.flows.planner import FlowPlanner, skip_reason

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
    "skip_reason",
]
