"""`amc check --device X` refuses exactly what running the step on X refuses.

Every action of :data:`amc.actions.ACTIONS` (so one added later is enumerated too), with its
required arguments and then with each optional argument given in turn, on every backend and kind of
device (the simulated device in process and over each face, an iPhone playing a Simulator or a
physical iPhone): the check's rule (:meth:`amc.actions.Action.cannot_run`, for the target the check
reads off the spec) says it cannot run exactly when the driver itself raises ``Unsupported`` running
the step's handler, and such a refused step leaves the device as it was.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amc.actions import ACTIONS, Action
from amc.actions.kinds import Choice, Flag, Number, Seconds, SelectorKind, Values
from amc.actions.permits import Permissions
from amc.cli.check import target_of
from amc.core.errors import HarnessError, Unsupported
from amc.drivers.connect import connect, parse_sim_target, parse_spec
from amc.drivers.kinds import device_kind
from amc.semantic.models import Observation
from amc.sim.catalog import DEMO_APP
from amc.sim.device import INSTANT, SimDevice
from PIL import Image

TARGETS = [
    "sim:android",
    "sim:ios",
    "sim:ios?kind=device",
    "sim+adb:android",
    "sim+wda:ios",
    "sim+wda:ios?kind=device",
    "sim+appium:android",
    "sim+appium:ios",
    "sim+appium:ios?kind=device",
    "sim+adb:android?api=29",  # another release and WebDriverAgent generation: the same rules
    "sim+wda:ios?ios=15&wda=4",
]


# What each target refuses (the same for the check and the run, as the test above holds): a
# position over uiautomator2, a permission value iOS does not take, an
# app's data, permissions and the keychain on a physical iPhone.
_ANDROID: set[str] = set()  # launch arguments reach Android apps as intent extras
_PHONE = {
    "launch_app clear_state",
    "launch_app clear_keychain",
    "launch_app permissions",
    "clear_state",
    "set_permissions",
    "clear_keychain",
}
# Neither XCTest nor simctl switches airplane mode
_IOS = {"launch_app permissions (an Android-only value)", "set_permissions (an Android-only value)"}
_IOS |= {"set_airplane_mode", "toggle_airplane_mode"}
# uiautomator2 cannot set a position without a mock-location app; WebDriverAgent has no route to
# fetch a video or add to the photo library
_U2 = _ANDROID | {"set_location", "travel", "travel speed"}
_WDA = _IOS | {"start_recording", "start_recording name", "stop_recording", "add_media"}
REFUSED: dict[str, set[str]] = {
    "sim:android": _ANDROID,
    "sim:ios": _IOS,
    "sim:ios?kind=device": _PHONE | _IOS,
    "sim+adb:android": _U2,
    "sim+wda:ios": _WDA,
    "sim+wda:ios?kind=device": _PHONE | _WDA,
    "sim+appium:android": _ANDROID,
    "sim+appium:ios": _IOS,
    "sim+appium:ios?kind=device": _PHONE | _IOS,
    "sim+adb:android?api=29": _U2,
    "sim+wda:ios?ios=15&wda=4": _WDA,
}


def _picture() -> str:
    """A real picture file, so that a step that reads one reaches the device."""
    path = Path(tempfile.mkdtemp(prefix="amc-agree-")) / "shot.png"
    Image.new("RGB", (4, 4), "white").save(path)
    return str(path)


PICTURE = _picture()


def _sample(action: Action, name: str) -> Any:
    """A value ``action``'s argument ``name`` takes (what a flow would give it)."""
    param = action.param(name)
    assert param is not None
    kind = param.kind
    if name in ("app_id",):
        return DEMO_APP
    if isinstance(kind, Flag):
        return True
    if isinstance(kind, Permissions):
        return {"all": "allow"}
    if isinstance(kind, Values):
        return {"user": "qa"}
    if isinstance(kind, Seconds):
        return 0.05
    if isinstance(kind, Number):
        low = kind.low if not getattr(kind, "open_low", False) else kind.low + 1
        return max(low, min(kind.high, 1))
    if isinstance(kind, Choice):
        return kind.values[0]
    if isinstance(kind, SelectorKind):
        return {"text": "Sign in"}
    for value in (
        "x",
        PICTURE,  # a picture's path (add_media's files, assert_screenshot's reference)
        [PICTURE],
        ["48.85,2.35", "48.86,2.36"],  # travel's points
        "home",
        "portrait",  # set_orientation's
        "enabled",  # a switch (airplane and dark mode)
        "amcdemo://login",
        "50%,50%",
        [100, 200],
        {"x": 100, "y": 200},
        1,
        ["x"],
        True,
    ):
        try:
            kind.check(value, name)
        except HarnessError:
            continue
        return value
    raise AssertionError(f"no sample value for {action.name}.{name}")


