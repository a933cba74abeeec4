"""Starting an Android app's launcher activity with ``am start -W``, and reading what am answers.

Both Android adapters launch this way: uiautomator2 over adb sends the command itself, the Appium
adapter asks UiAutomator2's ``mobile: startActivity`` (``wait``, ``action``, ``categories``,
``package``), which runs ``am start-activity -W …`` and returns its output. ``-W`` is Android's own
wait: am answers once the activity is displayed, so the one check the adapters make after it sees
the app in front (``monkey``, which uiautomator2's ``app_start`` sends, and ``am start`` without
``-W``, which Appium's ``activateApp`` sends, answer before the app has the focus).

What am prints, from real outputs in ``tests/fixtures/real/android``:

- started: ``Status: ok`` and ``Activity: …`` (``am-start-W-S-status-ok-ThisTime-blog.txt``);
  ``Status: timeout`` when the activity started and resumed but did not report idle within am's
  wait, a slow cold start and not a failure
  (``react-native-cold-start-am-start-W-status-timeout.txt``);
- nothing answers the intent (no such package, or no activity in that category): ``Error: Activity
  not started, unable to resolve Intent { … }``, with exit status 0
  (``pixel2-am-start-package-unable-to-resolve-intent-fenix.txt``);
- any other ``Error: …``, ``Security exception: …`` or ``java.lang.…Exception`` line: a refusal.

An answer with none of these but am's ``Starting: Intent`` line is taken as started (the check
after it decides); anything else says nothing, and the caller raises a ``DeviceError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["LAUNCHER", "LAUNCH_CATEGORIES", "LEANBACK", "MAIN", "StartOutcome", "read_start", "start_command"]

MAIN = "android.intent.action.MAIN"
LAUNCHER = "android.intent.category.LAUNCHER"
LEANBACK = "android.intent.category.LEANBACK_LAUNCHER"  # Android TV apps may declare only this
LAUNCH_CATEGORIES: tuple[str, ...] = (LAUNCHER, LEANBACK)

_UNRESOLVED = "unable to resolve Intent"
_STATUS = re.compile(r"^Status: (ok|timeout)\s*$", re.MULTILINE)
_REFUSAL = re.compile(r"^(Error|Security exception|java\.lang\.\w+Exception)\b")


@dataclass(frozen=True)
class StartOutcome:
    """What am said: ``started`` (``detail``: ``ok``, ``timeout`` or ``unreported``),
    ``unresolved`` (no activity answers the intent) or ``refused`` (``detail``: am's line)."""

    kind: Literal["started", "unresolved", "refused"]
    detail: str = ""


def start_command(package: str, category: str = LAUNCHER, extras: tuple[str, ...] = ()) -> list[str]:
    """``am start -W`` for ``package``'s activity in ``category``, with ``extras``' words
    (:func:`drivers.launching.am_extra_words`) after the package."""
    return ["am", "start", "-W", "-a", MAIN, "-c", category, "-p", package, *extras]


def read_start(output: str) -> StartOutcome | None:
    """Read ``am start``'s output; None when it says neither that it started nor why not."""
    if _UNRESOLVED in output:
        return StartOutcome("unresolved")
    status = _STATUS.search(output)
    if status is not None:
        return StartOutcome("started", status.group(1))
    for line in output.splitlines():
        if _REFUSAL.match(line.strip()):
            return StartOutcome("refused", line.strip()[:300])
    if "Starting: Intent" in output:
        return StartOutcome("started", "unreported")
    return None
