"""``amc agent GOAL`` (an LLM planner runs a goal) and what ``amc mcp`` shares with it.

``amc agent GOAL --device SPEC --llm-url URL --model NAME [--allow-app ID ...] [--max-steps N]
[--out DIR] [--llm-key-env NAME] [--save-flow FILE [--save-format amc|maestro] [--overwrite]]``
checks everything before the device or the model is contacted (exit 2 for a bad argument), then runs
the goal through the task loop with an :class:`~amc.agent.llm.LLMPlanner` and the agent executor.
Every executed step is written to the run folder's timeline (as ``amc run`` writes it) and then
printed; the report is rendered at the end. The key is read from ``OPENAI_API_KEY``, or from the
variable ``--llm-key-env`` names; it is never printed or written. With ``--save-flow`` a run that
succeeded is saved as a flow (:mod:`amc.agent.flowsave`). Ctrl-C stops the goal at once (a wait,
a device's reply, a script or the model's answer in flight is given up within a second:
:mod:`amc.core.stop`), finishes the run folder and exits 130; a second Ctrl-C quits at once
(:mod:`.interrupt`). A model request the server failed and that is sent again is said on stderr and
in the timeline (a ``model_retry`` note). Both commands need the ``agent`` extra; without it they
exit 2 saying how to install it.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..agent.flowsave import flow_from_run, save_flow
from ..agent.guard import REPLY_ERROR, agent_executor
from ..core.durations import check_seconds
from ..core.errors import ConfigError
from ..core.limits import one_line
from ..core.steps import StepRecord, secret_values
from ..core.stop import stoppable
from ..flows.recorded import FORMATS, check_path
from ..runtime.cancel import Cancel
from ..runtime.context import TaskContext
from ..runtime.recording import TimelineRecorder
from ..runtime.task import TaskResult, TaskRunner, TaskRunnerConfig
from ..storage.report import render_report
from ..storage.timeline import TIMELINE_FILE, RunInfo, TimelineWriter, new_run_dir
from .common import (
    EXIT_FAILED,
    EXIT_USAGE,
    Streams,
    add_device_options,
    choose_device,
    connect_device,
    exit_code,
)
from .console import indented
from .interrupt import stop_on_ctrl_c
from .schedule import LOG_FILE, run_logging

if TYPE_CHECKING:
    from ..agent.llm import LLMPlanner

__all__ = [
    "EXTRA_HINT",
    "INTERRUPT_NOTE",
    "MAX_GOAL",
    "add_allow_app",
    "add_out",
    "allowed_apps",
    "check_out_dir",
    "device_spec",
    "extra_missing",
    "run_agent",
    "setup_agent",
]

EXTRA_HINT = "pip install 'agentic-mobile-control[agent]'"
MAX_GOAL = 4000
MAX_STEPS = 1000
MAX_LLM_TIMEOUT = 600.0
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_APP_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,254}\Z")
_WIDTH = 40
INTERRUPT_NOTE = (
    "amc: interrupted; the agent stops at its next poll, or once the model answers (Ctrl-C again to quit now)"
)


def extra_missing(io: Streams, command: str, exc: ImportError, package: str) -> int:
    """Say that ``command`` needs the agent extra, and how to install it; exit code 2. Names
    ``package`` (the extra's package the command needs) when it is the one missing, else what
    the import said (a dependency of it, such as ``anyio``)."""
    try:
        installed = importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # an import hook that refuses it
        installed = False
    missing = exc.name or str(exc) if installed else package
    io.err.write(
        f"amc: error: `amc {command}` needs the agent extra ({missing} is not installed): {EXTRA_HINT}\n"
    )
    return EXIT_USAGE


def _steps(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_STEPS:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 1 and {MAX_STEPS}")
    return value


def _timeout(text: str) -> float:
    return check_seconds(
        text,
        "the timeout",
        maximum=MAX_LLM_TIMEOUT,
        above_zero=True,
        text=True,
        error=argparse.ArgumentTypeError,
    )


def add_allow_app(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-app",
        action="append",
        default=[],
        metavar="ID",
        help="an app (package / bundle id) launch_app may start; repeat for more (default: any app)",
    )


def add_out(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", default="runs", metavar="DIR", help="where run folders are created (default: runs)"
    )


def allowed_apps(values: list[str]) -> tuple[str, ...]:
    """The ``--allow-app`` values, checked: each an app id."""
    for value in values:
        if not _APP_ID.match(value):
            raise ConfigError(
                f"--allow-app {value!r} is not an app id",
                hint="give a package or bundle id, e.g. com.android.settings",
            )
    return tuple(dict.fromkeys(values))


def check_out_dir(out: str) -> None:
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out} is a file, not a folder", hint="pass a folder for run folders")


def device_spec(args: argparse.Namespace) -> tuple[str, str]:
    """The device spec to use and why: ``--device``, else the one attached device, else the
    simulated device of ``--platform`` (android by default)."""
    choice = choose_device(args.device)
    if choice.spec is not None:
        return choice.spec, choice.reason
    return f"sim:{args.platform or 'android'}", f"the simulated device: {choice.reason}"


def setup_agent(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("goal", metavar="GOAL", help="what the agent should do, in words")
    add_device_options(parser)
    parser.add_argument(
        "--llm-url",
        required=True,
        metavar="URL",
        help="an OpenAI-compatible server's base URL, up to /v1: https://api.openai.com/v1, "
        "http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8080/v1 "
        "(llama.cpp's llama-server)",
    )
    parser.add_argument("--model", required=True, metavar="NAME", help="the model's name on that server")
    add_allow_app(parser)
    parser.add_argument(
        "--max-steps", type=_steps, default=20, metavar="N", help="stop after N executed steps (default: 20)"
    )
    add_out(parser)
    parser.add_argument(
        "--llm-key-env",
        metavar="NAME",
        help="read the API key from this environment variable "
        "(default: OPENAI_API_KEY; local servers need none)",
    )
    parser.add_argument(
        "--save-flow",
        metavar="FILE",
        help="when the agent succeeds, save its steps as a flow that `amc run` replays without a model "
        "(selectors, checks where the page or app changed, secrets as ${VARIABLES}, rationales as comments)",
    )
    parser.add_argument(
        "--save-format",
        choices=FORMATS,
        default="amc",
        help="the saved flow's dialect: amc (the project's flows, the default) or maestro",
    )
    parser.add_argument("--overwrite", action="store_true", help="let --save-flow replace an existing file")
    parser.add_argument(
        "--llm-timeout",
        type=_timeout,
        default=60.0,
        metavar="SECONDS",
        help="how long one model request may take (default: 60)",
    )


def _check_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"--llm-url {url!r} is not an http(s) URL", hint="e.g. --llm-url http://127.0.0.1:11434/v1"
        )
    return url.strip().rstrip("/")


def _api_key(name: str | None, environ: Mapping[str, str]) -> tuple[str | None, str]:
    """The key and where it came from (never the key itself in the second part)."""
    if name is not None:
        if not _ENV_NAME.match(name):
            raise ConfigError(f"--llm-key-env {name!r} is not an environment variable name")
        key = environ.get(name, "").strip()
        if not key:
            raise ConfigError(
                f"--llm-key-env {name}: the variable {name} is not set", hint=f"export {name}=..."
            )
        return key, f"key from ${name}"
    key = environ.get("OPENAI_API_KEY", "").strip()
    if key:
        return key, "key from $OPENAI_API_KEY"
    return None, "no key (OPENAI_API_KEY is not set; local servers need none)"


class _Console:
    """One line per executed step, as ``amc run`` prints them, with the model's rationale."""

    def __init__(self, io: Streams, max_steps: int) -> None:
        self.io = io
        self.width = len(str(max_steps))
        self.counts: Counter[str] = Counter()

    def step(self, rec: dict[str, Any]) -> None:
        self.counts[str(rec["status"])] += 1
        result = rec.get("result") or {}
        step = rec.get("step") or {}
        target = str(rec.get("target"))
        if rec["action"] == REPLY_ERROR:  # what the model sent, not what a step acts on
            target = str((step.get("args") or {}).get("tool") or "no tool call")
        target = one_line(target)
        shown = target if len(target) <= _WIDTH else target[: _WIDTH - 1] + "…"
        ms = float(result.get("duration") or 0.0) * 1000
        text = (
            f"[{rec['number']:>{self.width}}] {rec['action']!s:<18} {shown:<{_WIDTH}} {rec['status']:<7} "
            f"{ms:8.1f} ms  app={one_line(str(rec.get('foreground_app') or '?'))} "
            f"page={one_line(str(rec.get('page') or '?'))}\n"
        )
        if step.get("rationale"):
            text += f"        why: {one_line(str(step['rationale']))}\n"
        verification = result.get("verification") or {}
        if step.get("expected_outcome"):
            verified = verification.get("verified")
            said = {True: "verified", False: "NOT verified", None: "not checkable"}.get(verified, "?")
            text += f"        expected: {one_line(str(step['expected_outcome']))} -> {said}"
            text += f" (saw: {one_line(str(verification['saw']))})\n" if verification.get("saw") else "\n"
        if rec["status"] == "failed":
            text += f"        {result.get('error_kind')}: {indented(str(result.get('error')))}\n"
        self.io.out.write(text)
        self.io.out.flush()


def run_agent(args: argparse.Namespace, io: Streams) -> int:
    try:
        from ..agent.llm import LLMPlanner
    except ImportError as exc:
        return extra_missing(io, "agent", exc, "openai")
    goal = args.goal.strip()
    if not goal or len(goal) > MAX_GOAL:
        raise ConfigError(f"GOAL must be between 1 and {MAX_GOAL} characters")
    model = args.model.strip()
    if not model:
        raise ConfigError("--model is empty", hint="name the model, e.g. --model gpt-4.1-mini")
    url = _check_url(args.llm_url)
    key, key_source = _api_key(args.llm_key_env, os.environ)
    if key is not None:
        io.redactor.add(key)  # never printed or written, even where a server repeats it back
    io.redactor.add_url(url)
    allowed = allowed_apps(args.allow_app)
    check_out_dir(args.out)
    save = None
    if args.save_flow is not None:
        save = check_path(args.save_flow, overwrite=args.overwrite, option="--save-flow"), args.save_format
    config = dataclasses.replace(TaskRunnerConfig.from_env(), max_steps=args.max_steps)
    spec, reason = device_spec(args)
    planner = LLMPlanner.connect(
        url, model, api_key=key, timeout=args.llm_timeout, allowed_apps=allowed, max_steps=args.max_steps
    )
    driver = connect_device(spec)
    cancel = Cancel()
    try:
        run_dir = new_run_dir(args.out, "agent")
        io.out.write(
            f"goal: {goal}\n"
            f"device: {spec} = {driver.platform} {driver.device_id} via {driver.backend} ({reason})\n"
            f"model: {model} at {url} ({key_source}); allowed apps: {', '.join(allowed) or 'any'}\n"
            f"run folder: {run_dir}\n"
        )
        runner = TaskRunner(
            driver, planner, executor=agent_executor(driver, allowed), config=config, cancel=cancel
        )
        with stop_on_ctrl_c(cancel, io.err, INTERRUPT_NOTE):
            return _run(runner, planner, goal, spec, run_dir, io, save)
    finally:
        with stoppable(cancel):  # after Ctrl-C the device is asked nothing more, not even goodbye
            driver.close()


def _run(
    runner: TaskRunner,
    planner: LLMPlanner,
    goal: str,
    spec: str,
    run_dir: Path,
    io: Streams,
    save: tuple[Path, str] | None = None,
) -> int:
    driver = runner.driver
    redactor = io.redactor  # the console's: the URL's credentials, the key, and each secret step
    writer = TimelineWriter(run_dir, redactor=redactor)
    writer.start(
        RunInfo(
            flow="agent",
            goal=goal,
            device_id=driver.device_id,
            platform=driver.platform,
            backend=driver.backend,
            device_spec=spec,
            planned_steps=runner.config.max_steps,
            model={"name": planner.model, "url": planner.url},
        )
    )
    console = _Console(io, runner.config.max_steps or 0)  # an agent always has its step limit

    def retried(said: str) -> None:  # the model server failed a request and is asked again
        io.err.write(f"amc: {redactor.text(said)}\n")
        io.err.flush()
        writer.write_note("model_retry", said)

    planner.on_retry = retried

    def learn_secrets(record: StepRecord, context: TaskContext) -> None:  # before the recorder writes
        redactor.add(*secret_values(record.step.args))

    runner.listeners += [learn_secrets, TimelineRecorder(writer, driver, on_written=console.step)]
    with run_logging(redactor, run_dir / LOG_FILE, io):
        result = runner.run(goal)
        extra = {"summary": planner.summary, "model": planner.model, "model_requests": planner.requests}
        status = result.status.value
        writer.finish(
            status, duration=result.duration, error=result.error, error_kind=result.error_kind, extra=extra
        )
    report = render_report(run_dir, redactor=redactor)
    counts = ", ".join(f"{console.counts.get(k, 0)} {k}" for k in ("passed", "failed", "skipped"))
    verdict = "succeeded" if result.succeeded else status.upper()
    text = f"agent {verdict}: {len(result.steps)} steps ({counts}), {planner.requests} model requests "
    text += f"in {result.duration:.2f} s\n"
    if planner.summary:
        text += f"  summary: {one_line(planner.summary)}\n"
    if result.error:
        text += f"  error: {result.error_kind}: {indented(result.error, '    ')}\n"
    text += f"  timeline: {run_dir / TIMELINE_FILE}\n  report:   {report}\n"
    io.out.write(text)
    if save is not None and not _save(result, goal, save, io):
        return EXIT_FAILED
    return exit_code(result.status)


def _save(result: TaskResult, goal: str, save: tuple[Path, str], io: Streams) -> bool:
    """Save the run as a flow (only a run that succeeded: a failed one is no test to keep); False
    when a run that succeeded could not be saved (said on stderr)."""
    path, format = save
    if not result.succeeded:
        io.out.write(f"  flow not saved: the agent did not succeed ({path} left as it was)\n")
        return True
    try:
        return _write(result, goal, path, format, io)
    except ConfigError as exc:
        io.err.write(f"amc: error: the flow was not saved: {exc}\n")
        return False


def _write(result: TaskResult, goal: str, path: Path, format: str, io: Streams) -> bool:
    flow = flow_from_run(
        result.steps,
        result.context.first,
        name=_flow_name(goal),
        platform=result.context.first.scene.platform if result.context.first is not None else "android",
        header=(f"Saved by `amc agent --save-flow` from a run that reached the goal: {goal}",),
    )
    save_flow(flow, path, format)
    needs = " ".join(f"--env {name}=..." for name in flow.needs())
    replay = f"amc run {path}{' ' + needs if needs else ''}" if format == "amc" else f"maestro test {path}"
    io.out.write(f"  flow saved: {path} ({format}, {len(flow.steps)} steps); replay: {replay}\n")
    return True


def _flow_name(goal: str) -> str:
    words = re.sub(r"[^A-Za-z0-9]+", "-", goal.lower()).strip("-")
    return words[:60].rstrip("-") or "agent-run"
