"""The benchmarks' own tools: interleaved timing in rotating blocks, the agreement of several runs, the
phase clock of the overhead benchmark, and the byte count of step records. Counts and accounting
only: no time is asserted (speed is the benchmarks' business)."""

from __future__ import annotations

import ctypes.util
import platform
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from benchmarks import agree, common, overhead, world


def test_rotations_put_every_contender_first_and_before_and_after_every_other() -> None:
    assert common.rotations(["a", "b", "c"], 3) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    orders = common.rotations(["a", "b"], 4)
    assert orders.count(("a", "b")) == orders.count(("b", "a")) == 2
    for order in common.rotations(["a", "b", "c"], 6):
        assert sorted(order) == ["a", "b", "c"]


def test_interleaved_runs_blocks_in_rotating_order_with_the_allocator_trimmed_before_each_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    trims: list[int] = []
    monkeypatch.setattr(common, "trim_allocator", lambda: trims.append(len(calls)) or True)

    def contender(name: str) -> Callable[[], object]:
        return lambda: calls.append(name)

    stats = common.interleaved({"a": contender("a"), "b": contender("b")}, blocks=2, per_block=3, number=2)
    warm, timed = calls[:2], calls[2:]
    assert warm == ["a", "b"]  # one untimed call each first
    assert timed == ["a"] * 6 + ["b"] * 6 + ["b"] * 6 + ["a"] * 6  # blocks of 3 samples of 2 calls
    assert len(trims) == 12 and trims[:2] == [2, 4]  # before every sample, none inside one
    assert {name: len(s.samples) for name, s in stats.items()} == {"a": 6, "b": 6}
    for s in stats.values():
        assert s.min == min(s.samples) and s.min <= s.median <= max(s.samples)
    with pytest.raises(ValueError):
        common.interleaved({"a": contender("a")}, blocks=0)


def test_stats_keep_every_sample_and_give_both_ratios() -> None:
    fast, slow = common.Stats.of([1.0, 3.0, 2.0]), common.Stats.of([4.0, 2.0, 6.0, 5.0])
    assert (fast.min, fast.median, fast.samples) == (1.0, 2.0, (1.0, 3.0, 2.0))
    assert slow.ratio(fast) == (2.0, 2.25)
    with pytest.raises(ValueError):
        common.Stats.of([])


@pytest.mark.skipif(
    platform.system() != "Linux" or not ctypes.util.find_library("c") or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's",
)
def test_a_paired_ratio_follows_each_round_where_medians_of_a_drifting_machine_do_not() -> None:
    # Rounds 2 and 3 ran on a machine twice as slow, for both sides: each pair still says 1.5x.
    base = common.Stats.of([1.0, 2.0, 2.0, 1.0, 1.0])
    call = common.Stats.of([1.5, 3.0, 3.0, 1.5, 1.5])
    assert call.paired(base) == pytest.approx(1.5)
    # A slow patch on the call's last three rounds: the medians say 3x, most pairs still 1.5x.
    drift = common.Stats.of([1.5, 1.5, 3.0, 3.0, 3.0])
    assert drift.median / base.median == 3.0 and drift.paired(base) == pytest.approx(1.5)
    with pytest.raises(ValueError):
        call.paired(common.Stats.of([1.0]))
    from benchmarks import parse as parse_bench

    a = parse_bench.Timing(1.0, 2.0, (1.5, 3.0, 1.5))
    b = parse_bench.Timing(1.0, 1.5, (1.0, 2.0, 1.0))
    assert parse_bench.paired(a, b) == pytest.approx(1.5)


def test_trim_allocator_calls_malloc_trim_on_glibc() -> None:
    assert common.trim_allocator() is True


PARSING = """### Parsing

| input | bytes | Scene (ms) | attribute dicts only | ratio |
|---|---:|---:|---:|---:|
| a.xml | 1,000 | 0.5 | 0.1 (1.50x) | **{ratio}** |
| b \\| c.xml | 2,000 | 0.9 | n/a | **2.00** |
{extra}"""

