"""A flow's conditions (``when:``, ``repeat: {while: …}``): what they say and whether they hold.

A condition is checked on what the harness already has, never by asking the device: ``visible`` /
``not_visible`` on the latest observation the planner was handed, ``platform`` on the device's
platform, ``app`` on the world model's ``current_app`` (the observation's foreground app when the
world model is off). ``all`` / ``any`` combine them; a mapping with several keys means all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import FlowError
from ..core.models import Scene
from ..core.selectors import Selector

__all__ = ["CONDITION_KEYS", "AppIs", "Combined", "Condition", "PlatformIs", "Script", "Seen", "holds"]

CONDITION_KEYS: tuple[str, ...] = ("visible", "not_visible", "platform", "app", "all", "any")


@dataclass(frozen=True)
class Seen:
    """``visible`` (``present`` true) or ``not_visible`` (false): a selector on the latest screen."""

    selector: Mapping[str, Any]
    present: bool = True
    # Seconds to wait for it (Maestro's conditions wait up to 7 s): the flow then asks the device
    # through a ``check_visible`` step; None: the latest observation decides at once.
    wait: float | None = None

    def describe(self) -> str:
        word = "visible" if self.present else "not_visible"
        return f"{word} {Selector.from_mapping(self.selector).describe()}"


@dataclass(frozen=True)
class Script:
    """Maestro's ``true: ${…}``: a JavaScript expression that must be true (run once JavaScript is
    wired into flows; until then a flow with one cannot run, and ``amc check`` says so)."""

    expression: str

    def describe(self) -> str:
        return f"true {self.expression[:80]}"


@dataclass(frozen=True)
class PlatformIs:
    platform: str

    def describe(self) -> str:
        return f"platform {self.platform}"


@dataclass(frozen=True)
class AppIs:
    """The app in front; ``by_platform`` names one per platform (the others never match)."""

    by_platform: Mapping[str, str]

    def describe(self) -> str:
        apps = set(self.by_platform.values())
        return f"app {' / '.join(sorted(apps))}"


@dataclass(frozen=True)
class Combined:
    """``all`` (every part holds) or ``any`` (at least one does)."""

    parts: tuple[Condition, ...]
    every: bool = True

    def describe(self) -> str:
        joined = (" and " if self.every else " or ").join(part.describe() for part in self.parts)
        return f"({joined})" if len(self.parts) > 1 else joined


Condition = Seen | PlatformIs | AppIs | Combined | Script


def holds(condition: Condition, *, scene: Scene | None, platform: str, current_app: str | None) -> bool:
    """Whether ``condition`` holds now (``scene``: the latest observation's, None before any)."""
    if isinstance(condition, Combined):
        results = (
            holds(part, scene=scene, platform=platform, current_app=current_app) for part in condition.parts
        )
        return all(results) if condition.every else any(results)
    if isinstance(condition, PlatformIs):
        return condition.platform == platform
    if isinstance(condition, AppIs):
        wanted = condition.by_platform.get(platform)
        return wanted is not None and wanted == current_app
    if isinstance(condition, Script):
        raise FlowError(f"a JavaScript condition ({condition.describe()}) cannot be evaluated yet")
    found = bool(scene is not None and Selector.from_mapping(condition.selector).find_all(scene))
    return found == condition.present
