"""The plugin's reference tables for ``docs/pytest.md``, read from the plugin itself: the options
and ini keys :func:`amc.pytest_plugin.pytest_addoption` registers (recorded by calling it with a
recorder in place of pytest's parser), the markers, and the fixtures with their scope and docstring.

Regenerate the tables in the page (between its markers)::

    .venv/bin/python -m amc.pytest_plugin.reference docs/pytest.md
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

__all__ = ["BEGIN", "END", "FIXTURES", "Recorded", "recorded", "reference_markdown", "rewrite"]

BEGIN = "<!-- pytest-plugin:begin -->"
END = "<!-- pytest-plugin:end -->"
FIXTURES = ("amc_device", "amc_driver", "amc_runner", "amc_apps", "amc_flows")


@dataclass
class _Group:
    options: list[tuple[tuple[str, ...], dict[str, Any]]] = field(default_factory=list)

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.options.append((names, attrs))


@dataclass
class Recorded:
    """What ``pytest_addoption`` registered: options by group, and ini keys."""

    groups: dict[str, _Group] = field(default_factory=dict)
    ini: list[tuple[str, str, Any]] = field(default_factory=list)

    def getgroup(self, name: str, description: str = "") -> _Group:
        return self.groups.setdefault(name, _Group())

    def addini(self, name: str, help: str, type: str | None = None, default: Any = None) -> None:
        self.ini.append((name, help, default))


def recorded() -> Recorded:
    from . import pytest_addoption

    record = Recorded()
    pytest_addoption(cast(pytest.Parser, record))
    return record


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(value: Any) -> str:
    if value in (None, [], ""):
        return "—"
    return f"`{value}`"


def _fixture_rows() -> list[str]:
    from .. import pytest_plugin as plugin

    rows = ["| fixture | scope | what it gives |", "|---|---|---|"]
    for name in FIXTURES:
        fixture = getattr(plugin, name)
        marker = getattr(fixture, "_fixture_function_marker", None)  # pytest's FixtureFunctionDefinition
        scope = getattr(marker, "scope", "function")
        rows.append(f"| `{name}` | {scope} | {_cell(inspect.getdoc(fixture) or '')} |")
    return rows


def reference_markdown() -> str:
    """The tables ``docs/pytest.md`` holds between its markers."""
    from . import _MARKERS

    record = recorded()
    lines = ["| option | value | default | meaning |", "|---|---|---|---|"]
    for group in record.groups.values():
        for names, attrs in group.options:
            metavar = attrs.get("metavar") or ""
            repeat = " (repeatable)" if attrs.get("action") == "append" else ""
            lines.append(
                f"| `{', '.join(names)}` | {metavar}{repeat} | {_default(attrs.get('default'))} | "
                f"{_cell(attrs.get('help', ''))} |"
            )
    lines += ["", "| ini key | default | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {_default(default)} | {_cell(help)} |" for name, help, default in record.ini]
    lines += ["", "| marker | meaning |", "|---|---|"]
    for line in _MARKERS:
        name, _, meaning = line.partition(":")
        lines.append(f"| `{name}` | {_cell(meaning)} |")
    lines += ["", *_fixture_rows()]
    return "\n".join(lines) + "\n"


def rewrite(page: str) -> str:
    """``page`` with the text between its markers replaced by :func:`reference_markdown`."""
    head, sep, rest = page.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"the page has no {BEGIN} … {END} markers")
    return f"{head}{BEGIN}\n{reference_markdown()}{END}{tail}"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m amc.pytest_plugin.reference docs/pytest.md", file=sys.stderr)
        return 2
    path = Path(args[0])
    path.write_text(rewrite(path.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
