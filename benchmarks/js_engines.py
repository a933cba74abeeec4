"""Which embedded JavaScript engine runs Maestro's ``${...}`` and scripts: the contenders side by side.

    python benchmarks/js_engines.py [--quick] [--only KEY ...]

Prints Markdown tables (the engines are in :mod:`benchmarks.js_contenders`; a missing package is
a row saying so):

- **what each offers**, each fact tried in a child interpreter of its own (a crash is an answer):
  the modern syntax Maestro's GraalJS accepts (each feature evaluated on its own), the host globals a
  script finds (``require``, ``process``, ``std``, ``os``, ``fetch`` ...), a synchronous Python
  function called from JS, the same call while a time limit is set, and an evaluation from a
  thread other than the one that made the context;
- **start-up and memory**, one child per engine and round, the engines' order rotating between
  rounds: the import, the first context (made, the harness's bootstrap run, one ``${...}``
  evaluated), the next one, resident memory after the import and per context (20 more contexts);
- **a ``${...}`` evaluation**, in this process, interleaved (``benchmarks.common.interleaved``):
  variables in as globals, the expression evaluated, the value out as Python; rounds are added
  until no median moved 5% or more in the last one; ratios against the fastest of the same run;
  the project's own wrapper, :class:`amc.flows.js.ScriptContext` (a worker thread per context, the
  value checked and converted), is a row of its own;
- **runaway scripts**, a child each, watched from here (killed at 2 GiB resident or the table's
  deadline): an endless loop under a 1 s limit, and a script allocating without end under a 64 MiB
  limit; then whether the same context evaluates the next expression.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.common import Stats, Table, interleaved, machine, rotations, rss_kib, warm_up  # noqa: E402
from benchmarks.js_contenders import BOOTSTRAP, ENGINES, EngineSpec, evaluate, installed  # noqa: E402

__all__ = ["EXPRESSIONS", "FEATURES", "main"]

VARIABLES = {
    "USERNAME": "Alice",
    "PASSWORD": "correct horse",
    "APP_ID": "com.example.app",
    "BASE_URL": "http://127.0.0.1:8080",
    "MAESTRO_PLATFORM": "android",
    "COUNT": "3",
}
EXPRESSIONS = (
    "USERNAME.toLowerCase()",
    "output.user.email",
    "output.items.length > 2",
    "output.counter = (output.counter || 0) + 1; var r = json('{\"id\": 7}'); output.id = r.id; output.id",
)
# Each is evaluated on its own and must return true: one unsupported feature does not hide the rest.
FEATURES: tuple[tuple[str, str], ...] = (
    ("let/const", "(() => { let a = 1; const b = 2; return a + b === 3 })()"),
    ("arrow functions", "((x, y) => x + y)(1, 2) === 3"),
    ("template literals", "`a${1 + 1}b` === 'a2b'"),
    (
        "destructuring",
        "(() => { const {p, q: [r, ...s]} = {p: 1, q: [2, 3, 4]}; return p + r + s.length === 5 })()",
    ),
    ("optional chaining", "({u: null})?.u?.v === undefined"),
    ("nullish coalescing", "(null ?? 'd') === 'd'"),
    ("spread", "Math.max(...[1, 5, 3]) === 5 && ({...{k: 1}, l: 2}).k === 1"),
    ("classes", "(() => { class A { static s() { return 2 } } class B extends A {} return B.s() === 2 })()"),
    ("private fields", "(() => { class A { #x = 1; get x() { return this.#x } } return new A().x === 1 })()"),
    ("JSON", "JSON.stringify(JSON.parse('{\"a\":[1,2]}')) === '{\"a\":[1,2]}'"),
    ("logical assignment", "(() => { let x = null; x ??= 5; return x === 5 })()"),
    (
        "for-of, generators",
        "(() => { function* g() { yield 1; yield 2 } let n = 0; for (const v of g()) n += v; "
        "return n === 3 })()",
    ),
    ("regex named groups", "/(?<y>\\d{4})/.exec('in 2024').groups.y === '2024'"),
    ("ES2019-2022 built-ins", "[1, [2, [3]]].flat(2).at(-1) === 3 && 'a-b'.replaceAll('-', '') === 'ab'"),
    ("BigInt", "10n ** 3n === 1000n"),
)
HOST_GLOBALS = (
    "require", "process", "module", "std", "os", "fetch", "XMLHttpRequest", "setTimeout", "python",
    "WebAssembly", "Deno", "load", "readFile", "console",
)  # fmt: skip
LOOP = "while (true) {}"
ALLOCATE = "(function () { var a = []; while (true) a.push(new Array(100001).join('x') + a.length); })()"
MEMORY = 64 * 1024 * 1024
WATCH_RSS = 2 * 1024 * 1024  # KiB: a child over 2 GiB resident is killed
CONTEXTS = 20
STEADY = 0.05  # a round that moved no contender's median by this much ends the evaluation timing


# --- the children: one fact each, the answer as JSON on the last line -----------------------------


def _spec(key: str) -> EngineSpec:
    return next(spec for spec in ENGINES if spec.key == key)


def _error(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:80]}"


def _probe(probe: str, key: str) -> dict[str, Any]:
    spec = _spec(key)
    if probe == "startup":
        started = time.perf_counter()
        __import__(spec.module)
        imported = time.perf_counter()
        rss_import = rss_kib()
        first = spec.factory(None)
        first.eval(BOOTSTRAP)
        evaluate(first, EXPRESSIONS[0], VARIABLES)
        made = time.perf_counter()
        second = spec.factory(None)
        second.eval(BOOTSTRAP)
        evaluate(second, EXPRESSIONS[0], VARIABLES)
        again = time.perf_counter()
        before = rss_kib()
        kept = []
        for _ in range(CONTEXTS):
            ctx = spec.factory(None)
            ctx.eval(BOOTSTRAP)
            evaluate(ctx, EXPRESSIONS[0], VARIABLES)
            kept.append(ctx)
        per_context = (rss_kib() - before) / CONTEXTS
        return {
            "import": imported - started,
            "first": made - imported,
            "next": again - made,
            "rss_import": rss_import,
            "per_context": per_context,
        }
    ctx = spec.factory(MEMORY if probe in ("alloc", "loop") else None)
    if probe == "syntax":
        passed = []
        for name, code in FEATURES:
            try:
                if ctx.eval(code) is True:
                    passed.append(name)
            except Exception:  # noqa: BLE001 - any failure means the feature is not there
                pass
        return {"passed": passed}
    if probe == "globals":
        found = []
        for name in HOST_GLOBALS:
            try:
                if ctx.eval(f"typeof {name}") != "undefined":
                    found.append(name)
            except Exception as exc:  # noqa: BLE001
                found.append(f"{name}?{type(exc).__name__}")
        return {"found": found}
    if probe in ("callback", "callback-limit"):
        if probe == "callback-limit" and spec.time_limit == "none":
            return {"answer": "no time limit to set"}
        try:
            ctx.bind("twice", lambda n: n * 2)
            value = ctx.eval("twice(21)", 5.0 if probe == "callback-limit" else None)
            return {"answer": "yes" if value == 42 else f"returned {value!r}"}
        except Exception as exc:  # noqa: BLE001
            return {"answer": f"no ({_error(exc)})"}
    if probe == "thread":
        ctx.eval(BOOTSTRAP)
        answer: list[str] = []

        def other() -> None:
            try:
                answer.append("yes" if evaluate(ctx, "output.items.length", {}) == 4 else "wrong value")
            except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
                answer.append(f"no ({_error(exc)})")

        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        return {"answer": answer[0]}
    if probe in ("loop", "alloc"):
        ctx.eval(BOOTSTRAP)
        print(json.dumps({"rss": rss_kib()}), flush=True)
        started = time.perf_counter()
        try:
            ctx.eval(LOOP if probe == "loop" else ALLOCATE, 1.0 if probe == "loop" else 20.0)
            outcome = "returned"
        except BaseException as exc:  # noqa: BLE001
            outcome = _error(exc)
        took = time.perf_counter() - started
        try:
            after = "yes" if evaluate(ctx, EXPRESSIONS[0], VARIABLES) == "alice" else "wrong value"
        except BaseException as exc:  # noqa: BLE001
            after = f"no ({_error(exc)})"
        return {"outcome": outcome, "seconds": took, "next": after}
    raise ValueError(f"unknown probe {probe}")


def _child(probe: str, key: str) -> int:
    print(json.dumps(_probe(probe, key)), flush=True)
    return 0


def _watch(probe: str, key: str, deadline: float) -> dict[str, Any]:
    """Run one probe in a child; kill it over 2 GiB resident or past ``deadline`` seconds."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", probe, key]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, killed = 0, ""
    status = Path(f"/proc/{child.pid}/status")
    while child.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmRSS:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        if peak > WATCH_RSS:
            killed = f"killed at {peak // 1024} MiB resident"
        elif time.perf_counter() - started > deadline:
            killed = f"killed, still running after {deadline:.0f} s"
        if killed:
            child.kill()
            break
        time.sleep(0.02)
    out, err = child.communicate()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    result: dict[str, Any] = {"peak": peak, "killed": killed, "code": child.returncode}
    for line in lines:
        result.update(line)
    if not killed and child.returncode != 0 and "outcome" not in result:
        signal = -child.returncode if child.returncode < 0 else None
        result["crash"] = f"process died (signal {signal})" if signal else f"exit {child.returncode}"
        result["stderr"] = err.strip().splitlines()[-1:] if err.strip() else []
    return result