DEVICES = """### Several devices

| backend | devices | steps/s | speedup vs 1 device |
|---|---:|---:|---:|
| adb | 1 | 10 | **1.00x** |
| adb | 8 | 70 | **{speedup}x** |
| wda | 1 | 10 | **1.00x** |
"""


def _run(ratio: str, speedup: str, extra: str = "", *, devices_first: bool = False) -> str:
    parts = [PARSING.format(ratio=ratio, extra=extra), DEVICES.format(speedup=speedup)]
    return "Machine: box\n\n" + "\n".join(parts[::-1] if devices_first else parts)


def test_agreement_matches_tables_rows_and_columns_by_name_and_flags_a_spread_over_ten_percent() -> None:
    runs = [
        _run("2.00", "7.00"),
        _run("2.10", "7.70", extra="| new.xml | 5 | 1 | n/a | **3.00** |\n"),
        _run("2.05", "7.10"),
    ]
    cells = {(c.title, c.row, c.column): c for c in agree.agreement(runs)}
    ratio = cells[("Parsing", "a.xml", "ratio")]
    assert ratio.values == (2.0, 2.1, 2.05) and ratio.spread == pytest.approx(0.05)
    assert cells[("Parsing", "a.xml", "attribute dicts only")].values == (1.5, 1.5, 1.5)
    assert cells[("Parsing", "b | c.xml", "ratio")].spread == 0.0  # an escaped | stays in its cell
    assert cells[("Parsing", "new.xml", "ratio")].values == (None, 3.0, None)  # missing, not misread
    # "adb" names two rows: the key takes the devices column too.
    speedup = cells[("Several devices", "adb / 8", "speedup vs 1 device")]
    assert speedup.values == (7.0, 7.7, 7.1) and speedup.spread == pytest.approx(0.1)
    assert ("Parsing", "a.xml", "Scene (ms)") not in cells  # times are not ratios
    table = agree.render(list(cells.values()), 3)
    assert "| Several devices | adb / 8 | speedup vs 1 device | 7 | 7.7 | 7.1 | 10.0% | ok |" in table
    assert "1 missing in some run" in table


def test_agreement_flags_over_the_limit_and_the_command_exits_1(tmp_path: Path) -> None:
    first, second = tmp_path / "run-1.md", tmp_path / "run-2.md"
    first.write_text(_run("2.00", "7.00"), encoding="utf-8")
    # The second run prints its tables in another order: matched by title, not by position.
    second.write_text(_run("2.50", "7.00", devices_first=True), encoding="utf-8")
    cells = agree.agreement([first.read_text(encoding="utf-8"), second.read_text(encoding="utf-8")])
    over = [c for c in cells if c.over(0.10)]
    assert [(c.row, c.column) for c in over] == [("a.xml", "ratio")]
    assert agree.main([str(first), str(second)]) == 1
    assert agree.main([str(first), str(first)]) == 0


