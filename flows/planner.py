"""``FlowPlanner``: a flow's tree, interpreted one step per turn, read against the world state.

It implements :class:`amc.runtime.planner.Planner`. The flow's commands, conditions, subflows and
``repeat`` / ``retry`` blocks are walked by a generator that hands out one ``PlannedStep`` per
``plan()`` and gets back the record of what it did. What it decides, with nothing but what the
loop hands it (the latest observation, the frozen world, the steps so far):

- a ``when:`` that does not hold (checked on the latest observation, the device's platform, the
  world's ``current_app``) hands out a ``skip`` step with the reason: recorded, sent nowhere;
- a ``launch_app`` of the app that both the world model (``current_app``) and the latest
  observation (``foreground_app``) show in front is skipped the same way;
- each step carries what its failure means (``PlannedStep.on_failure``): ``warn`` for an
  ``optional`` step or a step of an optional block, ``retry`` inside a ``retry`` block with
  attempts left, else ``fail``. A failed step ends its block; a ``retry`` runs its block again,
  an optional block lets the flow go on after it, anything else ends the flow (the task fails);
- ``repeat`` runs its block ``times`` times, or while its condition holds (at most ``max``);
- a Maestro flow's JavaScript runs here, when its turn comes (:mod:`amc.flows.scripting`): a
  step's ``${...}`` are evaluated right before the step is handed out (its values then checked as
  any step's), ``evalScript`` / ``runScript`` / ``assertTrue`` and a failed evaluation are handed
  out as a ``script`` step recording what happened (its console lines, HTTP calls, the ``output``
  values it changed, or its error with file and line), a ``true:`` condition or a computed count
  is evaluated when the block starts; env blocks are bound when their flow starts.

``cancel`` (a :class:`~amc.runtime.cancel.Cancel` or a ``threading.Event``), once set, makes the next
``plan()`` raise ``FlowInterrupted`` (the task loop checks its own stop request before every plan
too, so ``amc run`` gives the planner none).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass

from ..actions.copy_text_from import COPIED
from ..core.errors import HarnessError, Interrupted
from ..core.models import OnFailure, PlannedStep, Platform, Scene
from ..core.steps import StepRecord
from ..runtime.cancel import Cancel
from ..semantic.models import Observation
from ..world.models import WorldState
from .capabilities import platform_problems
from .conditions import Combined, Condition, Script, Seen, holds
from .js import HttpHandler, ScriptLimits
from .maestro.reader import MAX_RETRIES
from .model import Flow, FlowStep, Node, Repeat, Retry, RunFlow, SourcePosition, leaves
from .scripting import FlowScripts, script_step

__all__ = ["FlowFailed", "FlowInterrupted", "FlowPlanner", "skip_instead", "skip_reason"]

Walk = Generator[PlannedStep, StepRecord, bool]
Check = Generator[PlannedStep, StepRecord, bool | None]  # None: its JavaScript failed (recorded)
Count = Generator[PlannedStep, StepRecord, int | None]


class FlowInterrupted(Interrupted):
    """The run was asked to stop (Ctrl-C) between two steps."""


class FlowFailed(HarnessError):
    """A flow whose steps failed, said once its ``onFlowComplete`` hook has run (the hook's own
    steps may have passed)."""

    category = "assertion"


def skip_reason(step: PlannedStep, scene: Scene | None, world: WorldState | None) -> str | None:
    """Why ``step`` need not run given what the harness believes, or None when it must run.

    Only a ``launch_app`` is ever skipped this way, and only when the world model and the latest
    Scene agree the app is already in front; with the world model off nothing is skipped.
    """
    if step.action != "launch_app" or world is None or scene is None:
        return None
    if step.args.get("stop_first") or step.args.get("clear_state"):
        return None  # the flow asks for a fresh start
    app = step.args.get("app_id")
    if not isinstance(app, str) or world.current_app != app or scene.foreground_app != app:
        return None
    return f"{app} is already in front (the world model and the latest screen agree)"


def _skip_step(skipped: str, reason: str, rationale: str | None, purpose: str | None) -> PlannedStep:
    return PlannedStep(
        "skip",
        {"reason": reason, "skipped": skipped},
        rationale=rationale,
        thinking=f"not sending {skipped} to the device: {reason}",
        purpose=purpose,
        expected_outcome="nothing changes on the device",
    )


def skip_instead(step: PlannedStep, scene: Scene | None, world: WorldState | None) -> PlannedStep:
    """``step``, or the ``skip`` step that records why it need not run (see :func:`skip_reason`),
    keeping the reasons the planner gave for it: the one rule for a skipped launch, used by flows
    and both agent doors."""
    reason = skip_reason(step, scene, world)
    if reason is None:
        return step
    return _skip_step(step.action, reason, step.rationale, step.purpose)


def _skip(node: Node, reason: str, flow: str) -> PlannedStep:
    """The ``skip`` step for a flow node whose ``when:`` does not hold."""
    shown = node.shown if isinstance(node, FlowStep) else node.command
    return _skip_step(node.command, reason, f"{node.position}: `{shown}`", f"flow {flow} step {node.number}")


@dataclass
class _Handler:
    """An enclosing block that takes a failure: an optional one, or a retry with attempts left."""

    optional: bool
    left: int = 0  # retry attempts still to come


class FlowPlanner:
    """Interprets ``flow`` for a device of ``platform``, one step per turn.

    Building it turns every command into a ``PlannedStep`` for ``platform`` once, so a step that
    names no app for that platform is a ``FlowError`` here, before the task starts. ``http`` makes
    the HTTP requests a flow's scripts ask for (None: every call throws, HTTP is not allowed);
    ``secrets`` is told of every secret value the flow's JavaScript meets (the run's redactor);
    ``limits`` bound each evaluation (:class:`~amc.flows.js.ScriptLimits`).
    """

    def __init__(
        self,
        flow: Flow,
        platform: Platform,
        *,
        cancel: Cancel | threading.Event | None = None,
        http: HttpHandler | None = None,
        secrets: Callable[[Iterable[str]], None] | None = None,
        limits: ScriptLimits | None = None,
    ) -> None:
        self.flow = flow
        self.platform = platform
        self.cancel = cancel
        flow.planned_steps(platform)  # every command checked against the platform, before any runs
        problems, _notes = platform_problems(flow, platform)
        if problems:
            raise problems[0]
        self._failure: str | None = None  # the first failed step, for FlowFailed
        self._copied = ""  # the text copy_text_from / set_clipboard left, which paste_text types
        self._recording = False  # a start_recording ran and no stop_recording after it
        self._observation: Observation | None = None
        self._world: WorldState | None = None
        self._scripts = FlowScripts(flow, platform, http=http, secrets=secrets, limits=limits, stop=cancel)
        self._walk = self._flow(flow, ())
        self._started = False
        self._done = False
        self._lock = threading.Lock()

    @property
    def total(self) -> int | None:
        """How many steps the flow runs, when that is fixed (no condition or retry), else None
        (with the ``stop_recording`` the run adds when the flow's last recording step starts one)."""
        total = self.flow.total
        return None if total is None else total + self._left_recording()

    @property
    def most_steps(self) -> int:
        return self.flow.most_steps + self._left_recording()

    def _left_recording(self) -> int:
        """1 when the flow's commands end with a recording running, as read from the file."""
        last = None
        for step in leaves(self.flow.steps):
            if step.command in ("start_recording", "stop_recording"):
                last = step.command
        return int(last == "start_recording")

    def plan(
        self,
        *,
        goal: str,
        observation: Observation,
        world: WorldState | None,
        steps: Sequence[StepRecord],
    ) -> list[PlannedStep]:
        with self._lock:
            if self.cancel is not None and self.cancel.is_set():
                raise FlowInterrupted("the run was interrupted (Ctrl-C) before this step")
            if self._done:
                return []
            self._observation, self._world = observation, world
            try:
                if not self._started:
                    self._started = True
                    step = next(self._walk)
                else:
                    step = self._walk.send(steps[-1])
            except StopIteration:
                self.close()
                return []
            except BaseException:
                self.close()
                raise
            return [step]

    def close(self) -> None:
        """The flow is over: its JavaScript context (if one started) stops."""
        self._done = True
        self._scripts.close()

    # --- the walk -------------------------------------------------------------------------------

    def _holds(self, condition: Condition) -> bool:
        observation, world = self._observation, self._world
        scene = observation.scene if observation is not None else None
        app = world.current_app if world is not None else (scene.foreground_app if scene else None)
        return holds(condition, scene=scene, platform=self.platform, current_app=app)

    @staticmethod
    def _on_failure(optional: bool, handlers: tuple[_Handler, ...]) -> OnFailure:
        if optional:
            return "warn"
        for handler in reversed(handlers):
            if handler.optional:
                return "warn"
            if handler.left > 0:
                return "retry"
        return "fail"

    def _flow(self, flow: Flow, handlers: tuple[_Handler, ...], *, root: bool = True) -> Walk:
        """A flow's env blocks bound, its ``onFlowStart`` steps, then (if they passed) its steps,
        then its ``onFlowComplete`` steps even when the others failed (Maestro's hooks)."""
        try:
            ok = yield from self._enter(flow, handlers)
            if ok:
                ok = yield from self._nodes(flow.on_start, flow.name, handlers)
            if ok:
                ok = yield from self._nodes(flow.steps, flow.name, handlers)
                if root and self._recording:
                    yield from self._close_recording(flow)
            if flow.on_complete:
                failed = self._failure
                done = yield from self._nodes(flow.on_complete, flow.name, handlers)
                if not ok and root and failed is not None:
                    raise FlowFailed(f"{failed} (onFlowComplete ran after it)")
                ok = ok and done
            return ok
        finally:
            self._scripts.leave()

    def _close_recording(self, flow: Flow) -> Walk:
        """A recording left running when the flow's commands end is stopped and kept, before the
        ``onFlowComplete`` hook, as Maestro's run closes it ("close existing screen recording, if
        left open": Orchestra.kt:134-137 at dcd2f206). Its failure is a warning, as the flow's
        outcome is its commands'."""
        step = PlannedStep(
            "stop_recording",
            {},
            rationale=f"{flow.path}: the recording left running when the flow's commands ended",
            purpose=f"flow {flow.name}: keep the screen recording",
            on_failure="warn",
        )
        record = yield step
        if record.result.success:
            self._recording = False
        return True

    def _enter(self, flow: Flow, handlers: tuple[_Handler, ...]) -> Walk:
        """Bind the flow's env blocks (a failure is the flow's first step, recorded)."""
        where = SourcePosition(flow.path, 1, 1)
        try:
            self._scripts.enter(flow.bindings, where)
        except HarnessError as exc:
            on_failure = self._on_failure(False, handlers)
            step = script_step(
                "env", None, where, flow.name, 0, taken=self._scripts.take(), on_failure=on_failure, error=exc
            )
            record = yield step
            self._note_failure(where, record, on_failure)
            return False
        return True

    def _note_failure(self, where: SourcePosition, record: StepRecord, on_failure: OnFailure) -> None:
        error = str(record.result.error)
        if not record.result.success and on_failure == "fail" and self._failure is None:
            self._failure = error if error.startswith(where.file) else f"{where}: {error}"

    def _script_failed(
        self, node: Node, flow: str, handlers: tuple[_Handler, ...], command: str, error: HarnessError
    ) -> Walk:
        """A step whose JavaScript failed before it could run: the ``script`` step saying why."""
        on_failure = self._on_failure(node.optional, handlers)
        shown = node if isinstance(node, FlowStep) else None
        step = script_step(
            command,
            shown,
            node.position,
            flow,
            node.number,
            taken=self._scripts.take(),
            on_failure=on_failure,
            error=error,
        )
        record = yield step
        self._note_failure(node.position, record, on_failure)
        return node.optional

    def _condition(
        self, condition: Condition, node: Node, flow: str, handlers: tuple[_Handler, ...], look: bool = True
    ) -> Check:
        """Whether ``condition`` holds; a part that waits (Maestro's ``visible`` / ``notVisible``)
        asks the device through a ``check_visible`` step (with ``look``), after the parts that need
        no look; a ``true:`` runs its JavaScript. None: that JavaScript failed (recorded)."""
        if isinstance(condition, Combined):
            parts = sorted(condition.parts, key=lambda p: isinstance(p, Seen) and p.wait is not None)
            for part in parts:
                ok = yield from self._condition(part, node, flow, handlers, look)
                if ok is None or ok != condition.every:
                    return ok
            return condition.every
        try:
            if isinstance(condition, Script):
                return self._scripts.truth(condition.expression, node.position)
            if isinstance(condition, Seen) and "${" in repr(condition.selector):
                selector = self._scripts.selector(condition.selector, node.position)
                condition = dataclasses.replace(condition, selector=selector)
        except HarnessError as exc:
            yield from self._script_failed(node, flow, handlers, "when", exc)
            return None
        if look and isinstance(condition, Seen) and condition.wait is not None:
            record = yield PlannedStep(
                "check_visible",
                {"target": dict(condition.selector), "present": condition.present, "timeout": condition.wait},
                rationale=f"{node.position}: `when: {condition.describe()}`",
                purpose=f"flow {flow} step {node.number}: its condition",
                expected_outcome=f"whether {condition.describe()} holds within {condition.wait:g} s",
            )
            output = record.result.output
            return bool(record.result.success and isinstance(output, dict) and output.get("holds"))
        return self._holds(condition)

    def _nodes(self, nodes: Sequence[Node], flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        """Run ``nodes`` in order; False as soon as one fails (the rest of the block is left)."""
        for node in nodes:
            if node.when is not None:
                ok = yield from self._condition(node.when, node, flow, handlers)
                if ok is None:  # its JavaScript failed: a warning skips the node, else the block fails
                    if self._on_failure(node.optional, handlers) == "warn":
                        continue
                    return False
                if not ok:
                    yield _skip(node, f"when: {node.when.describe()} does not hold", flow)
                    continue
            ok = yield from self._node(node, flow, handlers)
            if not ok:
                return False
        return True

    def _node(self, node: Node, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        if isinstance(node, FlowStep):
            return (yield from self._command(node, flow, handlers))
        inner = (*handlers, _Handler(optional=True)) if node.optional else handlers
        if node.unsupported is not None:  # optional (else the flow was refused before it ran)
            yield _skip(node, f"cannot run here: {node.unsupported}", flow)
            return True
        if isinstance(node, RunFlow):
            ok = yield from self._flow(node.flow, inner, root=False)
        elif isinstance(node, Repeat):
            ok = yield from self._repeat(node, flow, inner)
        else:
            ok = yield from self._retry(node, flow, inner)
        return ok or node.optional

    def _command(self, node: FlowStep, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        if node.unsupported is not None:  # optional (else the flow was refused before it ran)
            yield _skip(node, f"cannot run here: {node.unsupported}", flow)
            return True
        if node.script is not None:
            return (yield from self._script(node, flow, handlers))
        thinking: str | None = None
        extra: dict[str, object] = {}
        if node.template is not None:  # its ${...} evaluated now, its values checked as any step's
            try:
                read = self._scripts.realize(node)
                if read.unsupported is not None:
                    raise node.position.error(f"`{node.shown}` cannot run here: {read.unsupported}")
            except HarnessError as exc:
                return (yield from self._script_failed(node, flow, handlers, node.template.command, exc))
            node = dataclasses.replace(
                node, command=read.action, args=read.args, label=read.label or node.label
            )
            taken = self._scripts.take(secret_too=False)
            extra = taken.args()
            said = [*(f"console: {line}" for line in taken.logs[:20]), *(f"http: {c}" for c in taken.http)]
            thinking = "; ".join(said) or None
        step = node.to_planned(flow, self.platform, on_failure=self._on_failure(node.optional, handlers))
        if step.action == "paste_text":
            step = dataclasses.replace(step, args={**step.args, "text": self._copied})
        if extra or thinking:
            step = dataclasses.replace(step, args={**step.args, **extra}, thinking=thinking)
        scene = self._observation.scene if self._observation is not None else None
        handed = skip_instead(step, scene, self._world)
        record = yield handed
        output = record.result.output
        if record.result.success and handed.action in ("start_recording", "stop_recording"):
            self._recording = handed.action == "start_recording"
        if record.result.success and isinstance(output, dict) and isinstance(output.get(COPIED), str):
            self._copied = output[COPIED]
            self._scripts.copied(self._copied)
        if not record.result.success and step.on_failure == "fail" and self._failure is None:
            self._failure = f"{node.position}: {record.result.error}"
        return handed is not step or record.result.success or node.optional

    def _script(self, node: FlowStep, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        """``evalScript`` / ``runScript`` / ``assertTrue``: run now, recorded as a ``script`` step."""
        script = node.script
        assert script is not None
        value: str | None = None
        error: HarnessError | None = None
        try:
            value = self._scripts.run(script, node.position)
        except HarnessError as exc:
            error = exc
        on_failure = self._on_failure(node.optional, handlers)
        step = script_step(
            script.command,
            node,
            node.position,
            flow,
            node.number,
            taken=self._scripts.take(),
            on_failure=on_failure,
            file=script.file,
            value=value,
            error=error,
        )
        record = yield step
        self._note_failure(node.position, record, on_failure)
        return record.result.success or node.optional

    def _count(self, node: Repeat | Retry, flow: str, handlers: tuple[_Handler, ...], high: int) -> Count:
        """A ``times`` / ``maxRetries`` a script computes, evaluated as the block starts (None:
        its JavaScript failed, recorded)."""
        assert node.times_text is not None
        what = "repeat's times" if isinstance(node, Repeat) else "retry's maxRetries"
        try:
            return self._scripts.count(node.times_text, node.position, what, high)
        except HarnessError as exc:
            yield from self._script_failed(node, flow, handlers, node.command, exc)
            return None

    def _repeat(self, node: Repeat, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        limit = node.limit
        if node.times_text is not None:
            counted = yield from self._count(node, flow, handlers, node.limit)
            if counted is None:
                return False
            limit = counted
        for _ in range(limit):
            if node.condition is not None:
                holds_now = yield from self._condition(node.condition, node, flow, handlers, look=False)
                if holds_now is None:
                    return False
                if not holds_now:
                    break
            ok = yield from self._nodes(node.steps, flow, handlers)
            if not ok:
                return False
        return True

    def _retry(self, node: Retry, flow: str, handlers: tuple[_Handler, ...]) -> Walk:
        times = node.times
        if node.times_text is not None:
            counted = yield from self._count(node, flow, handlers, MAX_RETRIES)
            if counted is None:
                return False
            times = counted
        for attempt in range(times + 1):
            handler = _Handler(optional=False, left=times - attempt)
            ok = yield from self._nodes(node.steps, flow, (*handlers, handler))
            if ok:
                return True
        return False