def _answer(result: dict[str, Any], field: str) -> str:
    if result.get("killed"):
        return str(result["killed"])
    if "crash" in result:
        return str(result["crash"])
    return str(result.get(field, "?"))


# --- the tables ----------------------------------------------------------------------------------


def _offers(specs: list[EngineSpec]) -> Table:
    rows = []
    for spec in specs:
        syntax = _watch("syntax", spec.key, 60)
        missing = [name for name, _ in FEATURES if name not in syntax.get("passed", [])]
        found = _watch("globals", spec.key, 60)
        rows.append(
            [
                spec.key,
                spec.version(),
                spec.engine,
                f"{len(FEATURES) - len(missing)}/{len(FEATURES)}"
                + (f" (not: {', '.join(missing)})" if missing else ""),
                ", ".join(found.get("found", [])) or "none",
                _answer(_watch("callback", spec.key, 60), "answer"),
                _answer(_watch("callback-limit", spec.key, 60), "answer"),
                _answer(_watch("thread", spec.key, 60), "answer"),
                spec.time_limit,
                spec.memory_limit,
            ]
        )
    return Table(
        "JavaScript engines: what each offers (each fact tried in a child interpreter)",
        [
            "engine",
            "version",
            "inside",
            "modern syntax",
            "host globals a script sees",
            "sync Python call",
            "…under a time limit",
            "eval from another thread",
            "time limit",
            "memory limit",
        ],
        rows,
        [
            "modern syntax: each feature evaluated on its own (`FEATURES` in this file); "
            "the features are those of Maestro's default engine, GraalJS",
            "host globals: of "
            + ", ".join(f"`{n}`" for n in HOST_GLOBALS)
            + ", those whose `typeof` is not undefined",
            "sync Python call: a Python function bound as a global and called from JS, returning its value "
            "(Maestro's `http.get(...)` returns the response, no Promise)",
        ],
    )


