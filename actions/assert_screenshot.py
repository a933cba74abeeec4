"""``assert_screenshot``: compare the screen with a reference picture (Maestro's
``assertScreenshot``): the share of matching pixels must reach ``threshold`` percent (Maestro's
``thresholdPercentage``, 95 by default, ``YamlAssertScreenshot.kt``), with the screen cropped to an
element first when ``crop_on`` names one. Pictures of different sizes never match, as in Maestro
(``ScreenshotMatch.kt``). A Maestro flow's reference is found beside the flow, inside its project."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed, StepArgumentError
from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Number, SelectorKind, Text
from .pictures import crop, match_percentage, open_image

DEFAULT_THRESHOLD = 95.0
MAX_REFERENCE_BYTES = 64 * 1024 * 1024


def read_reference(path: str) -> bytes:
    """The reference picture's bytes (a regular file of at most :data:`MAX_REFERENCE_BYTES`)."""
    try:
        size = os.stat(path).st_size
        if size > MAX_REFERENCE_BYTES:
            raise StepArgumentError(
                f"the reference {path} is {size} bytes; the limit is {MAX_REFERENCE_BYTES}"
            )
        with open(path, "rb") as handle:
            return handle.read(MAX_REFERENCE_BYTES + 1)
    except OSError as exc:
        raise AssertionFailed(
            f"Screenshot file not found: {path} ({exc.strerror or exc})",
            hint="assert_screenshot needs a reference picture made before (e.g. by a screenshot step)",
        ) from None


def _compare(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    expected = open_image(read_reference(args["path"]), f"the reference {args['path']}", AssertionFailed)
    picture = driver.screenshot()
    if args.get("crop_on") is not None:
        picture = crop(picture, args["crop_on"], screen)
    actual = open_image(picture, "the screenshot")
    if expected.size != actual.size:
        raise AssertionFailed(
            f"Screenshot size mismatch: expected {expected.width}x{expected.height}, actual "
            f"{actual.width}x{actual.height}. Screenshots must have the same dimensions to compare.",
            hint="use the same device, or crop_on to compare an element",
        )
    matched = round(match_percentage(expected, actual), 2)
    if matched < args["threshold"]:
        raise AssertionFailed(
            f"Comparison error: {os.path.basename(args['path'])} - threshold not met, current: {matched}%",
            hint=f"the threshold is {args['threshold']:g}%; lower it if the differences are acceptable",
        )
    return {"matched": matched}


ACTION = Action(
    "assert_screenshot",
    "compare the screen with a reference picture",
    _compare,
    params=(
        Param("path", Text(max_length=4096), "the reference picture", required=True),
        Param("threshold", Number(0, 100), "percent of pixels that must match", default=DEFAULT_THRESHOLD),
        Param("crop_on", SelectorKind(), "compare only this element of the screen"),
    ),
    idempotent=True,
    looks_after=False,
    flow=FlowForm("assert_screenshot", short="path"),
    maestro=(
        MaestroForm(
            "assertScreenshot",
            short="path",
            options={"path": "path", "thresholdPercentage": "threshold", "cropOn": "crop_on"},
            note="the reference is resolved beside the flow (`.png` added when it has no picture "
            "extension) and must lie in the flow's project",
        ),
    ),
    offered=False,
)