def test_the_phase_clock_charges_each_moment_to_the_innermost_open_phase(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ticks: Iterator[int] = iter([0, 10, 15, 40, 50, 60, 70, 100])
    monkeypatch.setattr(overhead.time, "perf_counter_ns", lambda: next(ticks))
    clock = overhead.PhaseClock()
    clock.start()  # 0
    with clock.phase("device: observe"), clock.phase("parse"):  # 10, 15
        pass  # parse left at 40, the observation at 50
    with clock.phase("plan"):  # 60
        pass  # 70
    clock.stop()  # 100
    assert clock.totals["loop & records"] == 10 + 10 + 30
    assert clock.totals["device: observe"] == 5 + 10
    assert clock.totals["parse"] == 25
    assert clock.totals["plan"] == 10
    assert sum(clock.totals.values()) == 100


def test_the_overhead_of_a_real_task_is_everything_but_the_devices_time(tmp_path: Path) -> None:
    driver = overhead.SourceSimDriver("android")
    phases = overhead.measure(driver, 4, tmp_path)
    assert phases["total"] == pytest.approx(sum(phases[p] for p in overhead.PHASES))
    for name in ("device: observe", "device: action", "parse", "enrich", "execute", "world hook", "timeline"):
        assert phases[name] > 0, name
    no_parse = overhead.measure(common.SceneSimDriver("android"), 4, tmp_path)
    assert no_parse["parse"] == 0
    assert len(list(tmp_path.iterdir())) == 2  # each task wrote its run timeline


def test_step_records_without_their_scene_are_counted_once_each_and_share_their_names() -> None:
    steps = 60
    result = world._task(steps, lambda record, context: None)
    assert len(result.steps) == steps and sum(r.scene is not None for r in result.steps) == 50
    first, third = result.steps[0], result.steps[2]
    assert first.page == third.page and first.page is third.page  # one copy per distinct name
    assert first.foreground_app is third.foreground_app
    assert not hasattr(first, "__dict__")  # slots: no dict per record
    parts, counted = world.record_bytes(result.steps)
    assert counted == steps - 50
    assert parts[world.PARTS[0]] == counted * sys.getsizeof(first)
    copies = counted * (sys.getsizeof(first.page) + sys.getsizeof(first.foreground_app))
    assert 0 < parts[world.PARTS[3]] < copies / 2  # the names once, not once per record
    assert parts[world.PARTS[2]] > 0 and parts[world.PARTS[4]] > 0


def test_write_replaces_only_the_results_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import run_all

    readme = tmp_path / "README.md"
    readme.write_text(f"# Benchmarks\n\nprose\n\n{run_all.START}\n\nold tables\n\n{run_all.END}\n\nafter\n")
    monkeypatch.setattr(run_all, "README", readme)
    run_all._write("Machine: box\n\n### new table\n")
    text = readme.read_text()
    section = f"{run_all.START}\n\nMachine: box\n\n### new table\n\n{run_all.END}"
    assert text == f"# Benchmarks\n\nprose\n\n{section}\n\nafter\n"
    readme.write_text("no section")
    with pytest.raises(SystemExit, match="no results section"):
        run_all._write("x")


def test_min_time_gives_a_fast_contender_more_calls_per_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(range(0, 10**12, 1_000_000))  # every reading 1 ms after the last
    monkeypatch.setattr(common.time, "perf_counter_ns", lambda: next(clock))
    monkeypatch.setattr(common.time, "perf_counter", lambda: 0.0)  # the warm-up has no deadline
    calls = {"fast": 0, "slow": 0}

    def count(name: str) -> Callable[[], object]:
        def run() -> object:
            calls[name] += 1
            if name == "slow":
                next(clock), next(clock), next(clock)  # three readings pass: a slower call
            return None

        return run

    common.interleaved({"fast": count("fast"), "slow": count("slow")}, blocks=1, min_time=0.004)
    # Warm-up: fast 1 ms per call -> 4 calls per sample; slow 4 ms -> 1 call.
    assert calls == {"fast": 1 + 4, "slow": 1 + 1}


def test_a_share_column_is_a_ratio_and_a_time_column_is_not() -> None:
    text = "### Overhead\n\n| device | µs | harness share of the step |\n|---|---:|---:|\n"
    text += "| sim | 700 | 41.2% |\n"
    (table,) = agree.read_tables(text)
    assert [table.headers[i] for i in agree.ratio_columns(table)] == ["harness share of the step"]
    (cell,) = agree.agreement([text, text.replace("41.2%", "47.0%")])
    assert cell.values == (41.2, 47.0) and cell.over(0.10)


@pytest.mark.parametrize(
    "name",
    ["uiautomator_tty_dialog_windows_utf16le_bom.xml", "wda_springboard_home.xml", "wda_clock_alarms.json"],
)
def test_the_least_scene_and_least_step_build_what_a_parse_and_a_step_hand_back(name: str) -> None:
    # parse.py's "least" contenders are a floor only if they really build a Scene around the
    # document's root and, for a step, the element the client's query found.
    from amc.core.models import Scene, UIElement
    from amc.drivers.hierarchy import decode_source, detect_format, parse_source
    from amc.semantic import SemanticScene

    from benchmarks import parse as parse_bench

    data = (Path(__file__).parents[1] / "fixtures" / "hierarchy" / name).read_bytes()
    utf8, _ = decode_source(data, 1 << 30)
    fmt = detect_format(utf8)
    parsed = parse_source(data)
    least = parse_bench._least_parse(data, fmt)()
    assert isinstance(least, Scene) and least.platform == parsed.platform
    targets = parse_bench._targets(data, fmt)
    assert [t.field for t in targets] == ["text", "id"]
    for target in targets:
        scene, found, semantic = parse_bench._least_step(data, fmt, target)()  # type: ignore[misc]
        assert isinstance(scene, Scene) and isinstance(semantic, SemanticScene)
        assert isinstance(found, UIElement)
        attribute = parse_bench._CLIENT_ATTRIBUTE[fmt][target.field]
        assert found.attributes.get(attribute) == target.value
        harness_found = parse_bench._harness_step(data, target)()[1]  # type: ignore[index]
        assert harness_found.attributes.get(attribute) == target.value


@pytest.mark.parametrize(
    "name", ["uiautomator_tty_dialog_windows_utf16le_bom.xml", "uiautomator_tty_dialog.xml"]
)
def test_the_client_reads_a_dump_lxml_refuses_and_finds_what_the_harness_finds(name: str) -> None:
    # A Windows shell's UTF-16 redirect and the trailing "dumped to" line make lxml refuse the
    # file; the client contenders pay for reading it (decode, encode, cut) on every call, and
    # that read must give the same tree the harness parses, not a shorter or a different one.
    from amc.drivers.hierarchy import decode_source, detect_format, parse_source
    from lxml import etree

    from benchmarks import parse as parse_bench

    data = (Path(__file__).parents[1] / "fixtures" / "hierarchy" / name).read_bytes()
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring(data)
    assert parse_bench._needs_reading(data)
    read = parse_bench.client_read(data)
    assert read.endswith(b"</hierarchy>") and read.startswith(b"<?xml")
    root = parse_bench._bare_parse(data)()
    assert sum(1 for _ in root.iter()) == len(parse_source(data))
    fmt = detect_format(decode_source(data, 1 << 30)[0])
    for target in parse_bench._targets(data, fmt):
        found = parse_bench._client_step(data, fmt, target)()
        attribute = parse_bench._CLIENT_ATTRIBUTE[fmt][target.field]
        assert found.get(attribute) == target.value  # type: ignore[attr-defined]
    plain = (Path(__file__).parents[1] / "fixtures" / "hierarchy" / "wda_springboard_home.xml").read_bytes()
    assert not parse_bench._needs_reading(plain)


def test_the_latency_table_compares_the_step_with_the_devices_own_time() -> None:
    # The share of a step at 100 ms latency divides absolute times; the ratio the agreement holds
    # to 10% is the step against the device's own time, both read off the same steps.
    _, latency = overhead.run(steps=2, rounds=1, latency_steps=1, latency_rounds=1)
    (table,) = agree.read_tables(latency.render())
    assert [table.headers[i] for i in agree.ratio_columns(table)] == ["vs the device's own time"]
    step, device, harness = table.rows[0], table.rows[1], table.rows[2]
    assert step[0].startswith("the step") and device[0].startswith("the device's own time")
    ratio, step_ms, device_ms = float(step[3].rstrip("x")), float(step[1]), float(device[1])
    harness_ms = float(harness[1].strip("*"))
    assert device_ms >= 200  # the step's two calls waited 100 ms each on the device
    # What the ratio says is what the rows say: the step is the device's time plus the harness's.
    assert ratio == pytest.approx(step_ms / device_ms, rel=1e-3)
    assert step_ms == pytest.approx(device_ms + harness_ms, abs=0.15)  # the printed roundings
    assert ratio == pytest.approx(1 + harness_ms / device_ms, abs=1e-3)
