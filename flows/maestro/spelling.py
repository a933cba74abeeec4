"""A message in the words of the flow's own dialect: the one rule that spells an action's argument
the way a Maestro flow writes it.

An action's hint names the arguments a user may change in backticks (``raise `timeout` or
`max_swipes```). For a Maestro flow each such name becomes the Maestro option that fills it (the
action's :class:`~amc.actions.base.MaestroForm` ``options``, read backwards: ``visibility`` is
``visibilityPercentage``); a name no Maestro option fills (``max_swipes``: Maestro's scroll is
bounded by its timeout alone) is left out, with the ``or`` that joined it. A flow of the project's
own format keeps the names as they are.
"""

from __future__ import annotations

import re

from ...actions import ACTIONS

__all__ = ["maestro_spelling"]

_NAMES = re.compile(r"`[a-z_]+`(?: or `[a-z_]+`)*")  # names in backticks, joined by "or"


def maestro_spelling(action: str, text: str) -> str:
    """``text`` (an error with its hint) with ``action``'s arguments spelled as Maestro's options."""
    entry = ACTIONS.get(action)
    if entry is None or not entry.maestro:
        return text
    spelled: dict[str, str] = {}
    for form in entry.maestro:
        for option, argument in form.options.items():
            spelled.setdefault(argument, option)
    params = {p.name for p in entry.params}

    def names(match: re.Match[str]) -> str:
        kept = []
        for word in match.group(0).split(" or "):
            name = word.strip("`")
            if name not in params:
                kept.append(word)
            elif name in spelled:  # else: no Maestro option fills it, left out
                kept.append(f"`{spelled[name]}`")
        return " or ".join(kept) if kept else match.group(0)

    return _NAMES.sub(names, text)
