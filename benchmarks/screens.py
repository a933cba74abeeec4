"""What the simulated device's pictures cost: one screenshot against one look, and a flow run with
``--screenshots always`` against the default ``failure``.

A screenshot is drawn from the screen's node tree and encoded once per screen (``sim.picture``);
this times a new screen's picture (drawn and encoded: the cache is emptied first), the same
screen's picture again (the cache), uiautomator2's JPEG form, and, as the baseline in the same run,
``SimDriver.observe()`` (the dump rendered and parsed into a Scene). Then the example flow
``settings_android.yaml`` runs through ``TaskRunner`` with a ``TimelineRecorder`` writing a run
folder, with each policy, in rounds whose order rotates (``benchmarks.common.interleaved``): wall
time, pictures and bytes written.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from amc.connect.simulated import SimDriver
from amc.flows import FlowPlanner, load_flow
from amc.runtime.recording import ScreenshotPolicy, TimelineRecorder
from amc.runtime.task import TaskRunner, TaskRunnerConfig
from amc.sim.device import SimDevice
from amc.sim.draw import encode_jpeg, picture
from amc.sim.picture import PictureCache
from amc.storage.timeline import RunInfo, TimelineWriter

from benchmarks.common import Table, interleaved

__all__ = ["run"]

FLOW = Path(__file__).resolve().parents[1] / "examples" / "flows" / "settings_android.yaml"
APPS = {"android": "com.android.settings", "ios": "com.apple.Preferences"}


def _picture_rows(rounds: int) -> list[list[object]]:
    rows: list[list[object]] = []
    for platform in ("android", "ios"):
        driver = SimDriver("android" if platform == "android" else "ios")
        driver.launch_app(APPS[platform])
        device = driver.device

        def fresh(device: SimDevice = device) -> bytes:
            device._pictures = PictureCache()  # forget the last screen: draw it again
            return device.screenshot_png()

        driver.screenshot()
        # The JPEG encoded from the screen already drawn, every time (the device keeps each encoding
        # of its last picture, so calling it again would time that cache, or not, by the order).
        drawn = picture(device.tree(), device.platform, device.window_size, device.screen_scale)
        times = interleaved(
            {
                "observe": driver.observe,
                "new": fresh,
                "cached": driver.screenshot,
                "jpeg": partial(encode_jpeg, drawn, 80),
            },
            blocks=rounds,
            warmup=0.5,
            min_time=0.05,  # a sample of one cached picture is a few µs: one interruption doubles it
        )
        look = times["observe"]
        width, height = (round(v * device.screen_scale) for v in device.window_size)
        for name, label in (
            ("observe", "observe(): the dump rendered and parsed (baseline)"),
            ("new", "screenshot of a new screen: drawn and encoded as PNG"),
            ("cached", "screenshot of the same screen again"),
            ("jpeg", "uiautomator2's JPEG (quality 80) of it"),
        ):
            took = times[name]
            by_median, by_min = took.paired(look), took.min / look.min
            rows.append(
                [
                    f"{platform} {width}x{height}",
                    label,
                    f"{took.median * 1000:.2f}",
                    f"{took.min * 1000:.2f}",
                    f"{by_median:#.3g}x",
                    f"{by_min:#.3g}x",
                ]
            )
    return rows


def _flow_once(policy: ScreenshotPolicy, out: Path) -> tuple[int, int]:
    flow = load_flow(FLOW)
    driver = SimDriver("android")
    planner = FlowPlanner(flow, "android")
    folder = Path(tempfile.mkdtemp(dir=out))
    writer = TimelineWriter(folder)
    writer.start(RunInfo(flow.name, "bench", driver.device_id, "android", driver.backend))
    recorder = TimelineRecorder(writer, driver, screenshots=policy)
    config = TaskRunnerConfig(max_steps=planner.total)
    result = TaskRunner(driver, planner, config=config, listeners=[recorder]).run("bench")
    writer.finish(result.status.value)
    pictures = [p for p in folder.iterdir() if p.suffix == ".png"]
    size = sum(p.stat().st_size for p in folder.iterdir())
    shutil.rmtree(folder)
    return len(pictures), size


def _flow_rows(rounds: int) -> list[list[object]]:
    memory = Path("/dev/shm")  # tmpfs: a shared disk's fsyncs would drown the pictures' cost
    out = Path(tempfile.mkdtemp(prefix="amc-bench-screens-", dir=memory if memory.is_dir() else None))
    try:
        kept: dict[str, tuple[int, int]] = {}

        def runner(policy: ScreenshotPolicy) -> Callable[[], object]:
            def go() -> object:
                kept[policy] = _flow_once(policy, out)
                return None

            return go

        policies: tuple[ScreenshotPolicy, ...] = ("failure", "always")
        times = interleaved({p: runner(p) for p in policies}, blocks=rounds, warmup=1.0)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    baseline = times["failure"]
    rows: list[list[object]] = []
    for policy in ("failure", "always"):
        pictures, size = kept[policy]
        ms = times[policy].median * 1000
        rows.append(
            [
                f"--screenshots {policy}",
                f"{ms:.0f}",
                f"{ms / 16:.1f}",
                f"{times[policy].paired(baseline):#.3g}x",
                pictures,
                f"{size // 1024:,}",
            ]
        )
    return rows


def run(rounds: int = 30, flow_rounds: int = 15) -> list[Table]:
    return [
        Table(
            "A screenshot of the simulated device against one look (benchmarks/screens.py)",
            ["screen (pixels)", "call", "median ms", "min ms", "vs observe() (paired)", "vs observe() (min)"],
            _picture_rows(rounds),
            [
                f"{rounds} rounds after 0.5 s of warm-up, the order of the four calls rotating from round "
                "to round, each sample at least 50 ms of calls, the allocator trimmed before each; "
                "`paired`: the median over rounds of the call's sample over observe()'s in the same round; "
                "Settings' first screen; `new` empties the picture cache "
                "first; the JPEG is encoded from the screen already drawn.",
            ],
        ),
        Table(
            "The 16-step Settings flow with each screenshot policy (benchmarks/screens.py)",
            ["policy", "run ms", "ms per step", "vs failure (paired)", "pictures", "run folder KiB"],
            _flow_rows(flow_rounds),
            [
                f"{flow_rounds} rounds after 1 s of warm-up, the order of the two rotating from round to "
                "round; `TaskRunner` "
                "with a `TimelineRecorder` writing each run folder (fsynced) to tmpfs (/dev/shm); the "
                "flow's own `screenshot:` step keeps its picture "
                "under both policies.",
            ],
        ),
    ]
