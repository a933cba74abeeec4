"""A runaway script fails its evaluation within its limits, and the context (and the process) go on."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest
from amc.core.errors import ScriptError, ScriptMemoryExceeded, ScriptTimeout
from amc.flows.js import HttpRequest, HttpResponse, ScriptContext, ScriptLimits

from .conftest import Backend


def test_an_endless_loop_is_stopped_and_the_next_evaluation_works(tight: ScriptContext) -> None:
    tight.evaluate("output.kept = 'yes'")
    with pytest.raises(ScriptTimeout) as info:
        tight.run_script("console.log('started'); while (true) {}", filename="spin.js")
    assert info.value.limit == 0.3
    assert str(info.value).startswith("spin.js: the script ran past its time limit of 0.3 s and was stopped")
    assert info.value.logs == ("started",)
    assert tight.evaluate("output.kept").text == "yes"


def test_a_script_cannot_catch_its_own_time_limit(tight: ScriptContext) -> None:
    with pytest.raises(ScriptTimeout):
        tight.evaluate("try { while (true) {} } catch (e) { 'caught' }")
    with pytest.raises(ScriptTimeout):
        tight.evaluate("for (;;) { try { while (true) {} } finally { continue } }")
    assert tight.evaluate("1 + 1").value == 2


def test_a_huge_allocation_fails_and_the_next_evaluation_works(tight: ScriptContext) -> None:
    tight.evaluate("output.kept = [1, 2]")
    with pytest.raises(ScriptMemoryExceeded) as info:
        tight.evaluate("const a = []; while (true) a.push('x'.repeat(1e6) + a.length)")
    assert info.value.limit == 16 * 1024 * 1024
    assert "ran out of its 16 MiB of memory" in str(info.value)
    with pytest.raises(ScriptMemoryExceeded):
        tight.evaluate("new ArrayBuffer(1e9)")
    assert tight.evaluate("output.kept.length").value == 2


def test_deep_recursion_is_a_range_error(tight: ScriptContext) -> None:
    with pytest.raises(ScriptError) as info:
        tight.evaluate("(function f(n) { return f(n + 1) + 1 })(0)")
    assert info.value.js_name == "RangeError"
    assert tight.evaluate("'fine'").text == "fine"


def test_the_memory_limit_holds_the_process_to_its_size() -> None:
    """In a child whose address space is capped at 1 GiB more than it has, a script allocating
    without end fails with ScriptMemoryExceeded at the engine's own heap limit, and the context goes
    on: the allocation happens in the engine's process (issue 40), whose own address-space cap is
    only a backstop (hitting it would give the context up, and the next evaluation would fail)."""
    child = textwrap.dedent(
        """
        import resource
        from amc.core.errors import ScriptMemoryExceeded
        from amc.flows.js import ScriptContext, ScriptLimits

        with ScriptContext(platform="android", limits=ScriptLimits(time_limit=60)) as js:
            js.evaluate("1")
            size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size + 2**30, size + 2**30))
            try:
                js.evaluate("const a = []; while (true) a.push('x'.repeat(1e6) + a.length)")
            except ScriptMemoryExceeded as error:
                print("stopped:", error.limit)
            print("after:", js.evaluate("output.x = 1; output.x").value)
        """
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"stopped: {64 * 1024 * 1024}", "after: 1"]


def test_a_stuck_host_call_gives_the_context_up_without_waiting_for_it() -> None:
    """An HTTP handler that ignores its timeout holds the engine where it cannot interrupt: the
    caller gets ScriptTimeout after the limit and the grace, and the context refuses further work."""
    release = threading.Event()

    def stuck(request: HttpRequest) -> HttpResponse:
        release.wait(10)
        return HttpResponse(200, "late")

    limits = ScriptLimits(time_limit=0.2, grace=0.3)
    with ScriptContext(platform="android", http=Backend(stuck), limits=limits) as js:
        try:
            with pytest.raises(ScriptTimeout, match="did not stop"):
                js.run_script("http.get('http://127.0.0.1:9/slow')", filename="slow.js")
            with pytest.raises(ScriptError, match="given up"):
                js.evaluate("1")
        finally:
            release.set()


def test_a_source_over_its_size_is_refused_before_it_runs() -> None:
    with ScriptContext(platform="android", limits=ScriptLimits(max_source=100)) as js:
        with pytest.raises(ScriptError, match="over the limit of 100"):
            js.run_script("output.ran = true;" + " " * 100, filename="big.js")
        assert js.output() == {}


def test_console_output_is_bounded() -> None:
    with ScriptContext(platform="android", limits=ScriptLimits(max_log_lines=3, max_log_line=10)) as js:
        result = js.evaluate("for (let i = 0; i < 10; i++) console.log('line ' + i + ' of many words')")
    assert result.logs == ("line 0 of …", "line 1 of …", "line 2 of …", "(7 more console lines dropped)")


@pytest.mark.parametrize(
    "change",
    [
        {"time_limit": 0},
        {"time_limit": float("inf")},
        {"grace": -1},
        {"memory_limit": 1024},
        {"stack_limit": 8 * 1024 * 1024},
        {"max_depth": 0},
        {"max_items": True},
        {"http_max_calls": 1.5},
    ],
)
def test_limits_that_make_no_sense_are_refused(change: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="ScriptLimits"):
        ScriptLimits(**change)  # type: ignore[arg-type]


def test_the_defaults() -> None:
    limits = ScriptLimits()
    assert (limits.time_limit, limits.memory_limit, limits.max_value_bytes, limits.http_timeout) == (
        10.0,
        64 * 1024 * 1024,
        4 * 1024 * 1024,
        10.0,
    )
