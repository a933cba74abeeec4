"""What every benchmark shares: the machine line, medians, Markdown tables, RSS, and device latency.

Rules kept by every benchmark here: candidates that are compared run in the same process, in the
same run, interleaved round by round (these machines are noisy), and the median of the rounds is
reported; nothing here asserts on time.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from amc.core.models import Scene
from amc.drivers.simulated import SimDriver
from amc.sim.faults import Fault, FaultInjector
from amc.sim.scene import to_scene

__all__ = [
    "LIBRARIES",
    "RouteLatency",
    "SceneSimDriver",
    "Table",
    "interleaved",
    "machine",
    "median",
    "rss_kib",
    "warm_up",
]

LIBRARIES: tuple[str, ...] = (
    "facebook-wda",
    "uiautomator2",
    "adbutils",
    "Appium-Python-Client",
    "selenium",
    "urllib3",
    "requests",
    "lxml",
    "PyYAML",
)


def machine() -> str:
    """One line: CPUs, CPU model, OS, Python and the versions of the client libraries."""
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return (
        f"nproc {os.cpu_count()}, {cpu}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; " + ", ".join(versions)
    )


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def warm_up(seconds: float = 0.5) -> None:
    """Spin the CPU for a moment so the first measurement does not pay for a clock ramp-up."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(10_000))


def interleaved(candidates: Mapping[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Run each candidate once per round, in turn, after a ``gc.collect()``; seconds per run."""
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, run in candidates.items():
            gc.collect()
            started = time.perf_counter()
            kept = run()
            times[name].append(time.perf_counter() - started)
            del kept
    return times


def rss_kib() -> int:
    """Resident memory of this process (VmRSS from /proc/self/status), in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


@dataclass
class Table:
    """A Markdown table with a title and notes under it."""

    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[object]]
    notes: Sequence[str] = ()

    def render(self) -> str:
        def cell(value: object) -> str:
            return str(value).replace("|", "\\|")

        align = ["---" if n == 0 else "---:" for n in range(len(self.headers))]
        lines = [f"### {self.title}", "", "| " + " | ".join(self.headers) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in self.rows]
        if self.notes:
            lines.append("")
            lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines) + "\n"


class RouteLatency(FaultInjector):
    """A ``FaultInjector`` that adds ``seconds`` only to requests whose route starts with one of
    ``prefixes``: on the adb face, the requests that reach the phone (``rpc:``, ``adb:shell``,
    ``adb:sync``), not the adb server's own host requests and stream set-ups, which a real adb
    server answers on the computer."""

    def __init__(self, seconds: float, prefixes: tuple[str, ...]) -> None:
        super().__init__()
        if seconds < 0:
            raise ValueError("latency must be >= 0")
        self.route_latency = seconds
        self.prefixes = prefixes

    def on_request(self, route: str) -> Fault:
        fault = super().on_request(route)
        if self.route_latency and route.startswith(self.prefixes):
            time.sleep(self.route_latency)
        return fault


class SceneSimDriver(SimDriver):
    """The simulated phone handing over a ready-made Scene, built straight from its node tree (no
    source text, no parse): what the harness costs without the parse, and a light Scene (about
    19 KiB instead of 120-140 KiB with every raw attribute and the source) for long load runs."""

    backend = "sim-scene"

    def observe(self) -> Scene:
        started = time.perf_counter()
        self._call()
        dev = self.device
        with dev._lock:
            tree = dev.tree()
            foreground = dev.foreground()
            activity = dev.foreground_activity() if dev.platform == "android" else None
        return to_scene(
            tree,
            device_id=dev.device_id,
            platform=dev.platform,
            foreground_app=foreground,
            activity=activity,
            window_size=dev.window_size,
            backend=self.backend,
            started=started,
        )
