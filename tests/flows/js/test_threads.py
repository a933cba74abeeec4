"""A context may be called from any thread, one call at a time; contexts in parallel share nothing."""

from __future__ import annotations

import gc
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from amc.flows.js import ScriptContext


def _engine_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name.startswith("amc-js-")}


def test_one_context_called_from_several_threads_keeps_one_output() -> None:
    with ScriptContext(platform="android") as js:
        js.evaluate("output.count = 0")
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _: js.evaluate("output.count = output.count + 1"), range(200)))
        assert js.evaluate("output.count").value == 200


def test_contexts_in_parallel_threads_share_nothing() -> None:
    def flow(n: int) -> list[object]:
        with ScriptContext(platform="ios") as js:
            js.run_script(f"output.mine = {n}; output.seen = typeof other", filename=f"flow{n}.js")
            for _ in range(20):
                js.evaluate("output.mine += 0; other = 1")
            return [js.evaluate("output.mine").value, js.output()["seen"]]

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(flow, range(8))) == [[n, "undefined"] for n in range(8)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # the engine is our child, reaped when it ends: then there is no such process
    except ProcessLookupError:
        return False
    return True


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.02)
    return not _alive(pid)


def test_the_context_engine_starts_on_first_use_and_ends_on_close() -> None:
    js = ScriptContext(platform="android")
    assert js.engine_pid is None
    js.evaluate("1")
    pid = js.engine_pid
    assert pid is not None and pid != os.getpid()
    js.close()
    assert _gone(pid)
    with pytest.raises(RuntimeError, match="closed"):
        js.evaluate("1")


def test_a_context_nobody_closed_ends_its_engine_when_collected() -> None:
    js = ScriptContext(platform="android")
    js.evaluate("output.x = 1")
    pid = js.engine_pid
    assert pid is not None
    del js
    gc.collect()
    assert _gone(pid)


def test_the_in_process_engine_thread_starts_on_first_use_and_stops_on_close() -> None:
    before = _engine_threads()
    js = ScriptContext(platform="android", isolation="thread")
    assert _engine_threads() - before == set()
    js.evaluate("1")
    (started,) = _engine_threads() - before
    js.close()
    started.join(5)
    assert not started.is_alive()