def _startup(specs: list[EngineSpec], rounds: int) -> Table:
    runs: dict[str, list[dict[str, Any]]] = {spec.key: [] for spec in specs}
    for order in rotations([spec.key for spec in specs], rounds):
        for key in order:
            result = _watch("startup", key, 120)
            if "import" in result:
                runs[key].append(result)
    medians: dict[str, dict[str, float]] = {}
    for key, results in runs.items():
        if results:
            medians[key] = {f: Stats.of([r[f] for r in results]).median for f in results[0] if f != "peak"}
    fastest = min((m["import"] + m["first"] for m in medians.values()), default=float("nan"))
    rows = []
    for spec in specs:
        m = medians.get(spec.key)
        if m is None:
            rows.append([spec.key, "failed", "", "", "", "", ""])
            continue
        start = m["import"] + m["first"]
        per_context = m["per_context"]
        rows.append(
            [
                spec.key,
                f"{m['import'] * 1e3:.1f}",
                f"{m['first'] * 1e3:.1f}",
                f"{m['next'] * 1e3:.2f}",
                f"{m['rss_import'] / 1024:.1f}",
                "one global per process" if spec.key == "pythonmonkey" else f"{per_context:.0f}",
                f"{start / fastest:.2f}x",
            ]
        )
    return Table(
        f"JavaScript engines: start-up and memory (medians of {rounds} child interpreters each)",
        ["engine", "import ms", "first context ms", "next context ms", "RSS after import MiB",
         "RSS per context KiB", "import + first context vs fastest"],
        rows,
        [
            "first/next context: made, the harness's bootstrap evaluated (`BOOTSTRAP` in js_contenders.py), "
            "one `${USERNAME.toLowerCase()}` evaluated",
            f"RSS per context: resident memory grown by {CONTEXTS} more contexts kept alive, "
            f"divided by {CONTEXTS}",
        ],
    )  # fmt: skip


def _wrapper() -> tuple[Any, Any] | None:
    try:
        from amc.flows.js import ScriptContext
    except ImportError:
        return None
    context = ScriptContext(platform="android")
    context.evaluate("output.user = {email: 'Alice@Example.com', name: 'Alice'}; output.items = [1, 2, 3, 4]")
    return context, context.evaluate