def _valid(action: Action, args: dict[str, Any]) -> dict[str, Any]:
    """``args``, completed where the action needs a target or a point beside them."""
    tries = [args, {**args, "target": {"text": "Sign in"}}, {**args, "x": 100, "y": 200}]
    tries += [{**args, p.name: _sample(action, p.name)} for p in action.params if p.name not in args]
    tries += [{k: v for k, v in t.items() if k not in ("target", "x", "y") or k in args} for t in tries]
    tries += [{k: v for k, v in args.items() if k != "timeout"}]
    tries += [{**t, "x1": 10, "y1": 10, "x2": 20, "y2": 20} for t in tries[:1]]
    tries += [{**args, "start": "50%,50%", "end": "50%,10%"}]
    for candidate in tries:
        try:
            action.validate(candidate)
        except HarnessError:
            continue
        return candidate
    raise AssertionError(f"{action.name}: no valid arguments around {args}")


def _variants(action: Action) -> Iterator[dict[str, Any]]:
    """The action's required arguments, then those with each optional argument given."""
    names = {p.name for p in action.params}
    base = {p.name: _sample(action, p.name) for p in action.params if p.required}
    if "timeout" in names:
        base["timeout"] = 0.05
    yield _valid(action, base)
    for param in action.params:
        if not param.required and param.name not in base:
            variant = {**base, param.name: _sample(action, param.name)}
            for other in _EXCLUSIVE.get(param.name, ()):
                variant.pop(other, None)
            yield _valid(action, variant)
    for param in action.params:  # a value one platform takes and the other refuses
        if isinstance(param.kind, Permissions):
            yield _valid(action, {**base, param.name: dict(_ANDROID_ONLY)})


# A permission value Android takes (as a revoke) and iOS refuses, as Maestro's drivers do.
_ANDROID_ONLY = {"location": "nonsense"}

# Arguments that exclude another: the point instead of the selector.
_EXCLUSIVE = {"at": ("target", "x", "y"), "x": ("target",), "y": ("target",)}


class _Screen:
    """The task's screen, reduced to what a handler asks: looks through the driver."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self._latest: Observation | None = None

    @property
    def latest(self) -> Observation | None:
        return self._latest

    @property
    def world(self) -> None:
        return None

    def observe(self) -> Observation:
        self._latest = Observation(self.driver.observe())
        return self._latest

    def current_app(self) -> str | None:
        return str(self.driver.current_app())

    def pause(self, seconds: float) -> None:
        return None


def _device(spec: str) -> SimDevice:
    scheme, target = parse_spec(spec)
    return SimDevice(
        parse_sim_target(scheme, target).platform,
        timing=INSTANT,
        profile=parse_sim_target(scheme, target).profile,
    )


def _cases() -> list[tuple[str, Action, dict[str, Any]]]:
    return [
        (spec, action, args) for spec in TARGETS for action in ACTIONS.values() for args in _variants(action)
    ]


CASES = _cases()


@pytest.mark.parametrize("spec", TARGETS)
def test_the_check_and_the_run_agree_on_every_action_and_option(spec: str) -> None:
    platform, backend, kind = target_of(spec)  # what `amc check --device spec` reads, no device
    device = _device(spec)
    driver = connect(spec, device=device) if not spec.startswith("sim:") else connect(spec)
    if spec.startswith("sim:"):
        device = driver.device  # type: ignore[attr-defined]
    try:
        assert (driver.platform, driver.backend, device_kind(driver)) == (platform, backend, kind)
        disagree: list[str] = []
        checked = 0
        refusals: set[str] = set()
        for case_spec, action, args in CASES:
            if case_spec != spec:
                continue
            checked += 1
            valid = action.validate(args)
            foreseen = action.cannot_run(valid, backend, platform, kind) is not None
            driver.launch_app(DEMO_APP)
            before = device.changes
            screen = _Screen(driver)
            screen.observe()
            try:
                action.handler(driver, valid, screen)
                refused = False
            except Unsupported:
                refused = True
                if device.changes != before:
                    disagree.append(f"{action.name} {sorted(args)}: refused after it changed the device")
            except HarnessError:
                refused = False  # it reached the device and failed there (a wait, an assertion)
            if refused:
                extra = sorted(set(args) - {p.name for p in action.params if p.required} - {"timeout"})
                value = " (an Android-only value)" if args.get("permissions") == _ANDROID_ONLY else ""
                refusals.add(action.name + (f" {extra[0]}" if extra else "") + value)
            if refused != foreseen:
                said = "refuses" if foreseen else "passes"
                disagree.append(f"{action.name} {sorted(args)}: the check {said}, the run does not agree")
        assert checked == sum(1 for s, _, _ in CASES if s == spec)
        assert not disagree, "\n".join(disagree)
        assert refusals == REFUSED[spec]
    finally:
        driver.close()


def test_every_action_option_and_backend_is_enumerated() -> None:
    """The enumeration covers every action and every one of its arguments on every target."""
    actions = {action.name for _, action, _ in CASES}
    assert actions == set(ACTIONS)
    for action in ACTIONS.values():
        given = {name for _, a, args in CASES if a is action for name in args}
        assert given >= {p.name for p in action.params}, action.name
    assert {spec for spec, _, _ in CASES} == set(TARGETS)
    print(f"{len(CASES)} (action, options, target) combinations")
