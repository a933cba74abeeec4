"""What a run runs, and where, checked before anything runs (:func:`plan_run`, :func:`plan_jobs`).

Every flow file and every flow it runs, the tags, where the run will write, the device options,
then (once the devices are connected) that each flow can run on them: its ``platform:``, an app
for the device's platform, what the backend can do. Every problem is collected and raised at once
(``FlowValidationError``: exit 2); nothing outside what was named is read, nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import ConfigError, FlowError
from ...core.models import Platform
from ...drivers import connect as connect_module
from ...drivers.base import Driver
from ...drivers.kinds import device_kind
from ...runtime.task import TaskRunnerConfig
from ..capabilities import platform_problems
from ..model import Flow, FlowValidationError
from ..planner import FlowPlanner
from .schedule import Device, Job
from .selection import (
    Candidate,
    check_output_file,
    check_output_folder,
    collect,
    run_order,
    select_flows,
    workspace_notes,
    workspace_required,
    workspace_tags,
)

__all__ = ["RunPlan", "connect_all", "output_folder", "plan_jobs", "plan_run", "sim_ids"]


@dataclass(frozen=True)
class RunPlan:
    """The flows a run runs, in order, with the files they came from; for each flow of a
    workspace's ``executionOrder`` (by its position) that workspace's config and whether the rest
    of it stops at its first failure; the flows the tags left out; the workspaces' notes; where the
    run folders and the JUnit file go; the loop's settings."""

    flows: tuple[Flow, ...]
    candidates: tuple[Candidate, ...]
    sequence: Mapping[int, tuple[str, bool]]
    left_out: tuple[str, ...]
    found: int
    notes: tuple[FlowError, ...]
    out: Path
    junit: Path | None
    config: TaskRunnerConfig

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values the flows mark secret (hidden in every line and file of the run)."""
        return tuple(secret for flow in self.flows for secret in flow.secrets)


def output_folder(given: str | None, candidates: Sequence[Candidate]) -> tuple[str, str]:
    """Where run folders go, and the option that said so: ``--out``, else the first workspace's
    ``testOutputDir`` (relative to its folder, as Maestro takes it), else ``runs``."""
    if given is not None:
        return given, "--out"
    for candidate in candidates:
        if candidate.workspace is not None and candidate.workspace.output_dir is not None:
            return candidate.workspace.output_dir, f"testOutputDir of {candidate.workspace.config}"
    return "runs", "--out"


def plan_run(
    paths: Sequence[str],
    *,
    environ: Mapping[str, str],
    params: Mapping[str, str],
    include: frozenset[str] = frozenset(),
    exclude: frozenset[str] = frozenset(),
    out: str | None = None,
    junit: str | None = None,
    devices: Sequence[str] = (),
    each_device: bool = False,
    sim_latency: float = 0.0,
    config: TaskRunnerConfig | None = None,
    workspace_config: str | None = None,
) -> RunPlan:
    """Read and check what ``paths`` name (flow files, folders, workspaces) and choose the flows:
    ``params`` are the variables given for the run (``--env``; in ``environ`` too, which they win
    over), ``include`` / ``exclude`` the tags (a workspace's are added). ``config`` None: the loop's
    settings from the environment (a bad ``AMC_*`` value stops here, before any device is asked);
    ``workspace_config``: the config file a folder is read with (``amc test --config``)."""
    candidates = collect(paths, config=workspace_config)
    out_dir = check_output_folder(*output_folder(out, candidates))
    junit_file = check_output_file(junit, "--junit")
    if each_device and len(devices) < 2:
        raise ConfigError(
            "--each-device needs several --device options", hint="e.g. --device sim:android --device sim:ios"
        )
    if sim_latency and devices and not all(s.strip().startswith("sim:") for s in devices):
        raise ConfigError("--sim-latency only applies to the simulated device (sim:android, sim:ios)")
    space_include, space_exclude = workspace_tags(candidates)
    selection = select_flows(
        candidates,
        {**environ, **params},
        include | space_include,
        exclude | space_exclude,
        params=params,
        require=workspace_required(candidates),
    )
    order = run_order(selection.flows, selection.candidates)
    flows = tuple(selection.flows[i] for i in order.positions)
    where = {i: n for n, i in enumerate(order.positions)}
    sequence = {
        where[i]: (config_file, i in order.stop_on_failure) for i, config_file in order.sequence.items()
    }
    settings = config if config is not None else TaskRunnerConfig.from_env()
    if not flows:
        raise ConfigError(
            f"no flow left to run: the tags leave out all {selection.found}",
            hint="check --include-tags / --exclude-tags against the flows' `tags:`",
        )
    return RunPlan(
        flows,
        tuple(selection.candidates[i] for i in order.positions),
        sequence,
        selection.left_out,
        selection.found,
        tuple(workspace_notes(candidates)),
        out_dir,
        junit_file,
        settings,
    )


def sim_ids(specs: Sequence[str]) -> list[str | None]:
    """The id each simulated device given no ``id=`` takes when its default one is already
    another's (None: its default, or not a simulated device): the next emulator serial
    (``emulator-5556`` after ``emulator-5554``, as adb numbers emulators), else ``ID-2``, ``ID-3`` …"""
    from ...sim.device import DEFAULT_IDS

    targets = []
    for spec in specs:
        scheme, target = connect_module.parse_spec(spec)
        targets.append(connect_module.parse_sim_target(scheme, target) if scheme.startswith("sim") else None)
    taken = {t.device_id for t in targets if t is not None and t.device_id is not None}
    out: list[str | None] = []
    for t in targets:
        if t is None or t.device_id is not None:
            out.append(None)
            continue
        default = DEFAULT_IDS[t.platform]
        wanted, n = default, 1
        while wanted in taken:
            n += 1
            stem, _, port = default.rpartition("-")
            wanted = f"{stem}-{int(port) + 2 * (n - 1)}" if stem == "emulator" else f"{default}-{n}"
        taken.add(wanted)
        out.append(None if wanted == default else wanted)
    return out


def connect_all(
    specs: Sequence[str], connect: Callable[[str, str | None], Driver], reason: str = "as given with --device"
) -> list[Device]:
    """Every device spec connected with ``connect(spec, sim_id)``, in order; a spec given twice is
    two devices, the second named ``SPEC #2`` in the console, run folders and JUnit. Simulated
    devices given no ``id=`` take distinct ids (``emulator-5554``, ``emulator-5556`` …), as two
    phones do. When one fails, those connected before it are closed."""
    labels: list[str] = []
    for spec in (s.strip() for s in specs):
        seen = sum(label.split(" #")[0] == spec for label in labels)
        labels.append(spec if not seen else f"{spec} #{seen + 1}")
    ids = sim_ids([s.strip() for s in specs])
    devices: list[Device] = []
    try:
        for spec, label, sim_id in zip(specs, labels, ids, strict=True):
            devices.append(Device(label, reason, connect(spec.strip(), sim_id)))
    except BaseException:
        for device in devices:
            device.driver.close()
        raise
    return devices


def plan_jobs(
    plan: RunPlan,
    devices: Sequence[Device],
    *,
    force: bool = False,
    sim_platform: Platform | None = None,
    each_device: bool = False,
) -> tuple[list[Job], list[tuple[Flow, str]]]:
    """The jobs, and the folder flows no device can run (with why). A named flow that no device
    can run, or whose steps name no app for its device's platform, is a problem (exit 2); no job
    at all is a ``ConfigError``."""
    jobs: list[Job] = []
    unrunnable: list[tuple[Flow, str]] = []
    problems: list[FlowError] = []
    targets_given = [(d.driver.platform, d.driver.backend, device_kind(d.driver)) for d in devices]
    platforms = [platform for platform, _backend, _kind in targets_given]
    backends = {platform: {(b, k) for p, b, k in targets_given if p == platform} for platform in platforms}
    for n, (flow, candidate) in enumerate(zip(plan.flows, plan.candidates, strict=True)):
        wanted = None if force else flow.platform
        if not platforms:  # a fresh simulated device per flow
            platform = sim_platform or flow.default_platform
            if wanted is not None and sim_platform is not None and wanted != sim_platform:
                why = f"the flow says platform: {wanted}, --platform asks for {sim_platform}"
                if candidate.named:
                    problems.append(
                        FlowError(why, file=flow.path, hint="drop --platform, or pass --force-platform")
                    )
                else:
                    unrunnable.append((flow, why))
                continue
            targets = {platform}
            job_platform: Platform | None = "ios" if platform == "ios" else "android"
        else:
            targets = {p for p in platforms if wanted is None or p == wanted}
            job_platform = wanted
            if not targets:
                why = (
                    f"the flow says platform: {wanted}, the device(s) are {', '.join(sorted(set(platforms)))}"
                )
                if candidate.named:
                    problems.append(
                        FlowError(
                            why, file=flow.path, hint="pass a device of that platform, or --force-platform"
                        )
                    )
                else:
                    unrunnable.append((flow, why))
                if not each_device:
                    continue
        for platform in sorted(targets):
            try:
                FlowPlanner(flow, "ios" if platform == "ios" else "android")
            except FlowError as exc:
                problems.append(exc)
            default = "simulator" if platform == "ios" else "device"  # a fresh sim:ios plays a Simulator
            for backend, kind in sorted(backends.get(platform) or {("sim", default)}):
                problems.extend(platform_problems(flow, platform, backend, kind)[0])
        sequence, stop = plan.sequence.get(n, (None, False))
        if each_device:
            jobs.extend(Job(flow, job_platform, i, sequence, stop) for i in range(len(devices)))
        elif targets:
            jobs.append(Job(flow, job_platform, None, sequence, stop))
    if problems:
        raise FlowValidationError(tuple({str(p): p for p in problems}.values()))
    if not jobs:
        raise ConfigError(
            "no flow can run on the device(s): " + "; ".join(f"{f.name}: {why}" for f, why in unrunnable),
            hint="pass a device of the flows' platform, or --force-platform",
        )
    return jobs, unrunnable
