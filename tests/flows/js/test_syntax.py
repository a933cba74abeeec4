"""The JavaScript that Maestro flows are written in runs as Maestro's GraalJS engine runs it.

The engine behaviours below are those Maestro's own engine tests check (maestro-test's
``JsEngineTest``/``GraalJsEngineTest``: redefining a ``const`` in a later evaluation, nothing shared
between evaluations but ``output`` and the variables, undeclared names falsy, ``parseInt`` giving
``1`` not ``1.0``, backslashes and newlines kept).
"""

from __future__ import annotations

import pytest
from amc.flows.js import ScriptContext

MODERN = [
    ("let and const", "(() => { let a = 1; const b = 2; return a + b === 3 })()"),
    ("arrow functions", "((x, y) => x + y)(1, 2) === 3"),
    ("template literals", "`a${1 + 1}b` === 'a2b'"),
    ("destructuring and rest",
     "(() => { const {p, q: [r, ...s]} = {p: 1, q: [2, 3, 4]}; return p + r + s.length })() === 5"),
    ("optional chaining", "({u: null})?.u?.v === undefined && ({f: null}).f?.() === undefined"),
    ("nullish coalescing", "(null ?? 'd') === 'd' && (0 ?? 'd') === 0"),
    ("spread", "Math.max(...[1, 5, 3]) === 5 && ({...{k: 1}, l: 2}).k === 1 && [...'ab'].length === 2"),
    ("classes",
     "(() => { class A { static s() { return 2 } } class B extends A { get x() { return 1 } } "
     "return B.s() + new B().x })() === 3"),
    ("private fields", "(() => { class A { #x = 1; x() { return this.#x } } return new A().x() })() === 1"),
    ("JSON", "JSON.stringify(JSON.parse('{\"a\":[1,2]}')) === '{\"a\":[1,2]}'"),
    ("logical assignment", "(() => { let x = null; x ??= 5; x ||= 6; return x })() === 5"),
    ("for-of and generators",
     "(() => { function* g() { yield 1; yield 2 } let n = 0; for (const v of g()) n += v; return n })()"
     " === 3"),
    ("regex named groups", "/(?<y>\\d{4})/.exec('in 2024').groups.y === '2024'"),
    ("newer built-ins",
     "[1, [2, [3]]].flat(2).at(-1) === 3 && 'a-b'.replaceAll('-', '') === 'ab' "
     "&& Object.fromEntries([['a', 1]]).a === 1"),
    ("Date and Math", "new Date(0).toISOString() === '1970-01-01T00:00:00.000Z' && Math.ceil(0.2) === 1"),
    ("async functions", "typeof (async () => 1) === 'function'"),
]  # fmt: skip


@pytest.mark.parametrize(("feature", "expression"), MODERN, ids=[name for name, _ in MODERN])
def test_modern_syntax_runs(js: ScriptContext, feature: str, expression: str) -> None:
    result = js.evaluate(expression)
    assert result.value is True, f"{feature}: {result.text}"


def test_a_const_may_be_declared_again_in_a_later_evaluation(js: ScriptContext) -> None:
    js.evaluate("const foo = null")
    js.evaluate("const foo = null")
    assert js.evaluate("const foo = 'again'; foo").text == "again"


def test_declarations_and_assigned_globals_do_not_outlive_their_evaluation(js: ScriptContext) -> None:
    js.run_script(
        "const foo = 'foo'; var bar = 1; function baz() {} made = 2; globalThis.other = 3", filename="a.js"
    )
    assert js.evaluate("[typeof foo, typeof bar, typeof baz, typeof made, typeof other].join()").text == (
        "undefined,undefined,undefined,undefined,undefined"
    )


def test_undeclared_names_are_undefined_not_an_error(js: ScriptContext) -> None:
    assert js.evaluate("!!foo").text == "false"
    assert js.evaluate("MY_VAR || 'default-value'").text == "default-value"
    assert js.evaluate("typeof NOT_SET").text == "undefined"


def test_variables_are_globals_of_their_evaluation_only(js: ScriptContext) -> None:
    assert js.evaluate("USERNAME.toLowerCase()", variables={"USERNAME": "Alice"}).text == "alice"
    assert js.evaluate("typeof USERNAME").text == "undefined"
    assert js.run_script("`${A}-${B}`", filename="s.js", env={"A": "x", "B": "y"}).text == "x-y"


def test_backslash_and_newline_are_kept(js: ScriptContext) -> None:
    js.set_copied_text("\\\n")
    assert js.evaluate("maestro.copiedText + FOO", variables={"FOO": "\\\n"}).text == "\\\n\\\n"


def test_whole_numbers_are_written_without_a_decimal_point(js: ScriptContext) -> None:
    assert js.evaluate("parseInt('1')").text == "1"
    assert js.evaluate("6 / 2").text == "3"
    assert js.evaluate("0.1 + 0.2").text == "0.30000000000000004"


def test_scripts_run_in_strict_mode(js: ScriptContext) -> None:
    """Maestro runs GraalJS with js.strict: what strict mode forbids is an error here too."""
    result = js.evaluate("(function () { return this === undefined })()")
    assert result.value is True


def test_maestro_globals(js: ScriptContext) -> None:
    assert js.evaluate("maestro.platform").text == "android"
    assert js.evaluate("MAESTRO_PLATFORM").text == "android"
    assert js.evaluate("MAESTRO_PLATFORM", variables={"MAESTRO_PLATFORM": "ios"}).text == "ios"
    assert js.evaluate("json('{\"a\": [1, 2]}').a[1]").value == 2
    assert js.evaluate("relativePoint(0.5, 0.251)").text == "50%,26%"
    assert js.evaluate("typeof maestro.copiedText").text == "undefined"
    js.set_copied_text("the code")
    assert js.evaluate("maestro.copiedText").text == "the code"


def test_the_text_of_each_kind_of_value(js: ScriptContext) -> None:
    """What ``${...}`` writes into a string: strings as they are, other values as JavaScript writes
    them, arrays and objects as JSON."""
    cases = {
        "'plain'": "plain",
        "3": "3",
        "1e21": "1e+21",
        "true": "true",
        "null": "null",
        "undefined": "undefined",
        "[1, 'a']": '[1,"a"]',
        "({a: {b: 1}})": '{"a":{"b":1}}',
        "NaN": "NaN",
    }
    assert {source: js.evaluate(source).text for source in cases} == cases


def test_console_lines_are_the_evaluations_own(js: ScriptContext) -> None:
    first = js.run_script(
        "console.log('hi', {a: 1}, [1, 2], undefined, null, 3); console.warn('w')", filename="a.js"
    )
    assert first.logs == ('hi {"a":1} [1,2] undefined null 3', "w")
    assert js.evaluate("1").logs == ()
