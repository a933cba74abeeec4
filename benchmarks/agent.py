"""The agent surface: what an MCP tool call adds to a step, and what the LLM planner sends per turn.

First table: one tap by its text on the simulated Android Settings screen (then ``back``, so every
round starts on the same screen), recorded in a run timeline, three ways, in rounds whose order rotates:
``Session.run_step`` with the ``TimelineRecorder`` (the baseline: a flow step), the same call through
``DeviceService.call`` (the argument checks, the skip rule, the reply and its redaction), and through
the MCP SDK's client connected in process to the server (the protocol's own cost, no stdio pipe).

Second table: the bytes of one chat-completions request the LLM planner builds (system message, user
message, tool schemas) on three screens, with an empty history and with ten steps in it, and the time
to build it; the tools are the same every turn.

Third table: what a model reads, in tokens (``o200k_base``, the encoding of OpenAI's current models,
counted by the ``bpe-openai`` package, which ships its vocabulary; characters / 4 beside it): MCP
``tools/list`` as the SDK's client receives it, the LLM planner's tool schemas per request, and MCP
``observe`` on three screens: the first look, a second look at the same screen, and a look after a
step that changed one element, each against the first look's cost.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from amc.agent.mcp_server import build_server
from amc.agent.prompt import request_messages
from amc.agent.service import DeviceService
from amc.agent.tools import DONE, action_tools, openai_tools
from amc.connect.simulated import SimDriver
from amc.core.models import PlannedStep, StepResult
from amc.core.steps import StepRecord
from amc.runtime.recording import TimelineRecorder
from amc.runtime.task import open_session
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.models import Observation
from amc.storage.timeline import RunInfo, TimelineWriter
from amc.world.model import WorldModel
from mcp import Client

from benchmarks.common import Stats, Table, median, rotations, trim_allocator

__all__ = ["run"]

ROW = "Network & internet"


def _session_steps(folder: Path, rounds: int) -> list[float]:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    writer = TimelineWriter(folder)
    writer.start(RunInfo("bench", "bench", driver.device_id, driver.platform, driver.backend))
    session = open_session(driver, "bench", listeners=[TimelineRecorder(writer, driver)])
    session.look()
    times: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        session.run_step(PlannedStep("tap", {"target": {"text": ROW}}))
        times.append(time.perf_counter() - started)
        session.run_step(PlannedStep("press", {"key": "back"}))
    writer.finish("ended")
    return times


def _service(folder: Path) -> DeviceService:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    service = DeviceService(driver, spec="sim:android", run_dir=folder, flow_root=folder)
    service.start()
    return service


def _service_steps(folder: Path, rounds: int) -> list[float]:
    service = _service(folder)
    times: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        service.call("tap", {"target": {"text": ROW}})
        times.append(time.perf_counter() - started)
        service.call("press", {"key": "back"})
    service.close()
    return times


def _mcp_steps(folder: Path, rounds: int) -> list[float]:
    service = _service(folder)
    times: list[float] = []

    async def main() -> None:
        async with Client(build_server(service)) as client:
            for _ in range(rounds):
                started = time.perf_counter()
                await client.call_tool("tap", {"target": {"text": ROW}})
                times.append(time.perf_counter() - started)
                await client.call_tool("press", {"key": "back"})

    anyio.run(main)
    service.close()
    return times


def _call_table(rounds: int) -> Table:
    ways: dict[str, Callable[[Path, int], list[float]]] = {
        "session": _session_steps,
        "service": _service_steps,
        "mcp": _mcp_steps,
    }
    samples: dict[str, list[float]] = {name: [] for name in ways}
    blocks: dict[str, list[float]] = {name: [] for name in ways}  # each round's median, per way
    memory = Path("/dev/shm")  # the timeline on tmpfs: fsync on a shared disk would drown the difference
    with tempfile.TemporaryDirectory(dir=memory if memory.is_dir() else None) as tmp:
        for name, way in ways.items():
            way(Path(tmp) / f"warm-{name}", 2)  # untimed: imports, caches, the SDK's first session
        # One batch of each per round, the order rotating from round to round, the allocator
        # trimmed before each batch.
        for n, order in enumerate(rotations(list(ways), rounds)):
            for name in order:
                trim_allocator()
                taps = ways[name](Path(tmp) / f"{n}-{name}", 20)
                samples[name] += taps
                blocks[name].append(median(taps))
    stats = {name: Stats.of(times) for name, times in samples.items()}
    baseline = stats["session"]
    # A round's median over the flow step's of the same round: a machine slow for a while weighs on
    # both sides of each pair.
    paired = {name: Stats.of(b).paired(Stats.of(blocks["session"])) for name, b in blocks.items()}
    labels = {
        "session": "Session.run_step + timeline (a flow step)",
        "service": "DeviceService.call (the MCP tool, no protocol)",
        "mcp": "MCP SDK client -> server, in process",
    }
    rows = [
        [
            labels[name],
            f"{s.median * 1e6:,.0f}",
            f"{s.min * 1e6:,.0f}",
            f"{(s.median - baseline.median) * 1e6:+,.0f}",
            f"{paired[name]:.2f}x",
        ]
        for name, s in stats.items()
    ]
    return Table(
        "An MCP tool call against the same step run directly (sim Android, tap by text, µs per call)",
        ["path", "µs per tap (median)", "min", "µs added", "vs a flow step"],
        rows,
        [
            f"{rounds} rounds of 20 taps each way, the order of the three rotating from round to round, the "
            "allocator trimmed before each batch; every tap is written to a run timeline (fsynced) on tmpfs "
            "(/dev/shm), so a disk's fsync does not drown the difference. vs a flow step: the median over "
            "rounds of the way's median tap over the flow step's in the same round (the paired ratio).",
        ],
    )


def _history(world_model: WorldModel, observation: Observation, n: int) -> list[StepRecord]:
    records: list[StepRecord] = []
    for i in range(n):
        step = PlannedStep(
            "tap",
            {"target": {"text": ROW}},
            rationale=f"step {i}: open the network page to read the Wi-Fi state",
            expected_outcome="the Network & internet page",
        )
        result = StepResult(success=True, output={"x": 504, "y": 275})
        world_model.observe(observation.scene, observation.semantic, step, result)
        records.append(StepRecord(i, step, result, observation.page, observation.foreground_app))
    return records


def _request_rows(platform: str, app: str | None, label: str) -> list[list[object]]:
    driver = SimDriver(platform)  # type: ignore[arg-type]
    if app is not None:
        driver.launch_app(app)
    scene = driver.observe()
    observation = Observation(scene, DefaultEnricher().enrich(scene))
    tools = json.dumps(openai_tools([*action_tools(), DONE]))
    rows: list[list[object]] = []
    for history in (0, 10):
        model = WorldModel()
        model.see(observation.scene, observation.semantic)
        steps = _history(model, observation, history)
        times: list[float] = []
        messages = request_messages(goal="warm", observation=observation, world=model.state, steps=steps)
        for _ in range(100):
            started = time.perf_counter()
            messages = request_messages(
                goal="read the Wi-Fi state", observation=observation, world=model.state, steps=steps
            )
            times.append(time.perf_counter() - started)
        system, user = (len(str(m["content"]).encode()) for m in messages)
        rows.append(
            [
                label,
                history,
                f"{system:,}",
                f"{user:,}",
                f"{len(tools.encode()):,}",
                f"{median(times) * 1e6:,.0f}",
            ]
        )
    return rows


def _request_table() -> Table:
    rows = _request_rows("android", None, "Android home screen")
    rows += _request_rows("android", "com.android.settings", "Android Settings")
    rows += _request_rows("ios", "com.apple.Preferences", "iOS Settings")
    return Table(
        "What the LLM planner sends per turn (bytes of JSON, and µs to build the messages, median of 100)",
        ["screen", "history steps", "system message", "user message", "tool schemas", "µs to build"],
        rows,
        [
            f"the tool schemas are the same every turn ({len(action_tools()) + 1} tools, done included); "
            "the user message carries the screen and the world."
        ],
    )


def _tokens() -> tuple[Callable[[str], int], str]:
    """A token counter and its name: o200k_base through bpe-openai, else characters / 4."""
    try:
        import bpe_openai  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return (lambda text: round(len(text) / 4)), "characters / 4 (bpe-openai is not installed)"
    encoding = bpe_openai.get_encoding("o200k_base")
    return (lambda text: len(encoding.encode(text))), "o200k_base tokens (bpe-openai)"


def _looks(folder: Path) -> list[tuple[str, str, str, str]]:
    """(screen, what, the reply's JSON, its text) of MCP observe calls through the SDK's client."""
    found: list[tuple[str, str, str, str]] = []
    cases = [
        ("android", "com.android.settings", "Android Settings", None),
        ("ios", "com.apple.Preferences", "iOS Settings", None),
        (
            "android",
            "com.example.amc.demo",
            "demo login",
            ("type_text", {"text": "qa", "target": {"id": "username"}}),
        ),
    ]
    for platform, app, label, step in cases:
        driver = SimDriver(platform)  # type: ignore[arg-type]
        driver.launch_app(app)
        service = DeviceService(driver, spec=f"sim:{platform}", run_dir=folder / label, flow_root=folder)
        service.start()

        async def main(service: DeviceService = service, step: Any = step, label: str = label) -> None:
            async with Client(build_server(service)) as client:
                looks = [("first look", await client.call_tool("observe", {}))]
                looks.append(("same screen again", await client.call_tool("observe", {})))
                if step is not None:
                    await client.call_tool(step[0], step[1])
                    looks.append(("after a step changed a field", await client.call_tool("observe", {})))
                looks.append(("full=true", await client.call_tool("observe", {"full": True})))
                for what, result in looks:
                    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                    text = "".join(c.get("text", "") for c in data["content"])
                    found.append((label, what, json.dumps(data, ensure_ascii=False), text))

        anyio.run(main)
        service.close()
    return found


def _token_table() -> Table:
    count, unit = _tokens()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        service = DeviceService(
            SimDriver("android"), spec="sim:android", run_dir=folder / "tools", flow_root=folder
        )
        listed: list[str] = []

        async def main() -> None:
            async with Client(build_server(service)) as client:
                tools = await client.list_tools()
                listed.append(json.dumps(tools.model_dump(mode="json", by_alias=True, exclude_none=True)))
                listed.append(str(len(tools.tools)))

        anyio.run(main)
        looks = _looks(folder)
    llm = json.dumps(openai_tools([*action_tools(), DONE]))
    rows: list[list[object]] = [
        [
            "MCP tools/list",
            f"{listed[1]} tools",
            f"{count(listed[0]):,}",
            f"{len(listed[0]) / 4:,.0f}",
            "",
            "",
        ],
        [
            "LLM planner tool schemas",
            f"{len(action_tools()) + 1} tools",
            f"{count(llm):,}",
            f"{len(llm) / 4:,.0f}",
            "",
            "",
        ],
    ]
    first: dict[str, int] = {}
    for label, what, whole, text in looks:
        tokens = count(whole)
        first.setdefault(label, tokens)
        rows.append(
            [
                f"MCP observe, {label}",
                what,
                f"{tokens:,}",
                f"{len(whole) / 4:,.0f}",
                f"{count(text):,}",
                f"{tokens / first[label]:.2f}",
            ]
        )
    return Table(
        f"What a model reads ({unit}; characters / 4 beside it)",
        ["what", "case", "tokens", "chars / 4", "text part only", "vs the first look"],
        rows,
        [
            "tools/list as the MCP SDK's client receives it (name, description, input schema, annotations "
            "of every tool), and the tools the LLM planner sends with every request; both bounded at 3,000 "
            "tokens. An observe reply is the whole CallToolResult a client gets (the text and the same as "
            "structured content); a look at a screen of the app and page the last look showed lists what "
            "changed (bounded at a fifth of the first look), full=true the whole screen.",
        ],
    )


def run(rounds: int = 9) -> list[Table]:
    return [_call_table(rounds), _request_table(), _token_table()]
