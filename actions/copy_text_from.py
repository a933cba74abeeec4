"""``copy_text_from``: read an element's text (its text, else hint, else accessibility text) into
the flow's copied text, which ``paste_text`` types (Maestro's ``copyTextFrom``: the device's own
clipboard is not touched)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed
from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Screen
from .looking import REQUIRED_TARGET
from .targets import acted_on, wait_target
from .waiting import WAIT_PARAMS

__all__ = ["ACTION", "COPIED"]

COPIED = "copied"  # the output key the flow's copied text is read from (also set_clipboard's)


def _copy(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    found = wait_target(args, screen)
    el = found.element
    hint = el.attributes.get("hint") or el.attributes.get("placeholderValue")
    text = el.text or el.value or hint or el.label
    if not text:
        raise AssertionFailed(
            "the element does not contain text to copy", hint="copy from an element that shows a text"
        )
    return {COPIED: text, **acted_on(found)}


ACTION = Action(
    "copy_text_from",
    "copy an element's text for paste_text",
    _copy,
    params=(REQUIRED_TARGET, *WAIT_PARAMS),
    idempotent=True,
    waits=10.0,
    flow=FlowForm("copy_text_from", short="target"),
    maestro=(MaestroForm("copyTextFrom", short="text", selector=True, lookup=True),),
    offered=False,  # flows only: kept out of the agents' tools, which must stay small
)
