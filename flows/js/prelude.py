"""The JavaScript a context runs once before any script: Maestro's globals, and the runner.

What a script sees besides the language's own built-ins (nothing of the host: no ``require``,
``process``, ``std``, ``os``, files, timers or network):

- ``output``: one object shared by every evaluation of the context (a flow and its subflows);
- ``maestro``: ``maestro.platform`` and, once something was copied, ``maestro.copiedText``
  (``MAESTRO_PLATFORM`` is a variable the context adds to every evaluation's, which a caller's
  variable of that name overrides);
- ``json(text)``, ``relativePoint(x, y)`` (``'50%,25%'``), ``console.log`` (and ``info``, ``warn``,
  ``error``, ``debug``: lines collected for the step), ``http`` (:mod:`amc.flows.js.http`);
- a name no script declared reads as ``undefined`` instead of throwing (``${MY_VAR || 'default'}``),
  as in Maestro's GraalJS engine (a proxy behind the global object answers every lookup).

Every evaluation runs as its own strict-mode script (``eval`` from the global scope): its ``let``,
``const``, ``var`` and functions do not outlive it, and the globals it made by assignment, and the
caller's variables, are removed after it. What lasts is what it put in ``output`` (or ``maestro``).
"""

from __future__ import annotations

__all__ = ["HOST_HTTP", "LINE_OFFSET", "PRELUDE", "SCRIPT_FILE", "STRICT"]

HOST_HTTP = "__amc_http"  # the Python function the prelude takes and hides
STRICT = '"use strict";\n'  # put before every evaluated source: its lines move down by one
LINE_OFFSET = 1
SCRIPT_FILE = "<input>"  # the file name the engine gives evaluated code in its stack traces

# Called with one argument: {platform, maxLogLines, maxLogLine, maxValueBytes}. Defines the globals, then
# ``__amc`` (not enumerable): run(source, variables, withOutput) -> [text, json, logs, output json or
# null]; reset() -> logs, after
# an evaluation that failed (a time or memory limit may have stopped it before its own clean-up);
# output() -> json of [[key, json or null, why not or null], ...]; copied(text); names() -> the
# globals a variable may not take.
PRELUDE = r"""
(function (config) {
  'use strict';
  const g = globalThis;
  const globalEval = eval;
  const hostHttp = g.__amc_http;
  delete g.__amc_http;

  const define = (name, value) =>
    Object.defineProperty(g, name, {value, writable: false, enumerable: false, configurable: false});

  let logs = [], dropped = 0;
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v === null || typeof v !== 'object') return String(v);
    try {
      const t = JSON.stringify(v);
      return t === undefined ? String(v) : t;
    } catch (e) {
      return String(v);
    }
  };
  const log = (...args) => {
    if (logs.length >= config.maxLogLines) { dropped++; return; }
    const line = args.map(show).join(' ');
    logs.push(line.length > config.maxLogLine ? line.slice(0, config.maxLogLine) + '…' : line);
  };
  define('console', Object.freeze({log, info: log, warn: log, error: log, debug: log}));

  define('json', (text) => JSON.parse(text));
  define('relativePoint', (x, y) => Math.ceil(x * 100) + '%,' + Math.ceil(y * 100) + '%');
  const output = {};
  define('output', output);
  const maestro = {platform: config.platform};
  define('maestro', maestro);

  const call = (method, url, params) => {
    const answer = hostHttp(method, url, params === undefined ? null : params);
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.response;
  };
  define('http', Object.freeze({
    get: (url, params) => call('GET', url, params),
    post: (url, params) => call('POST', url, params),
    put: (url, params) => call('PUT', url, params),
    delete: (url, params) => call('DELETE', url, params),
    request: (url, params) =>
      call(params && typeof params.method === 'string' ? params.method : 'GET', url, params),
  }));

  const bigints = (key, value) =>
    typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : String(value)) : value;
  const encode = (v) => {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return null;
    try {
      const t = JSON.stringify(v, bigints);
      return t === undefined ? null : t;
    } catch (e) {
      return null;
    }
  };
  // output as [key, JSON text or null, why it cannot be read or null] per key, each bounded, so
  // one value that cannot be read back (nested too deeply for JSON.stringify, a getter that
  // throws, too big) is named by its key and the others still cross.
  const describe = (e) =>
    (e && typeof e === 'object' && e.name ? e.name + ': ' + e.message : 'thrown ' + String(e));
  const readOutput = () => {
    const pairs = [];
    let total = 0;
    for (const key of Object.keys(output)) {
      let text = null, why = null;
      try {
        text = JSON.stringify(output[key], bigints);
        if (text === undefined) continue;  // as JSON leaves it out of an object: a function, undefined
      } catch (e) {
        why = describe(e);
      }
      if (text !== null && text.length > config.maxValueBytes - total) {
        why = 'over the limit of ' + config.maxValueBytes + ' bytes of output';
        text = null;
      }
      total += text === null ? 0 : text.length;
      pairs.push([key, text, why]);
    }
    return JSON.stringify(pairs);
  };
  const plain = (v) => {
    if (Array.isArray(v)) return true;
    const proto = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null;
  };
  const render = (v) => {
    if (typeof v === 'string') return v;
    if (v === null || typeof v !== 'object' || !plain(v)) return String(v);
    const t = encode(v);
    return t === null ? String(v) : t;
  };
  const takeLogs = () => {
    const taken = dropped ? [...logs, '(' + dropped + ' more console lines dropped)'] : logs;
    logs = [];
    dropped = 0;
    return taken;
  };

  // Behind the global object: every name "exists" (an undeclared one reads as undefined), and a
  // global made by assigning to an undeclared name is noted, to be removed after the evaluation.
  const made = new Set();
  Object.setPrototypeOf(g, new Proxy(Object.getPrototypeOf(g), {
    has: () => true,
    set(target, key, value, receiver) {
      if (receiver !== g) return Reflect.set(target, key, value, receiver);
      if (key === '__proto__') return false;
      made.add(key);
      return Reflect.defineProperty(g, key, {value, writable: true, enumerable: true, configurable: true});
    },
  }));
  const baseline = new Set(Object.getOwnPropertyNames(g));
  baseline.add('__amc');
  const forget = () => {
    for (const name of made) delete g[name];
    made.clear();
  };

  define('__amc', Object.freeze({
    run(source, variables, withOutput) {
      logs = [];
      dropped = 0;
      for (const name of Object.keys(variables)) g[name] = variables[name];
      let value;
      try {
        value = globalEval(source);
      } catch (e) {
        // The error goes out as it is: a clean-up that fails (memory still full after an
        // allocation ran out) must not replace it; the host's reset() finishes the clean-up.
        try { forget(); } catch (ignored) {}
        throw e;
      }
      forget();
      return [render(value), encode(value), takeLogs(), withOutput ? readOutput() : null];
    },
    reset() {
      forget();
      return takeLogs();
    },
    output: () => readOutput(),
    copied(text) { maestro.copiedText = text; },
    names: () => [...baseline],
  }));
})
"""
