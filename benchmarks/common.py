"""What every benchmark shares: the machine line, interleaved timing, Markdown tables, RSS, latency.

Rules kept by every benchmark here (issue 17: benchmarks that do not lie):

- contenders that are compared run in the same process, in the same run, interleaved in blocks
  whose order rotates from block to block (:func:`interleaved`), so no contender always runs right
  after the same other one (a fixed order moved the parse ratios by about 25%);
- before every timed run the allocator is put back in one state (:func:`trim_allocator`:
  ``gc.collect()``, then glibc's ``malloc_trim(0)`` where the C library has it), and the run's
  result is released only after the clock stops;
- the minimum and the median of all samples are both reported (:class:`Stats`); nothing here
  asserts on time.

The parse benchmark and the device benchmarks reuse these: import them, do not copy them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import math
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from amc.connect.simulated import SimDriver
from amc.core.models import Scene
from amc.sim.faults import Fault, FaultInjector
from amc.sim.scene import to_scene

__all__ = [
    "LIBRARIES",
    "RouteLatency",
    "SceneSimDriver",
    "Stats",
    "Table",
    "interleaved",
    "machine",
    "median",
    "rotations",
    "rss_kib",
    "trim_allocator",
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


def _load_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS, Windows)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_MALLOC_TRIM = _load_malloc_trim()


def trim_allocator() -> bool:
    """Put the heap back in one state before a timed run: ``gc.collect()``, then glibc's
    ``malloc_trim(0)`` (hands free pages back to the system, so a run does not inherit the free
    lists the previous contender left). True if ``malloc_trim`` ran; elsewhere only the collection."""
    gc.collect()
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True


@dataclass(frozen=True)
class Stats:
    """The samples of one contender (seconds per call) with their minimum and median."""

    min: float
    median: float
    samples: tuple[float, ...]

    @classmethod
    def of(cls, samples: Sequence[float]) -> Stats:
        if not samples:
            raise ValueError("Stats needs at least one sample")
        values = tuple(samples)
        return cls(min(values), statistics.median(values), values)

    def ratio(self, baseline: Stats) -> tuple[float, float]:
        """(minimum over the baseline's minimum, median over the baseline's median)."""
        return self.min / baseline.min, self.median / baseline.median

    def paired(self, baseline: Stats) -> float:
        """The median over blocks of this sample over the baseline's sample of the same block
        (:func:`interleaved` with ``per_block=1`` keeps them in block order): a machine that slows
        down for a while slows both sides of a pair, so the ratio keeps still where the medians
        of the two do not."""
        if len(self.samples) != len(baseline.samples):
            raise ValueError("paired ratios need one sample per block on both sides")
        return statistics.median(a / b for a, b in zip(self.samples, baseline.samples, strict=True))


def rotations(names: Sequence[str], blocks: int) -> list[tuple[str, ...]]:
    """The order of the contenders in each block: block ``b`` starts at contender ``b mod n`` and odd
    rotations of two or more run backwards too, so every contender runs before and after every
    other one. ``rotations("ABC", 3)`` is ``[ABC, BCA, CAB]``; ``rotations("AB", 2)`` ``[AB, BA]``."""
    n = len(names)
    if n == 0:
        return [() for _ in range(blocks)]
    out: list[tuple[str, ...]] = []
    for b in range(blocks):
        shift = b % n
        order = tuple(names[shift:]) + tuple(names[:shift])
        if (b // n) % 2 == 1:
            order = order[::-1]
        out.append(order)
    return out


def interleaved(
    contenders: Mapping[str, Callable[[], object]],
    *,
    blocks: int,
    per_block: int = 1,
    warmup: float = 0.0,
    number: int = 1,
    min_time: float = 0.0,
) -> dict[str, Stats]:
    """Time every contender in ``blocks`` blocks, the order rotating between blocks (:func:`rotations`).

    In a block each contender runs ``per_block`` timed samples in a row; a sample is ``number``
    calls timed together with ``perf_counter_ns`` (seconds per call), taken after
    :func:`trim_allocator`, and whatever the last call returned is released only after the clock
    stops. ``warmup`` seconds of untimed calls (every contender at least once, in turn) come first.
    With ``min_time`` each contender makes as many calls per sample (at least ``number``) as its
    warm-up call says fill ``min_time`` seconds, so a fast contender's sample is not a handful of
    microseconds that one interruption doubles. Each contender gets ``blocks * per_block`` samples."""
    if blocks < 1 or per_block < 1 or number < 1 or min_time < 0:
        raise ValueError("blocks, per_block and number must be >= 1, min_time >= 0")
    names = list(contenders)
    calls = dict.fromkeys(names, number)
    deadline = time.perf_counter() + warmup
    while True:
        for name in names:
            started = time.perf_counter_ns()
            contenders[name]()
            took = (time.perf_counter_ns() - started) / 1e9
            if min_time and took > 0:
                calls[name] = max(calls[name], math.ceil(min_time / took))
        if time.perf_counter() >= deadline:
            break
    samples: dict[str, list[float]] = {name: [] for name in names}
    for order in rotations(names, blocks):
        for name in order:
            run, repeat = contenders[name], calls[name]
            for _ in range(per_block):
                trim_allocator()
                kept: object = None
                started = time.perf_counter_ns()
                for _ in range(repeat):
                    kept = run()
                took = time.perf_counter_ns() - started
                del kept
                samples[name].append(took / repeat / 1e9)
    return {name: Stats.of(values) for name, values in samples.items()}


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


def keep_off_real_adb() -> None:
    """Point adb at nothing (and adbutils at no daemon to start) unless the shell says otherwise:
    the benchmarks drive simulated devices only. Called by each script's ``main()``, never on import,
    so importing a benchmark (as the tests do) leaves the environment alone."""
    os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")
    os.environ.setdefault("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    os.environ.setdefault("ANDROID_ADB_SERVER_PORT", "1")
