"""``set_clipboard``: set the flow's copied text without the device (Maestro's ``setClipboard``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .copy_text_from import COPIED
from .kinds import Text


def _set(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return {COPIED: args["text"]}


ACTION = Action(
    "set_clipboard",
    "set the text paste_text types",
    _set,
    params=(Param("text", Text(allow_empty=True), "the text", required=True),),
    idempotent=True,
    looks_after=False,
    flow=FlowForm("set_clipboard", short="text"),
    maestro=(MaestroForm("setClipboard", short="text"),),
    offered=False,  # flows only: an agent has press back / type_text for it, or no use
)
