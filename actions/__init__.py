"""The actions: every thing a step can do, one module each, everything about it said once.

Each module whose name is an action's holds ``ACTION``, an :class:`~amc.actions.base.Action`; this
package finds them (adding an action is adding a file) and hands out the table. The executor runs
steps through it, the flow language reads commands through it, the agent's and MCP tools and the
command tables of the docs are generated from it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType

from .base import (
    BACKENDS,
    COMMON_KEYS,
    KINDS,
    Action,
    FlowForm,
    Handler,
    MaestroForm,
    Param,
    Screen,
    Unsupported,
)

__all__ = [
    "ACTIONS",
    "BACKENDS",
    "COMMON_KEYS",
    "KINDS",
    "Action",
    "FlowForm",
    "Handler",
    "MaestroForm",
    "Param",
    "Screen",
    "Unsupported",
    "flow_commands",
]


# The order tables and docs list the actions in; an action not named here comes after, by name.
ORDER = (
    "launch_app",
    "terminate_app",
    "tap",
    "long_press",
    "type_text",
    "swipe",
    "press",
    "describe_screen",
    "screenshot",
    "wait_for",
    "assert_visible",
    "assert_not_visible",
    "assert_app",
    "remember",
    "skip",
    "scroll_until_visible",
    "hide_keyboard",
    "open_link",
    "clear_state",
)


def _discover() -> Mapping[str, Action]:
    found: dict[str, Action] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        action = getattr(importlib.import_module(f"{__name__}.{module.name}"), "ACTION", None)
        if isinstance(action, Action):
            if action.name != module.name:
                raise ImportError(
                    f"amc.actions.{module.name} holds the action {action.name!r}: name the file after it"
                )
            found[action.name] = action
    ranked = sorted(found, key=lambda name: (ORDER.index(name) if name in ORDER else len(ORDER), name))
    return MappingProxyType({name: found[name] for name in ranked})


ACTIONS: Mapping[str, Action] = _discover()


def flow_commands() -> Mapping[str, Action]:
    """The actions a flow file can name, by their command in the project's flow format."""
    return MappingProxyType({a.flow.command: a for a in ACTIONS.values() if a.flow is not None})
