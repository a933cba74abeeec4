"""What stands behind ``amc mcp``: one device, one long-lived session, one run folder.

:class:`DeviceService` answers tool calls by name (:func:`amc.agent.tools.mcp_tools`)
with a :class:`ToolReply`, whatever the transport; :mod:`amc.agent.mcp_server` puts it
on MCP. An acting tool runs as one step of the service's :class:`~amc.runtime.session.Session`,
exactly as a flow step runs: executed through the agent executor (with its ``--allow-app``
guard), one observation after it, the world model updated, the step written to the run timeline
(``timeline.jsonl``, page sources, screenshots as ``amc run`` writes them). ``run_flow`` runs a
flow's steps in the same session, so they land in the same world and timeline. ``observe`` and
``current_app`` are looks no step caused (shown to the world model, not recorded as steps).

A failed step, a bad argument, a device error: every failure is a reply with ``is_error`` whose
text starts with the typed error's kind and message, hint included
(``AppNotInstalled: com.x is not installed (hint: …)``). Calls are served one at a time.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError, FlowError, HarnessError, StepArgumentError
from ..core.models import PlannedStep, jsonable
from ..core.steps import StepRecord, describe_step, secret_values
from ..drivers.base import DeviceInfo, Driver
from ..flows import FlowValidationError, in_roots, load_flow, skip_instead
from ..flows.js.client import HttpClient, refusing
from ..flows.recorded import FORMATS, check_path
from ..flows.run import FLOW_SUFFIXES, flow_config, flow_planner
from ..runtime.cancel import Cancel
from ..runtime.planner import ObservingPlanner, Planner, planner_inputs
from ..runtime.recording import ScreenshotPolicy, TimelineRecorder
from ..runtime.session import Session, StepOutcome
from ..runtime.task import TaskRunner, TaskRunnerConfig, open_session
from ..semantic.models import Observation
from ..storage.redaction import Redactor
from ..storage.report import render_report
from ..storage.timeline import RunInfo, TimelineWriter
from ..world.models import WorldState
from .flowsave import flow_from_run, save_flow
from .guard import agent_executor
from .prompt import world_for_model
from .screen import CompactScreen, ScreenChanges, compact_screen, screen_changes
from .tools import REASON_FIELDS, Call, ToolSpec, mcp_tools, read_call, step_from_call

__all__ = ["SIMULATED_SPECS", "DeviceService", "ToolReply"]

log = logging.getLogger(__name__)

SIMULATED_SPECS = ("sim:android", "sim:ios", "sim+adb:android", "sim+wda:ios", "sim+appium:android")
NO_HTTP_OVER_MCP = (
    "a flow an agent runs over MCP makes no HTTP request; start the server with `amc mcp --allow-http` "
    "to let its scripts reach the network"
)


@dataclass(frozen=True)
class ToolReply:
    """A tool's answer: ``text`` for the reader, ``data`` the same as JSON, an optional PNG."""

    text: str
    data: Mapping[str, Any] | None = None
    image: bytes | None = None
    is_error: bool = False


def _error_text(kind: str | None, message: str | None) -> str:
    return f"{kind or 'Error'}: {message or 'failed'}"


def _world_summary(world: WorldState | None) -> dict[str, Any] | None:
    if world is None:
        return None
    return {
        "current_app": world.current_app,
        "observed_app": world.observed_app,
        "current_page": world.current_page,
        "overlay": world.overlay,
        "overlay_kind": world.overlay_kind,
    }


class _Told:
    """A planner whose steps carry the reasons an agent gave for running them (as ``thinking``)."""

    def __init__(self, planner: Planner | ObservingPlanner, note: str | None) -> None:
        self.planner, self.note = planner, note
        self._inputs = planner_inputs(planner.plan)

    def plan(self, **turn: Any) -> list[PlannedStep]:
        steps: list[PlannedStep] = self.planner.plan(**{k: v for k, v in turn.items() if k in self._inputs})
        if not self.note:
            return steps
        return [s if s.thinking else dataclasses.replace(s, thinking=self.note) for s in steps]


