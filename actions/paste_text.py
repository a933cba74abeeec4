"""``paste_text``: type the text the flow copied last (``copy_text_from``, ``set_clipboard``):
Maestro's ``pasteText`` types it into the focused field. A flow fills ``text`` in when it runs the
step; nothing copied yet types nothing, as in Maestro."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Text


def _paste(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    text: str = args.get("text", "")
    if text:
        driver.type_text(text)
    return {"length": len(text)}


ACTION = Action(
    "paste_text",
    "type the text copied last",
    _paste,
    params=(Param("text", Text(allow_empty=True), "the copied text (a flow fills it in)"),),
    changes_screen=True,
    flow=FlowForm("paste_text", bare=True),
    maestro=(MaestroForm("pasteText", bare=True),),
    offered=False,  # flows only: an agent has press back / type_text for it, or no use
)
