"""What a Maestro flow's JavaScript costs a run, on the wired path: `amc run`'s interpreter and loop.

Two tables, every contender in this process, interleaved (:func:`benchmarks.common.interleaved`):

- **A step with JavaScript against the same step without**: a Maestro flow of ``steps`` identical
  steps run through ``TaskRunner`` with the flow interpreter (``FlowPlanner``) on the simulated
  Android phone handing over ready Scenes (:class:`~benchmarks.common.SceneSimDriver`: no page
  source to render or parse, so the harness's own work is what is left), the world model on:
  ``inputText: qa`` (the baseline), ``inputText: ${USER}`` (a variable: the command read again when
  it runs, no engine call), ``inputText: ${USER.toLowerCase()}`` (the command read again and one
  evaluation), ``evalScript: ${output.n = …}`` (a ``script`` step: one evaluation, ``output`` read
  for the world model, no device call and no look after it), ``runScript`` of a 6-line file. Time
  per step (the flow's time over its steps), and each row's paired ratio to the baseline.
- **Starting JavaScript**: a flow's first evaluation starts its context (it takes the spare engine
  process, makes the engine's runtime and the harness's globals there):
  ``ScriptContext(...).evaluate('1')`` on a fresh context against the same call on a warm one.

Run: ``python benchmarks/js_flow.py`` (``--quick`` for a smoke run); ``python -m benchmarks`` runs it
as the ``js`` suite. The engine's own costs against the other engines are ``benchmarks/js_engines.py``'s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from amc.flows import Flow, FlowPlanner, parse_flow  # noqa: E402
from amc.flows.js import ScriptContext  # noqa: E402
from amc.runtime.task import TaskRunner, TaskRunnerConfig  # noqa: E402

from benchmarks.common import SceneSimDriver, Table, interleaved  # noqa: E402

__all__ = ["run"]

APP = "com.example.amc.demo"
SCRIPT = """const n = (output.n || 0) + 1;
output.n = n;
output.user = {name: USER.toLowerCase(), id: n};
if (n < 0) {
  throw new Error('never');
}
"""
STEPS: dict[str, str] = {
    "inputText: qa": "- inputText: qa",
    "inputText: ${USER}": "- inputText: ${USER}",
    "inputText: ${USER.toLowerCase()}": "- inputText: ${USER.toLowerCase()}",
    "evalScript: ${output.n = …}": "- evalScript: ${output.n = (output.n || 0) + 1}",
    "runScript: a 6-line file": "- runScript: make.js",
}
BASELINE = "inputText: qa"


def _flow(folder: Path, step: str, steps: int) -> Flow:
    text = f"appId: {APP}\n---\n- tapOn: {{id: username}}\n" + "\n".join([step] * steps) + "\n"
    return parse_flow(text, file=str(folder / "bench.yaml"), environ={"USER": "QA"})


def _runner(flow: Flow, steps: int) -> Callable[[], object]:
    driver = SceneSimDriver("android")
    driver.launch_app(APP)
    config = TaskRunnerConfig(max_steps=steps + 1)

    def once() -> object:
        planner = FlowPlanner(flow, "android")
        result = TaskRunner(driver, planner, config=config).run("bench")
        if not result.succeeded or len(result.steps) != steps + 1:
            raise RuntimeError(f"the flow did not run: {result.status.value}: {result.error}")
        return result

    return once


def _step_table(steps: int, blocks: int) -> Table:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "make.js").write_text(SCRIPT)
        runners = {name: _runner(_flow(Path(folder), step, steps), steps) for name, step in STEPS.items()}
        stats = interleaved(runners, blocks=blocks, warmup=0.5)
    base = stats[BASELINE]
    rows = []
    for name, stat in stats.items():
        per = stat.median / (steps + 1) * 1e6
        rows.append(
            [f"`{name}`", f"{stat.min / (steps + 1) * 1e6:.0f}", f"{per:.0f}", f"{stat.paired(base):.2f}x"]
        )
    return Table(
        "Maestro steps with and without JavaScript, through the flow interpreter and the loop (µs per step)",
        ["step", "min µs", "median µs", "vs `inputText: qa` (paired)"],
        rows,
        [
            f"a flow of one `tapOn` and {steps} of the step, run {blocks} times per contender, interleaved; "
            "the simulated Android phone handing over ready Scenes (no page source), the world model on",
            "`${USER}` and `${USER.toLowerCase()}` read the command again when it runs (its values checked "
            "as any step's); only the second asks the engine",
            "`evalScript` and `runScript` are `script` steps: nothing is sent to the device and no look "
            "follows, so they may cost less than a typed text, though each runs in the engine and "
            "reads `output`",
        ],
    )


def _start_table(blocks: int) -> Table:
    warm = ScriptContext(platform="android")
    warm.evaluate("1")

    def fresh() -> object:
        with ScriptContext(platform="android") as context:
            return context.evaluate("1")

    stats = interleaved(
        {"a fresh context": fresh, "a warm context": lambda: warm.evaluate("1")}, blocks=blocks
    )
    warm.close()
    base = stats["a warm context"]
    rows = [
        [name, f"{s.min * 1e3:.2f}", f"{s.median * 1e3:.2f}", f"{s.paired(base):.1f}x"]
        for name, s in stats.items()
    ]
    return Table(
        "Starting a flow's JavaScript: the first evaluation against a later one (ms)",
        ["`evaluate('1')` on", "min ms", "median ms", "vs a warm context (paired)"],
        rows,
        [
            "a fresh context takes the spare engine process, makes the engine's runtime and the harness's "
            "globals there on its first evaluation, and ends the process when closed; a flow pays this "
            "once, at its first `${...}` (`benchmarks/js_process.py` sets it against the engine in process)",
        ],
    )


def run(*, steps: int = 50, blocks: int = 10, start_blocks: int = 30) -> list[Table]:
    return [_step_table(steps, blocks), _start_table(start_blocks)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    tables = run(steps=10, blocks=2, start_blocks=3) if args.quick else run()
    print("\n".join(t.render() for t in tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