class DeviceService:
    """The tools of ``amc mcp`` on ``driver`` (reached as ``spec``), recording into ``run_dir``.

    ``discover`` lists attached devices for ``list_devices``; ``flow_root`` is the folder
    ``run_flow`` may read flows from (and their scripts). A flow an agent runs cannot make HTTP
    requests from its scripts unless ``allow_http`` (``amc mcp --allow-http``): a script's
    ``http.get`` then throws, saying so. Nothing is touched before :meth:`start`.
    """

    def __init__(
        self,
        driver: Driver,
        *,
        spec: str,
        run_dir: Path,
        flow_root: Path,
        config: TaskRunnerConfig | None = None,
        allowed_apps: Sequence[str] = (),
        screenshots: ScreenshotPolicy = "failure",
        discover: Callable[[], Sequence[DeviceInfo]] = tuple,
        redactor: Redactor | None = None,
        allow_http: bool = False,
    ) -> None:
        self.driver = driver
        self.allow_http = allow_http
        self.spec = spec
        self.run_dir = run_dir
        self.flow_root = flow_root
        self.config = config or TaskRunnerConfig.from_env()
        self.allowed_apps = tuple(allowed_apps)
        self.redactor = redactor if redactor is not None else Redactor()  # an empty one is falsy
        self.discover = discover
        self.tools: tuple[ToolSpec, ...] = mcp_tools()
        self._specs = {tool.name: tool for tool in self.tools}
        self.executor = agent_executor(driver, self.allowed_apps)
        self.writer = TimelineWriter(run_dir, redactor=self.redactor)
        self.cancel = Cancel()  # set by whoever stops the server: a call under way ends at its next poll
        self.session: Session = open_session(
            driver,
            f"MCP session on {spec}",
            self.config,
            executor=self.executor,
            listeners=[TimelineRecorder(self.writer, driver, screenshots=screenshots)],
            cancel=self.cancel,
        )
        self._handlers: dict[str, Callable[[ToolSpec, Call], ToolReply]] = {
            "list_devices": self._list_devices,
            "observe": self._observe,
            "current_app": self._current_app,
            "world_state": self._world_state,
            "run_flow": self._run_flow,
            "save_flow": self._save_flow,
        }
        self._shown: CompactScreen | None = None  # the last screen observe sent the client
        self._lock = threading.Lock()
        self._started: float | None = None

    # --- life -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Open the run folder's timeline."""
        self.writer.start(
            RunInfo(
                flow="mcp-session",
                goal=self.session.context.goal,
                device_id=self.driver.device_id,
                platform=self.driver.platform,
                backend=self.driver.backend,
                device_spec=self.spec,
            )
        )
        self._started = time.perf_counter()

    def close(self) -> Path | None:
        """Write the timeline's end record and the report; returns the report's path."""
        with self._lock:
            if self._started is None:
                return None
            steps = self.session.context.steps
            failed = sum(not r.result.success for r in steps)
            self.writer.finish(
                "ended", duration=time.perf_counter() - self._started, extra={"failed_steps": failed}
            )
            self._started = None
            return render_report(self.run_dir, redactor=self.redactor)

    # --- calls ----------------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> ToolReply:
        """Answer one tool call; never raises. The run's secrets are hidden in the reply as the
        client gets it, its text (errors included) and its data: the last thing done to it."""
        reply = self._call(name, arguments)
        data = self.redactor.value(reply.data) if reply.data is not None else None
        return dataclasses.replace(reply, text=self.redactor.text(reply.text), data=data)

    def _call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolReply:
        spec = self._specs.get(name)
        if spec is None:
            return ToolReply(f"StepArgumentError: there is no tool {name!r}", is_error=True)
        with self._lock:
            try:
                handler = self._handlers.get(name)
                if handler is None:
                    return self._act(spec, arguments)
                return handler(spec, read_call(spec, arguments, REASON_FIELDS))
            except FlowValidationError as exc:
                problems = [str(p) for p in exc.problems]
                return ToolReply(
                    _error_text(exc.kind, "; ".join(problems)), {"problems": problems}, is_error=True
                )
            except HarnessError as exc:
                return ToolReply(_error_text(exc.kind, str(exc)), is_error=True)
            except Exception as exc:  # a bug must not take the server down: the client is told
                log.exception("tool %s raised", name)
                return ToolReply(f"internal error: {type(exc).__name__}: {exc}", is_error=True)

    def _reply(
        self, data: Mapping[str, Any], *, is_error: bool = False, text: str | None = None
    ) -> ToolReply:
        shown: dict[str, Any] = self.redactor.value(data)
        body = json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
        return ToolReply(f"{text}\n{body}" if text else body, shown, is_error=is_error)

    def _latest(self) -> Observation:
        latest = self.session.observer.latest
        return latest if latest is not None else self.session.look()

    # --- acting tools ---------------------------------------------------------------------------

    def _act(self, spec: ToolSpec, arguments: Mapping[str, Any] | None) -> ToolReply:
        step = step_from_call(spec, arguments, REASON_FIELDS)
        self.redactor.add(*secret_values(step.args))  # before the step: its page source is scrubbed
        step = skip_instead(step, self._latest().scene, self.session.world)
        outcome = self.session.run_step(step)
        return self._step_reply(outcome)

    def _step_data(self, record: StepRecord) -> dict[str, Any]:
        result = record.result
        output = result.output
        if isinstance(output, bytes | bytearray):
            output = {"image": f"{len(output)} bytes"}
        return {
            "step": record.index + 1,
            "action": record.step.action,
            "target": describe_step(record.step.action, record.step.args),
            "status": record.status,
            "output": jsonable(output),
            "error_kind": result.error_kind,
            "error": result.error,
            "attempts": result.attempts,
            "foreground_app": record.foreground_app,
            "page": record.page,
            **({"verification": dict(result.verification)} if result.verification else {}),
        }

    def _step_reply(self, outcome: StepOutcome) -> ToolReply:
        record = outcome.record
        data = self._step_data(record)
        data["world"] = _world_summary(self.session.world)
        if outcome.look_error is not None:
            data["look_error"] = _error_text(outcome.look_error.kind, str(outcome.look_error))
        result = record.result
        image = result.output if isinstance(result.output, bytes) and result.success else None
        if not result.success:
            return self._reply(data, is_error=True, text=_error_text(result.error_kind, result.error))
        reply = self._reply(data)
        return dataclasses.replace(reply, image=image) if image else reply

    def _run_flow(self, spec: ToolSpec, call: Call) -> ToolReply:
        path = self._flow_path(call.args.get("path"))
        flow = load_flow(path, roots=(str(self.flow_root.resolve()),))
        self.redactor.add(*flow.secrets)
        http = HttpClient() if self.allow_http else refusing(NO_HTTP_OVER_MCP)
        planner = flow_planner(flow, self.driver.platform, redactor=self.redactor, http=http)
        note = "; ".join(f"{name}: {value}" for name, value in call.reasons.items())
        runner = TaskRunner(
            self.driver,
            _Told(planner, f"run_flow by the agent ({note})" if note else None),
            executor=self.executor,
            config=flow_config(self.config),  # a flow runs to its last command, as amc run runs it
        )
        start = len(self.session.context.steps)
        result = runner.drive(self.session, f"flow {flow.name}")
        data = {
            "flow": flow.name,
            "file": str(path),
            "status": result.status.value,
            "steps_run": len(result.steps) - start,
            "steps_in_flow": planner.total,
            "steps": [self._step_data(r) for r in result.steps[start:]],
            "error_kind": result.error_kind,
            "error": result.error,
            "world": _world_summary(self.session.world),
        }
        if result.succeeded:
            return self._reply(data)
        text = f"flow {flow.name} {result.status.value}: {_error_text(result.error_kind, result.error)}"
        return self._reply(data, is_error=True, text=text)

    def _flow_path(self, value: Any) -> Path:
        if not isinstance(value, str) or not value.strip():
            raise ConfigError("run_flow needs 'path': a flow file")
        root = self.flow_root.resolve()
        path = Path(value)
        path = (path if path.is_absolute() else root / path).resolve()
        if not in_roots(path, (str(root),)):  # the rule of every file a flow reaches (amc.flows.roots)
            raise FlowError(
                f"{value} is outside the flow root {root}; run_flow reads flows only there",
                hint="start `amc mcp --flow-root DIR` with the folder that holds your flows",
            )
        if path.suffix.lower() not in FLOW_SUFFIXES:
            raise FlowError(f"{value} is not a flow file (.yaml or .yml)", file=str(path))
        return path

    # --- looking tools --------------------------------------------------------------------------

    def _list_devices(self, spec: ToolSpec, call: Call) -> ToolReply:
        attached = [d.to_dict() for d in self.discover()]
        data = {
            "this_server": {
                "spec": self.spec,
                "platform": self.driver.platform,
                "device_id": self.driver.device_id,
                "backend": self.driver.backend,
            },
            "attached": attached,
            "simulated": list(SIMULATED_SPECS),
            "note": "this server drives one device; start another `amc mcp --device SPEC` for another",
        }
        return self._reply(data)

    def _observe(self, spec: ToolSpec, call: Call) -> ToolReply:
        full = call.args.get("full", False)
        if not isinstance(full, bool):
            raise StepArgumentError(f"observe: 'full' must be true or false, got {full!r:.40}")
        screen = compact_screen(self.session.look())
        last, self._shown = self._shown, screen
        shown: CompactScreen | ScreenChanges = screen
        if not full and last is not None and (last.app, last.page) == (screen.app, screen.page):
            shown = screen_changes(last, screen)  # the client has the last look: what changed
        data = shown.to_dict()
        data["world"] = _world_summary(self.session.world)
        reply = self._reply(data)
        return dataclasses.replace(reply, text=self.redactor.text(shown.to_text()))

    def _save_flow(self, spec: ToolSpec, call: Call) -> ToolReply:
        path = self._flow_path(call.args.get("path"))
        format = call.args.get("format", "amc")
        if format not in FORMATS:
            raise StepArgumentError(f"save_flow: 'format' is one of {', '.join(FORMATS)}, got {format!r:.40}")
        overwrite = call.args.get("overwrite", False) is True
        check_path(path, overwrite=overwrite, option="save_flow path")
        context = self.session.context
        first = context.first
        flow = flow_from_run(
            context.steps,
            first,
            name=path.stem,
            platform=self.driver.platform,
            header=(
                f"Saved by the MCP tool save_flow from the passed steps of an `amc mcp` session on "
                f"{self.spec}",
            ),
        )
        save_flow(flow, path, format)
        return self._reply(
            {"saved": str(path), "format": format, "steps": len(flow.steps), "variables": list(flow.needs())}
        )

    def _current_app(self, spec: ToolSpec, call: Call) -> ToolReply:
        observation = self.session.look()
        world = self.session.world
        data = {
            "foreground_app": observation.foreground_app,
            "page": observation.page,
            "world_current_app": world.current_app if world is not None else None,
            "world_observed_app": world.observed_app if world is not None else None,
        }
        return self._reply(data)

    def _world_state(self, spec: ToolSpec, call: Call) -> ToolReply:
        world = self.session.world
        steps = len(self.session.context.steps)
        if world is None:
            return self._reply({"enabled": False, "steps_run": steps, "note": "AMC_WORLD_ENABLED is off"})
        shown = world_for_model(world, world.history_size)
        return self._reply({"enabled": True, "steps_run": steps, **(shown or {})})
