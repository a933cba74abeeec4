"""Values crossing between the harness and JavaScript: what each kind becomes, and the bounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from amc.core.errors import ScriptError
from amc.flows.js import MAX_SAFE_INTEGER, ScriptContext, ScriptLimits


@pytest.fixture
def small() -> Iterator[ScriptContext]:
    limits = ScriptLimits(max_depth=5, max_items=50, max_value_bytes=2_000)
    with ScriptContext(platform="android", limits=limits) as context:
        yield context


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("'héllo ✓'", "héllo ✓"),
        ("42", 42),
        ("-0", 0),
        ("1.5", 1.5),
        (f"{MAX_SAFE_INTEGER}", MAX_SAFE_INTEGER),
        ("2 ** 53", float(2**53)),
        ("1e21", 1e21),
        ("true", True),
        ("false", False),
        ("null", None),
        ("undefined", None),
        ("[1, 'a', null, [2.5]]", [1, "a", None, [2.5]]),
        ("({a: 1, b: {c: [true]}})", {"a": 1, "b": {"c": [True]}}),
        ("new Date(0)", "1970-01-01T00:00:00.000Z"),
        ("10n", 10),
        ("2n ** 70n", "1180591620717411303424"),
        ("NaN", None),
        ("[1, NaN, Infinity]", [1, None, None]),
        ("({f() {}, u: undefined, n: null})", {"n": None}),
        ("(() => 1)", None),
        ("Symbol('s')", None),
        ("(() => { const o = {}; o.o = o; return o })()", None),
    ],
)
def test_a_value_from_a_script_is_what_json_says_it_is(js: ScriptContext, source: str, value: Any) -> None:
    result = js.evaluate(source)
    assert result.value == value
    assert type(result.value) is type(value)


def test_integers_and_floats_are_told_apart(js: ScriptContext) -> None:
    assert isinstance(js.evaluate("3").value, int)
    assert isinstance(js.evaluate("3.0").value, int)  # JavaScript has no 3.0 apart from 3
    assert isinstance(js.evaluate("3.25").value, float)
    assert isinstance(js.evaluate("[3, 3.25]").value, list)


def test_undefined_and_null_differ_in_their_text(js: ScriptContext) -> None:
    assert (js.evaluate("undefined").value, js.evaluate("undefined").text) == (None, "undefined")
    assert (js.evaluate("null").value, js.evaluate("null").text) == (None, "null")


@pytest.mark.parametrize(
    "value",
    [
        "text ✓ \n \\ ' \" \u2028 </script>",
        7,
        -7.5,
        True,
        None,
        [1, [2, ["x"]]],
        {"a": {"b": [None, False]}},
        "",
    ],
)
def test_a_variable_arrives_as_it_was_given(js: ScriptContext, value: Any) -> None:
    assert js.evaluate("V", variables={"V": value}).value == value
    assert js.evaluate(
        "JSON.stringify(V) === JSON.stringify(json(T))", variables={"V": value, "T": _json(value)}
    ).value


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


@pytest.mark.parametrize(
    ("variables", "says"),
    [
        ({"V": {1, 2}}, "V is a set"),
        ({"V": b"bytes"}, "V is a bytes"),
        ({"V": object()}, "V is a object"),
        ({"V": {1: "a"}}, "has a key 1 that is not a string"),
        ({"V": 2**60}, "pass it as a string"),
        ({"V": [[[[[["deep"]]]]]]}, "nested too deeply"),
        ({"V": list(range(60))}, "more than 50 items"),
        ({"V": "x" * 3_000}, "over the limit of 2,000"),
    ],
)
def test_a_variable_out_of_bounds_is_refused_before_any_script_runs(
    small: ScriptContext, variables: dict[str, Any], says: str
) -> None:
    with pytest.raises(ScriptError) as info:
        small.evaluate("output.ran = true", variables=variables)
    assert says in str(info.value)
    assert small.output() == {}


def test_a_variable_may_not_take_a_name_of_maestro_or_the_language(js: ScriptContext) -> None:
    for name in ("output", "http", "json", "console", "JSON", "undefined"):
        with pytest.raises(ScriptError, match="taken by JavaScript or Maestro"):
            js.evaluate("1", variables={name: "x"})
    assert js.evaluate("typeof output.constructor").text == "function"


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("let a = 'x'; for (let i = 0; i < 10; i++) a = [a]; a", "nested too deeply"),
        ("Array.from({length: 60}, (_, i) => i)", "more than 50 items"),
        ("'x'.repeat(3000)", "2,000"),
    ],
)
def test_a_value_out_of_bounds_from_a_script_fails_and_the_context_goes_on(
    small: ScriptContext, source: str, says: str
) -> None:
    with pytest.raises(ScriptError) as info:
        small.evaluate(source)
    assert says in str(info.value)
    assert small.evaluate("'still here'").text == "still here"


def test_output_as_the_harness_reads_it(js: ScriptContext) -> None:
    js.run_script(
        "output.user = {email: 'a@example.com', age: 30, score: 1.5};\n"
        "output.fn = () => 1; output.when = new Date(0)",
        filename="setup.js",
    )
    assert js.output() == {
        "user": {"email": "a@example.com", "age": 30, "score": 1.5},
        "when": "1970-01-01T00:00:00.000Z",
    }
