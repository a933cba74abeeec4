"""Flow selectors that find one element and only it: the inspector offers them for the element
clicked and records every action with the first. The rules live in :mod:`amc.flows.unique` (a saved
agent run names its elements by them too)."""

from __future__ import annotations

from ..flows.unique import Suggestion, escape_variables, flow_yaml, unique_selectors

__all__ = ["Suggestion", "escape_variables", "flow_yaml", "unique_selectors"]
