"""The JavaScript engines that ``benchmarks/js_engines.py`` compares, each behind one small adapter.

Every adapter does the same four things with its engine's own API, the way a user of that binding
would: ``eval`` a script (optionally under a wall-clock ``seconds`` limit, with the engine's own
mechanism where it has one), ``bind`` a synchronous Python function as a JS global, and ``close``.
The memory limit is given when the context is made (some engines only take it there). An engine
without a mechanism for a limit runs without it, and the benchmark's watchdog says what happened.

The packages are not dependencies of the project (only the chosen one is); an engine whose package
is missing is reported as such. Install the lot into a throwaway environment with::

    pip install jsbox quickjs-ng mini-racer quickjs-rs pythonmonkey dukpy stpyv8 js2py
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol

__all__ = ["BOOTSTRAP", "ENGINES", "Adapter", "EngineSpec", "evaluate", "installed"]

# Written in ES5 so that every contender, js2py included, runs the same harness code: ``output`` lives
# in the context, ``__run`` puts the variables in as globals for one evaluation, evaluates the
# expression as a script (indirect eval) and hands the value out as JSON text (the same one string
# crosses every binding; the Python side parses it).
BOOTSTRAP = """
var __g = this;
var output = {user: {email: 'Alice@Example.com', name: 'Alice'}, items: [1, 2, 3, 4], counter: 0};
function json(text) { return JSON.parse(text); }
function __run(src, vars) {
  var k;
  for (k in vars) __g[k] = vars[k];
  try { var v = (0, eval)(src); return v === undefined ? 'null' : JSON.stringify(v); }
  finally { for (k in vars) delete __g[k]; }
}
"""


class Adapter(Protocol):
    def eval(self, code: str, seconds: float | None = None) -> Any: ...

    def bind(self, name: str, fn: Callable[..., Any]) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class EngineSpec:
    """One contender: its table name, its package, the engine inside, how its limits are set, and
    how to make a context (``memory`` in bytes, or None for the engine's default)."""

    key: str
    dist: str
    module: str
    engine: str
    time_limit: str
    memory_limit: str
    factory: Callable[[int | None], Adapter]

    def version(self) -> str:
        try:
            return metadata.version(self.dist)
        except metadata.PackageNotFoundError:
            return "not installed"


def installed(spec: EngineSpec) -> bool:
    return spec.version() != "not installed"


def evaluate(adapter: Adapter, expression: str, variables: dict[str, str]) -> Any:
    """One ``${...}`` evaluation as the harness does it: variables in, the value out as Python."""
    text = adapter.eval(f"__run({json.dumps(expression)}, {json.dumps(variables)})")
    return json.loads(text)


class _Jsbox:
    def __init__(self, memory: int | None) -> None:
        jsbox: Any = importlib.import_module("jsbox")
        self._rt = jsbox.Runtime() if memory is None else jsbox.Runtime(memory_limit=memory)

    def eval(self, code: str, seconds: float | None = None) -> Any:
        return self._rt.eval(code, timeout=seconds)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        self._rt.bind_function(name, fn)

    def close(self) -> None:
        del self._rt


class _QuickjsNg:
    def __init__(self, memory: int | None) -> None:
        quickjs: Any = importlib.import_module("quickjs")
        self._ctx = quickjs.Context()
        if memory is not None:
            self._ctx.set_memory_limit(memory)

    def eval(self, code: str, seconds: float | None = None) -> Any:
        self._ctx.set_time_limit(-1 if seconds is None else seconds)
        try:
            return self._ctx.eval(code)
        finally:
            self._ctx.set_time_limit(-1)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        self._ctx.add_callable(name, fn)

    def close(self) -> None:
        del self._ctx


class _MiniRacer:
    def __init__(self, memory: int | None) -> None:
        mini_racer: Any = importlib.import_module("py_mini_racer")
        self._ctx = mini_racer.MiniRacer()
        if memory is not None:
            self._ctx.set_hard_memory_limit(memory)

    def eval(self, code: str, seconds: float | None = None) -> Any:
        return self._ctx.eval(code, timeout_sec=seconds)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        raise NotImplementedError("mini-racer calls Python only as async functions (JS sees a Promise)")

    def close(self) -> None:
        self._ctx.close()


class _QuickjsRs:
    def __init__(self, memory: int | None) -> None:
        quickjs_rs: Any = importlib.import_module("quickjs_rs")
        self._rt = quickjs_rs.Runtime() if memory is None else quickjs_rs.Runtime(memory_limit=memory)
        self._ctx = self._rt.new_context(timeout=3600.0)

    def eval(self, code: str, seconds: float | None = None) -> Any:
        self._ctx._timeout = 3600.0 if seconds is None else seconds  # its per-context deadline
        return self._ctx.eval(code)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        self._ctx.register(name, fn)

    def close(self) -> None:
        self._ctx.close()
        self._rt.close()


class _PythonMonkey:
    """One SpiderMonkey global per process: every "context" is the same one."""

    def __init__(self, memory: int | None) -> None:
        self._pm: Any = importlib.import_module("pythonmonkey")

    def eval(self, code: str, seconds: float | None = None) -> Any:
        return self._pm.eval(code)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        self._pm.eval(f"(f) => {{ globalThis[{json.dumps(name)}] = f }}")(fn)

    def close(self) -> None:
        pass


class _Dukpy:
    def __init__(self, memory: int | None) -> None:
        dukpy: Any = importlib.import_module("dukpy")
        self._interp = dukpy.JSInterpreter()

    def eval(self, code: str, seconds: float | None = None) -> Any:
        return self._interp.evaljs(code)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        self._interp.export_function(name, fn)
        self._interp.evaljs(
            f"globalThis[{json.dumps(name)}] = (...a) => call_python({json.dumps(name)}, ...a); null"
        )

    def close(self) -> None:
        del self._interp


class _Stpyv8:
    def __init__(self, memory: int | None) -> None:
        self._v8: Any = importlib.import_module("STPyV8")
        self._ctx = self._v8.JSContext()
        self._timer: threading.Timer | None = None

    def eval(self, code: str, seconds: float | None = None) -> Any:
        # STPyV8's only way to stop a script: terminate every V8 thread from another thread.
        timer = threading.Timer(seconds, self._v8.JSEngine.terminateAllThreads) if seconds else None
        with self._ctx:
            if timer is not None:
                timer.start()
            try:
                return self._ctx.eval(code)
            finally:
                if timer is not None:
                    timer.cancel()

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        with self._ctx:
            self._ctx.locals[name] = fn

    def close(self) -> None:
        del self._ctx


class _Js2py:
    def __init__(self, memory: int | None) -> None:
        js2py: Any = importlib.import_module("js2py")
        self._ctx = js2py.EvalJs()

    def eval(self, code: str, seconds: float | None = None) -> Any:
        return self._ctx.eval(code)

    def bind(self, name: str, fn: Callable[..., Any]) -> None:
        def call(a: Any = None, b: Any = None, c: Any = None) -> Any:  # js2py passes as many as are named
            return fn(*(arg.to_python() for arg in (a, b, c) if arg is not None and not arg.is_undefined()))

        setattr(self._ctx, name, call)

    def close(self) -> None:
        del self._ctx


ENGINES: tuple[EngineSpec, ...] = (
    EngineSpec(
        "jsbox",
        "jsbox",
        "jsbox",
        "QuickJS-ng via rquickjs (Rust)",
        "eval(timeout=) wall clock",
        "Runtime(memory_limit=)",
        _Jsbox,
    ),
    EngineSpec(
        "quickjs-ng",
        "quickjs-ng",
        "quickjs",
        "QuickJS-ng (C extension)",
        "set_time_limit()",
        "set_memory_limit()",
        _QuickjsNg,
    ),
    EngineSpec(
        "mini-racer",
        "mini-racer",
        "py_mini_racer",
        "V8 (ctypes)",
        "eval(timeout_sec=)",
        "set_hard_memory_limit()",
        _MiniRacer,
    ),
    EngineSpec(
        "quickjs-rs",
        "quickjs-rs",
        "quickjs_rs",
        "QuickJS-ng in WebAssembly (wasmtime)",
        "Context(timeout=) wall clock",
        "Runtime(memory_limit=)",
        _QuickjsRs,
    ),
    EngineSpec("pythonmonkey", "pythonmonkey", "pythonmonkey", "SpiderMonkey", "none", "none", _PythonMonkey),
    EngineSpec("dukpy", "dukpy", "dukpy", "QuickJS (dukpy 0.6 left Duktape)", "none", "none", _Dukpy),
    EngineSpec(
        "stpyv8",
        "stpyv8",
        "STPyV8",
        "V8 (Boost.Python)",
        "JSEngine.terminateAllThreads() from a timer",
        "none",
        _Stpyv8,
    ),
    EngineSpec("js2py", "js2py", "js2py", "pure Python (ES5; ES6 through Babel)", "none", "none", _Js2py),
)
