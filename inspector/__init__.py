"""The live inspector behind ``amc inspect --serve``: a local web page showing a device's screen,
its elements and the flow selectors that find each one alone, with actions that drive the device
and, with ``--record``, a flow recorded from them."""

from .draft import FlowDraft, check_path, claim_path
from .selectors import Suggestion, flow_yaml, unique_selectors
from .server import InspectorServer, screen_json
from .session import InspectorSession, Snapshot, StaleScreen

__all__ = [
    "FlowDraft",
    "InspectorServer",
    "InspectorSession",
    "Snapshot",
    "StaleScreen",
    "Suggestion",
    "check_path",
    "claim_path",
    "flow_yaml",
    "screen_json",
    "unique_selectors",
]
