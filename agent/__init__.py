"""The agent surface: one description of the tools (from the executor's table), the compact
screen agents read, the agent executor's guardrails, the LLM planner and the MCP server.

``LLMPlanner`` needs the ``openai`` package and :mod:`amc.agent.mcp_server` the ``mcp``
package, both in the ``agent`` extra (``pip install 'agentic-mobile-control[agent]'``); the rest
imports without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .guard import REPLY_ERROR, agent_actions, agent_executor, outside_allowed
from .prompt import request_messages, world_for_model
from .screen import CompactScreen, ScreenElement, compact_screen
from .tools import DONE, SESSION_TOOLS, ToolSpec, action_tools, mcp_tools, openai_tools, step_from_call

if TYPE_CHECKING:
    from .llm import LLMPlanner

__all__ = [
    "DONE",
    "REPLY_ERROR",
    "SESSION_TOOLS",
    "CompactScreen",
    "LLMPlanner",
    "ScreenElement",
    "ToolSpec",
    "action_tools",
    "agent_actions",
    "agent_executor",
    "compact_screen",
    "mcp_tools",
    "openai_tools",
    "outside_allowed",
    "request_messages",
    "step_from_call",
    "world_for_model",
]


def __getattr__(name: str) -> Any:
    if name == "LLMPlanner":  # imported on first use: it needs the openai package
        from .llm import LLMPlanner

        return LLMPlanner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
