"""A Maestro workspace, as the flow runner reads it (:mod:`amc.flows.run.workspace`), named here as
``amc run``'s modules have always named it."""

from ..flows.run.workspace import (
    CONFIG_NAMES,
    KNOWN_KEYS,
    MAX_WORKSPACE_DEPTH,
    MAX_WORKSPACE_FLOWS,
    Workspace,
    read_workspace,
    sequence,
)

__all__ = [
    "CONFIG_NAMES",
    "KNOWN_KEYS",
    "MAX_WORKSPACE_DEPTH",
    "MAX_WORKSPACE_FLOWS",
    "Workspace",
    "read_workspace",
    "sequence",
]
