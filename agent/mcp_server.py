"""The MCP face of a :class:`~amc.agent.service.DeviceService`, on the official SDK.

Built on ``mcp.server.mcpserver.MCPServer`` (the ``mcp`` package >= 2). Each tool is registered
with the JSON schema :class:`~amc.agent.tools.ToolSpec` gives (the one the LLM planner
offers too) rather than a schema the SDK would derive from a Python signature, and its
arguments reach the service as sent: the SDK's argument model here accepts any object, so every
check is the harness's own (unknown arguments, types, selectors), with the harness's error
text. A tool's reply is a ``CallToolResult``: the reply's text, its data as structured content,
a screenshot as image content, and ``isError`` for every failure.
"""

from __future__ import annotations

import base64
from importlib import metadata
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent, ToolAnnotations
from pydantic import ConfigDict

from .service import DeviceService, ToolReply
from .tools import REASON_FIELDS, ToolSpec

__all__ = ["INSTRUCTIONS", "build_server", "serve_stdio", "to_result"]

INSTRUCTIONS = """\
Drives one iOS or Android device (or the simulated one) through agentic-mobile-control.
Call `observe` to see the screen: every element has a ref and a `target` selector; pass that
selector as `target` to tap, long_press, type_text, wait_for or the asserts (or give x and y).
Every acting tool takes optional rationale, purpose and expected_outcome: they are kept in the
world history (`world_state`). Each call is one recorded step: one look at the device after it,
the world model updated, the run timeline written. A failed call is a tool error whose text
starts with the error's kind (AppNotInstalled, TargetNotFound, DeviceTimeout ...) and hint."""


class _AnyArguments(ArgModelBase):
    """The SDK's argument model for every tool: the call's arguments, unchanged, whatever they are."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def to_result(reply: ToolReply) -> CallToolResult:
    """``reply`` as an MCP tool result."""
    content: list[ContentBlock] = [TextContent(type="text", text=reply.text)]
    if reply.image:
        data = base64.b64encode(reply.image).decode("ascii")
        content.append(ImageContent(type="image", data=data, mime_type=_mime(reply.image)))
    structured = dict(reply.data) if reply.data is not None else None
    return CallToolResult(content=content, structured_content=structured, is_error=reply.is_error)


def _mime(image: bytes) -> str:
    return "image/jpeg" if image.startswith(b"\xff\xd8") else "image/png"


def _tool(service: DeviceService, spec: ToolSpec) -> Tool:
    def call(**arguments: Any) -> CallToolResult:
        return to_result(service.call(spec.name, arguments))

    return Tool(
        fn=call,
        name=spec.name,
        title=None,
        description=spec.description,
        parameters=spec.input_schema(REASON_FIELDS),
        fn_metadata=FuncMetadata(arg_model=_AnyArguments),
        is_async=False,  # the SDK runs it on a worker thread; the service serves one call at a time
        context_kwarg=None,
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only,
            idempotent_hint=spec.idempotent or spec.read_only,
            open_world_hint=False,
        ),
    )


def _version() -> str:
    try:
        return metadata.version("agentic-mobile-control")
    except metadata.PackageNotFoundError:
        return "0"


def build_server(service: DeviceService, *, name: str = "amc") -> MCPServer[Any]:
    """An MCP server offering ``service``'s tools (nothing starts until it is run)."""
    tools = [_tool(service, spec) for spec in service.tools]
    return MCPServer(name, instructions=INSTRUCTIONS, version=_version(), tools=tools, log_level="WARNING")


def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` on this process's stdin/stdout until the client closes them."""
    anyio.run(server.run_stdio_async)
