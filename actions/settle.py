"""When a screen has settled: two looks in a row that show the same hierarchy once what changes by
itself is ignored (the clock in the status bar, a progress indicator's value, a blinking caret's
focus). The task loop waits for this after every action that changes the screen, and the
``wait_for_animation_to_end`` action waits for it on its own.

What a look is reduced to (:func:`signature`): per element, its type, id, texts with times of day
and percentages masked, its bounds, and the enabled, checked, selected and visible flags. Focus is
left out (a caret's blink moves it), and so is the value of anything that shows progress.

Three rules (``SettleConfig.rule``), the first the default:

- ``idle``: ask the device's own idle signal first (``Driver.wait_idle``: uiautomator2's
  ``waitForIdle``; WebDriverAgent's and Appium's page source, which waits for idle itself), then
  one look, which is the settled screen. Where the backend gives no signal (None), or the device
  did not go idle within the timeout (False), the looks are compared as below.
- ``looks``: two looks in a row that agree, at least ``interval`` apart (the rule before the idle
  signal, and the fallback of ``idle``).
- ``maestro``: Maestro's ``ScreenshotUtils.waitForAppToSettle`` (maestro-client, no
  ``waitToSettleTimeoutMs``): a look right after the first, then up to ten rounds of a look 200 ms
  after a look it did not equal in every attribute (nothing masked); kept to compare with.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..core.durations import check_seconds
from ..core.errors import ConfigError
from ..core.models import Scene, UIElement
from ..semantic.models import Observation

__all__ = [
    "DEFAULT_SETTLE_INTERVAL",
    "DEFAULT_SETTLE_RULE",
    "DEFAULT_SETTLE_TIMEOUT",
    "ENV_INTERVAL",
    "ENV_RULE",
    "ENV_TIMEOUT",
    "MAX_SETTLE_LOOKS",
    "SETTLE_RULES",
    "SettleConfig",
    "Settled",
    "settle",
    "settle_maestro",
    "signature",
]

DEFAULT_SETTLE_TIMEOUT = 3.0  # seconds a screen may take to settle before the step goes on anyway
DEFAULT_SETTLE_INTERVAL = 0.2  # between two looks (Maestro reads the hierarchy every 200 ms too)
MAX_SETTLE_LOOKS = 200  # looks after the first, however short the interval (the timeout bounds it first)

SETTLE_RULES = ("idle", "looks", "maestro")
DEFAULT_SETTLE_RULE = "idle"
MAESTRO_ROUNDS = 10  # ScreenshotUtils.waitForAppToSettle: repeat(10) { ... sleep(200) }
MAESTRO_PAUSE = 0.2

ENV_TIMEOUT = "AMC_SETTLE_TIMEOUT"
ENV_INTERVAL = "AMC_SETTLE_INTERVAL"
ENV_RULE = "AMC_SETTLE_RULE"


@dataclass(frozen=True)
class SettleConfig:
    """How long the loop waits for the screen to settle after an action that changes it
    (``timeout``; 0 turns the wait off) and how far apart its looks are (``interval``)."""

    timeout: float = DEFAULT_SETTLE_TIMEOUT
    interval: float = DEFAULT_SETTLE_INTERVAL
    rule: str = DEFAULT_SETTLE_RULE  # one of SETTLE_RULES (see the module docstring)

    def __post_init__(self) -> None:
        check_seconds(self.timeout, "the settle timeout", maximum=60.0)
        check_seconds(self.interval, "the settle interval", maximum=10.0, above_zero=True)
        if self.rule not in SETTLE_RULES:
            raise ConfigError(
                f"the settle rule must be one of {', '.join(SETTLE_RULES)}, got {self.rule!r:.40}"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SettleConfig:
        """``AMC_SETTLE_TIMEOUT`` and ``AMC_SETTLE_INTERVAL`` (seconds) and ``AMC_SETTLE_RULE``;
        unset means the default."""
        env = os.environ if environ is None else environ
        values: dict[str, float] = {}
        rule = (env.get(ENV_RULE) or "").strip() or DEFAULT_SETTLE_RULE
        if rule not in SETTLE_RULES:
            raise ConfigError(
                f"{ENV_RULE} must be one of {', '.join(SETTLE_RULES)}, got {rule!r:.40}",
                hint=f"unset {ENV_RULE} for the default ({DEFAULT_SETTLE_RULE})",
            )
        for name, field, maximum, above_zero in (
            (ENV_TIMEOUT, "timeout", 60.0, False),
            (ENV_INTERVAL, "interval", 10.0, True),
        ):
            raw = env.get(name)
            if raw is not None and raw.strip():
                try:
                    values[field] = check_seconds(
                        raw.strip(), name, maximum=maximum, above_zero=above_zero, text=True
                    )
                except ConfigError as exc:
                    raise ConfigError(exc.message, hint=f"set {name} to a number of seconds") from None
        return cls(**values, rule=rule)


_VOLATILE = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?|\b\d{1,3}(?:[.,]\d+)?\s?%")
_PROGRESS = ("progress", "activityindicator", "spinner", "loading")


def _mask(text: str | None) -> str | None:
    return _VOLATILE.sub("#", text) if text else text


def _element(el: UIElement) -> tuple[object, ...]:
    progress = any(word in el.type.lower() for word in _PROGRESS)
    return (
        el.type,
        el.identifier,
        _mask(el.text),
        _mask(el.label),
        None if progress else _mask(el.value),
        el.bounds,
        el.enabled,
        el.checked,
        el.selected,
        el.visible,
    )


def signature(scene: Scene) -> tuple[object, ...]:
    """What two looks must share to count as the same screen (see the module's docstring)."""
    return (scene.foreground_app, tuple(_element(el) for el in scene))


@dataclass(frozen=True)
class Settled:
    """How a wait for the screen to settle went: the looks it took after the first, whether two in
    a row agreed, and the last look."""

    looks: int
    settled: bool
    observation: Observation
    idle: bool | None = None  # what the device's idle signal said (None: not asked, or none)


def settle(
    first: Observation,
    look: Callable[[], Observation],
    pause: Callable[[float], None],
    *,
    timeout: float = DEFAULT_SETTLE_TIMEOUT,
    interval: float = DEFAULT_SETTLE_INTERVAL,
) -> Settled:
    """Look again (``look``) until two looks in a row agree, starting from ``first``; the looks
    start at least ``interval`` apart (a look that itself took that long is followed at once, as
    on a phone whose page source takes 0.2-0.5 s); bounded by ``timeout`` seconds and
    :data:`MAX_SETTLE_LOOKS` looks."""
    deadline = time.monotonic() + timeout
    last, before = first, signature(first.scene)
    started = time.monotonic()  # about when ``first`` was taken: it has just been made
    looks = 0
    while looks < MAX_SETTLE_LOOKS and time.monotonic() < deadline:
        wait = started + interval - time.monotonic()
        pause(max(0.0, min(wait, deadline - time.monotonic())))
        started = time.monotonic()
        last = look()
        looks += 1
        now = signature(last.scene)
        if now == before:
            return Settled(looks, True, last)
        before = now
    return Settled(looks, False, last)


def _exact(scene: Scene) -> tuple[object, ...]:
    """Every attribute of every element, nothing masked (Maestro compares whole hierarchies)."""
    return (scene.foreground_app, tuple((*_element_raw(el),) for el in scene))


def _element_raw(el: UIElement) -> tuple[object, ...]:
    return (
        el.type,
        el.identifier,
        el.text,
        el.label,
        el.value,
        el.bounds,
        el.enabled,
        el.checked,
        el.selected,
        el.visible,
        el.focused,
    )


def settle_maestro(
    first: Observation,
    look: Callable[[], Observation],
    pause: Callable[[float], None],
    *,
    timeout: float = DEFAULT_SETTLE_TIMEOUT,
) -> Settled:
    """Maestro's rule (maestro-client ``ScreenshotUtils.waitForAppToSettle`` without a timeout): a
    look, compared with the one before (``first`` at the start) in every attribute; equal: settled;
    else 200 ms and again, ten rounds at most (bounded by ``timeout`` too)."""
    deadline = time.monotonic() + timeout
    latest, before = first, _exact(first.scene)
    for n in range(1, MAESTRO_ROUNDS + 1):
        latest = look()
        now = _exact(latest.scene)
        if now == before:
            return Settled(n, True, latest)
        before = now
        left = deadline - time.monotonic()
        if n == MAESTRO_ROUNDS or left <= 0:
            return Settled(n, False, latest)
        pause(min(MAESTRO_PAUSE, left))
    return Settled(MAESTRO_ROUNDS, False, latest)
