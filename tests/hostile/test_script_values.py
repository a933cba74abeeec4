"""Every error a script or its values can raise is a typed ``ScriptError`` (issue 40, item 5).

An ``output`` value the harness cannot read back (an object nested 200,000 deep, which
``JSON.stringify`` itself cannot walk; one over the size cap; a getter that throws) used to end
the flow with the engine's own ``JavaScriptError`` and its traceback, ``optional: true`` ignored.
Now the step that made it fails with a ``ScriptError`` naming the key, ``optional`` makes that a
warning, and the flow goes on with the rest of ``output``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.core.errors import ScriptError
from amc.flows.js import ScriptContext
from amc.storage.timeline import read_timeline

from tests.flows.helpers import amc, write_flow

pytestmark = pytest.mark.timeout(120)

DEEP = (
    "(() => { let o = {}; for (let i = 0; i < 200000; i++) { const p = {}; p.a = o; o = p } "
    "output.deep = o })()"
)
UNREADABLE = {
    "nested 200,000 deep": DEEP,
    "nested past the harness's depth": (
        "(() => { let o = 1; for (let i = 0; i < 100; i++) o = [o]; output.deep = o })()"
    ),
    "a getter that throws": (
        "Object.defineProperty(output, 'deep', {get() { throw new Error('no') }, enumerable: true})"
    ),
    "over the size cap": "(output.deep = 'x'.repeat(5 * 1024 * 1024), 1)",
}


@pytest.mark.parametrize("name", sorted(UNREADABLE))
def test_an_output_value_that_cannot_be_read_back_is_a_script_error_and_the_context_goes_on(
    name: str,
) -> None:
    with ScriptContext(platform="android") as js:
        js.evaluate("output.kept = 'yes'", with_output=True)
        with pytest.raises(ScriptError, match=r"output\.deep cannot be read back") as info:
            js.evaluate(UNREADABLE[name], with_output=True)
        assert type(info.value) is ScriptError
        after = js.evaluate("output.more = 2", with_output=True)  # known unreadable: not again
        assert after.output == {"kept": "yes", "more": 2}
        assert js.output() == {"kept": "yes", "more": 2}


def test_a_deep_output_on_an_optional_step_is_a_warning_and_the_flow_goes_on(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path,
        f"""
        appId: com.example.amc.demo
        ---
        - launchApp
        - evalScript:
            script: ${{{DEEP}}}
            optional: true
        - evalScript: ${{output.after = 'ran'}}
        """,
    )
    result = amc("run", flow, "--device", "sim:android", "--out", tmp_path / "runs")
    assert result.code == 0, result.out + result.err
    assert "Traceback" not in result.err and "JavaScriptError" not in result.out + result.err
    assert (
        "output.deep cannot be read back by the harness (RangeError: Maximum call stack size exceeded)"
        in (result.out)
    )
    (run_dir,) = (tmp_path / "runs").iterdir()
    steps = read_timeline(run_dir).steps
    assert [s["status"] for s in steps] == ["passed", "warning", "passed"]
    assert steps[1]["result"]["error_kind"] == "ScriptError"


def test_the_same_step_without_optional_fails_the_flow_with_a_script_error(tmp_path: Path) -> None:
    flow = write_flow(
        tmp_path, f"appId: com.example.amc.demo\n---\n- launchApp\n- evalScript: ${{{DEEP}}}\n- back\n"
    )
    result = amc("run", flow, "--device", "sim:android", "--out", tmp_path / "runs")
    assert result.code == 1, result.out + result.err
    assert "Traceback" not in result.err
    assert "first failure: step 2 script at" in result.out and "ScriptError: " in result.out
