"""Why iOS refused to launch an app, read from what WebDriverAgent (or Appium relaying it) answered.

WebDriverAgent 5.1.4 and later answer a failed ``POST /wda/apps/launch`` (and Appium's
``mobile: activateApp``, which passes through to it) with HTTP 400 ``invalid argument`` whose
message is the NSError XCTest got from FrontBoard (appium/WebDriverAgent PR #706). That is never an
argument a planner got wrong: :func:`launch_refusal` reads the message and says whether the app is
missing or why it could not start. Texts recognised, each seen in ``tests/fixtures/real``:

- ``not_installed``: ``FBSApplicationLibrary) returned nil``, ``BSErrorCodeDescription=NotFound``
  (WDA 5.1.4, ``wda-5.1.4-…``; Appium, ``xcuitest-create-…``), ``is not installed on the device under
  test``, ``cannot be activated because it is not installed`` (WDA 5.1.1-5.1.2, ``wda-5.1.1-…``),
  ``is unknown to FrontBoard`` (XCTest's older text);
- ``untrusted``: ``profile has not been explicitly trusted``, ``invalid code signature``,
  ``(Security)`` / ``=Security`` (the device log of iOS 13, ``ios-device-log-…``; xcodebuild);
- ``guided_access``: ``Guided Access`` (tidevice, ``tidevice-…``);
- ``alert``: ``blocked by an unexpected system alert`` (WDA 7.0.6, PR #855's text);
- ``locked``: FrontBoard's ``Locked`` reason (not collected: matched on the reason's name only);
- ``timeout``: ``cannot be launched within N seconds`` (WDA's own 300 s bound);
- ``denied``: any other ``FBSOpenApplication…`` error or ``RequestDenied`` (tidevice, the device log).

WDA 5.1.1 and 5.1.2 also said "not installed" of system apps that are (``com.apple.Preferences``
on a real device, PR #705): :data:`FALSE_NOT_INSTALLED_HINT` says so in the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["FALSE_NOT_INSTALLED_HINT", "LaunchRefusal", "launch_refusal"]

Kind = Literal["not_installed", "untrusted", "guided_access", "alert", "locked", "timeout", "denied"]

FALSE_NOT_INSTALLED_HINT = (
    "install the app, or check the bundle id; WebDriverAgent 5.1.1-5.1.2 said this of installed system "
    "apps too (appium/WebDriverAgent PR #705): update WebDriverAgent if the app is there"
)
_RULES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "not_installed",
        re.compile(
            r"FBSApplicationLibrary\)? returned nil|BSErrorCodeDescription=NotFound|is not installed on the "
            r"device under test|cannot be activated because it is not installed|is unknown to FrontBoard"
        ),
    ),
    ("untrusted", re.compile(r"explicitly trusted|invalid code signature|\(Security\)|=Security\b")),
    ("guided_access", re.compile(r"Guided Access")),
    ("alert", re.compile(r"blocked by an unexpected system alert")),
    ("locked", re.compile(r"reason: Locked|=Locked\b|\(Locked\)|could not be, unlocked")),
    ("timeout", re.compile(r"cannot be launched within \d+ seconds")),
    ("denied", re.compile(r"FBSOpenApplication\w*ErrorDomain|RequestDenied|The request to open")),
)
_HINTS: dict[Kind, str] = {
    "not_installed": FALSE_NOT_INSTALLED_HINT,
    "untrusted": "trust the developer profile on the phone (Settings > General > VPN & Device Management)",
    "guided_access": "turn Guided Access off on the phone (triple-click the side button)",
    "alert": "a system alert blocks the launch: dismiss it (or accept it in the flow) and launch again",
    "locked": "unlock the phone (and turn off Auto-Lock while testing)",
    "timeout": "the app took longer than WebDriverAgent waits for a launch; check it starts by hand",
    "denied": "iOS refused to open the app; the reason above comes from FrontBoard",
}
_REASON = re.compile(
    r"(Unable to launch [^\"}]*|"
    r"Application info provider \(FBSApplicationLibrary\) returned nil for \"[^\"]*\"|"
    r"Guided Access active|The request was denied by service delegate \([^)]*\) for reason: [^\".}]*|"
    r"The application '[^']*' [^.\"]*)"
)


@dataclass(frozen=True)
class LaunchRefusal:
    """Why a launch was refused: ``kind`` (see the module table), the ``reason`` in iOS's words
    (a short excerpt of the message) and a ``hint`` for the user."""

    kind: Kind
    reason: str
    hint: str


def launch_refusal(message: str) -> LaunchRefusal | None:
    """The refusal a launch answer's message describes, or None when it is not one of FrontBoard's."""
    for kind, pattern in _RULES:
        if pattern.search(message):
            found = _REASON.search(message)
            reason = found.group(1).strip() if found is not None else " ".join(message.split())[:160]
            return LaunchRefusal(kind, reason[:200], _HINTS[kind])
    return None
