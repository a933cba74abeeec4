"""docs/planners.md and the README say what the code does: the generated reference is current, the
example planner runs and prints what the page says, every option and tool is documented."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from amc.agent.reference import render
from amc.cli import build_parser

from tests.agent.test_tools import MCP_CONTRACT

REPO = Path(__file__).resolve().parents[2]
PLANNERS = REPO / "docs" / "planners.md"
README = REPO / "README.md"


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = re.search(r"^## ", text[start + len(heading) :], re.M)
    return text[start : start + len(heading) + following.start()] if following else text[start:]


def _options(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")  # the subcommand table
    found = sub.choices[command]._option_string_actions  # type: ignore[attr-defined]
    return {o for o in found if o.startswith("--") and o != "--help"}


def test_the_generated_reference_is_current() -> None:
    text = PLANNERS.read_text(encoding="utf-8")
    assert render(text) == text, "run: python -m amc.agent.reference --write docs/planners.md"
    assert "### `launch_app`" in text and "### `run_flow`" in text


def test_the_example_planner_runs_and_prints_what_the_page_says() -> None:
    section = _section(PLANNERS.read_text(encoding="utf-8"), "## An example planner")
    code, printed = re.findall(r"```(?:python|text)\n(.*?)```", section, re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PLANNERS), "exec"), {"__name__": "planners_example"})
    assert out.getvalue() == printed


def test_every_option_of_the_agent_commands_is_documented() -> None:
    text = PLANNERS.read_text(encoding="utf-8")
    for option in _options("agent"):
        assert f"`{option}" in _section(text, "## The LLM planner"), option
    for option in _options("mcp"):
        assert f"`{option}" in _section(text, "## The MCP server"), option


def test_the_readme_documents_both_doors_and_links_the_planner_guide() -> None:
    text = README.read_text(encoding="utf-8")
    assert "(docs/planners.md)" in text
    assert "amc mcp --device" in text and '"mcpServers"' in text
    assert "amc agent " in text and "--llm-url" in text and "--model" in text
    for name in MCP_CONTRACT:
        assert f"`{name}`" in text, name
