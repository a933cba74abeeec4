"""docs/maestro.md's compatibility table, generated from the actions' Maestro forms.

``python -m amc.flows.maestro.reference --write docs/maestro.md`` rewrites it; ``--check`` exits 1
when the file says something else than the code. A test runs the check.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ...actions import BACKENDS, Action, MaestroForm, Unsupported
from ...actions.markdown import replace_generated, write_or_check
from .commands import FORMS, NO_ACTION

__all__ = ["compatibility_markdown", "main"]

_COMMAND = "python -m amc.flows.maestro.reference --write docs/maestro.md"
_NAMES = {"sim": "simulated", "u2": "uiautomator2", "wda": "WebDriverAgent", "appium": "Appium"}
_PLATFORMS = {"sim": ("android", "ios"), "u2": ("android",), "wda": ("ios",), "appium": ("android", "ios")}


def _limits(entries: Sequence[Unsupported], backend: str, form: MaestroForm) -> str:
    """What a backend cannot do of an action, in a few words ('yes' when nothing)."""
    said: list[str] = []
    for entry in entries:
        if entry.backends and backend not in entry.backends:
            continue
        platforms = [p for p in _PLATFORMS[backend] if not entry.platforms or p in entry.platforms]
        if not platforms:
            continue
        where = (
            ""
            if len(platforms) == len(_PLATFORMS[backend])
            else f" on {'iOS' if platforms == ['ios'] else 'Android'}"
        )
        if entry.kinds == frozenset({"device"}):  # a Simulator can: only a physical iPhone cannot
            where = " on a physical iPhone"
        option = next((o for o, arg in form.options.items() if arg == entry.when), entry.when)
        some = " values" if entry.only is not None else ""  # a rule on the option's value
        said.append(f"not some `{option}`{some}{where}" if option and some else "")
        if not some:
            said[-1] = f"not `{option}`{where}" if option else f"no{where}"
    if any(s == "no" for s in said):
        return "no"
    return "yes" + (" (" + "; ".join(said) + ")" if said else "")


def _options(action: Action, form: MaestroForm) -> str:
    shown = [f"`{option}`" for option in form.options if option != form.short]
    if form.selector:
        shown.insert(0, "selector")
    if form.ignored:
        shown += [f"`{o}` (read, not used)" for o in sorted(form.ignored)]
    return ", ".join(shown) or "-"


def compatibility_markdown() -> str:
    """One row per Maestro command: the action it runs as, its options, each backend."""
    rows = [
        "| Maestro command | runs as | options | " + " | ".join(_NAMES[b] for b in BACKENDS) + " | notes |",
        "|---|---|---|" + "---|" * len(BACKENDS) + "---|",
    ]
    for command in sorted(FORMS, key=str.lower):
        action, form = FORMS[command]
        cells = [_limits(action.unsupported, backend, form) for backend in BACKENDS]
        note = (form.note or "").replace("|", "\\|")
        rows.append(
            f"| `{command}` | `{action.name}` | {_options(action, form)} | "
            + " | ".join(cells)
            + f" | {note} |"
        )
    for command in ("runFlow", "repeat", "retry"):
        rows.append(f"| `{command}` | a block | see below | " + " | ".join(["yes"] * len(BACKENDS)) + " | |")
    for command in sorted(NO_ACTION, key=str.lower):
        rows.append(
            f"| `{command}` | kept | - | " + " | ".join(["no"] * len(BACKENDS)) + f" | {NO_ACTION[command]} |"
        )
    return "\n".join(rows) + "\n"


BLOCKS = {"maestro commands": compatibility_markdown}


def render(text: str) -> str:
    return replace_generated(text, BLOCKS, _COMMAND)


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(argv, "python -m amc.flows.maestro.reference", BLOCKS, _COMMAND)


if __name__ == "__main__":
    sys.exit(main())