def _evaluations(specs: list[EngineSpec], quick: bool) -> Table:
    contexts = {}
    for spec in specs:
        ctx = spec.factory(None)
        ctx.eval(BOOTSTRAP)
        contexts[spec.key] = ctx
    wrapper = _wrapper()
    samples: dict[str, dict[str, list[float]]] = {}
    rounds: list[str] = []
    blocks, most = (2, 2) if quick else (5, 10)
    for expression in EXPRESSIONS:
        contenders: dict[str, Any] = {
            key: (lambda c=ctx, e=expression: evaluate(c, e, VARIABLES)) for key, ctx in contexts.items()
        }
        if wrapper is not None:
            contenders["amc.flows.js"] = lambda e=expression, run=wrapper[1]: run(e, variables=VARIABLES)
        merged: dict[str, list[float]] = {key: [] for key in contenders}
        previous: dict[str, float] = {}
        for round_number in range(1, most + 1):
            stats = interleaved(contenders, blocks=blocks, min_time=0.005 if quick else 0.02, warmup=0.1)
            for key, stat in stats.items():
                merged[key] += stat.samples
            now = {key: Stats.of(values).median for key, values in merged.items()}
            moved = max((abs(now[k] / previous[k] - 1) for k in now), default=1.0) if previous else 1.0
            previous = now
            if moved < STEADY or round_number == most:
                rounds.append(f"{round_number}" + ("" if moved < STEADY else f" (still moving {moved:.0%})"))
                break
        samples[expression] = merged
    if wrapper is not None:
        wrapper[0].close()
    keys = list(next(iter(samples.values())))
    medians = {e: {k: Stats.of(v).median for k, v in per.items()} for e, per in samples.items()}
    fastest = {e: min(m.values()) for e, m in medians.items()}
    rows = []
    for key in keys:
        ratios = [medians[e][key] / fastest[e] for e in EXPRESSIONS]
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        rows.append([key, *(f"{medians[e][key] * 1e6:.1f}" for e in EXPRESSIONS), f"{geo:.2f}x"])
    rows.sort(key=lambda row: float(str(row[-1]).rstrip("x")))
    short = ["`USERNAME.toLowerCase()` µs", "`output.user.email` µs", "`output.items.length > 2` µs",
             "4-statement script µs"]  # fmt: skip
    return Table(
        "JavaScript engines: one `${...}` evaluation, variables in, value out (median µs, interleaved)",
        ["engine", *short, "vs fastest (geometric mean)"],
        rows,
        [
            f"{len(VARIABLES)} variables put in as globals for each evaluation and removed after it; "
            "the value comes out as JSON text, parsed in Python (`evaluate()` in js_contenders.py)",
            f"the 4-statement script: `{EXPRESSIONS[3]}`",
            f"rounds of {blocks} interleaved blocks until no median moved {STEADY:.0%} or more in the last "
            f"(at most {most}); rounds per expression here: {', '.join(rounds)}",
            "amc.flows.js: the project's `ScriptContext.evaluate()` (jsbox inside, a worker thread per "
            "context, the value checked against its bounds)",
        ],
    )


def _runaway(specs: list[EngineSpec]) -> Table:
    rows = []
    for spec in specs:
        loop = _watch("loop", spec.key, 10)
        alloc = _watch("alloc", spec.key, 30)
        grown = (alloc["peak"] - alloc.get("rss", 0)) // 1024 if alloc.get("rss") else alloc["peak"] // 1024
        rows.append(
            [
                spec.key,
                _answer(loop, "outcome"),
                f"{loop['seconds']:.2f}" if "seconds" in loop else "",
                _answer(loop, "next"),
                _answer(alloc, "outcome"),
                f"{alloc['seconds']:.2f}" if "seconds" in alloc else "",
                f"{grown}",
                _answer(alloc, "next"),
            ]
        )
    return Table(
        "JavaScript engines: runaway scripts (a child each, watched from outside)",
        ["engine", "`while (true) {}`, 1 s limit", "stopped after s", "next evaluation",
         "endless allocation, 64 MiB limit", "stopped after s", "RSS grown MiB", "next evaluation"],
        rows,
        [
            "a child is killed past 2 GiB resident or past 10 s (the loop) / 30 s (the allocation)",
            f"the allocation: `{ALLOCATE}`, with a 20 s time limit where the engine has one",
            "next evaluation: `${USERNAME.toLowerCase()}` in the same context right after",
        ],
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a smoke run")
    parser.add_argument(
        "--only", action="append", default=[], metavar="KEY", help="only this engine (repeatable)"
    )
    parser.add_argument("--child", nargs=2, metavar=("PROBE", "KEY"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(*args.child)
    chosen = [spec for spec in ENGINES if not args.only or spec.key in args.only]
    present = [spec for spec in chosen if installed(spec)]
    print(f"Machine: {machine()}\n")
    absent = [spec.key for spec in chosen if not installed(spec)]
    if absent:
        print(f"Not installed, left out: {', '.join(absent)} (see benchmarks/js_contenders.py)\n")
    if not present:
        return 1
    warm_up()
    print(_offers(present).render())
    print(_startup(present, 1 if args.quick else 5).render())
    print(_evaluations(present, args.quick).render())
    print(_runaway(present).render())
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main())
