"""A failing script says where (file, line, column) and what (the JavaScript error's name and message);
syntax errors are found before anything runs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from amc.core.errors import FlowError, HarnessError, ScriptError, ScriptSyntaxError
from amc.flows.js import EXPRESSION_FILE, ScriptContext, check_syntax


@dataclass(frozen=True)
class Position:  # the shape of amc.flows' SourcePosition
    file: str
    line: int
    column: int


def test_a_script_that_throws_names_its_file_and_line(js: ScriptContext) -> None:
    source = (
        "const user = {name: 'a'};\nconsole.log('creating', user.name);\nthrow new Error('no backend');\n"
    )
    with pytest.raises(ScriptError) as info:
        js.run_script(source, filename="scripts/createUser.js")
    error = info.value
    # the column is the engine's: where the Error object was made
    assert str(error) == "scripts/createUser.js:3:11: Error: no backend"
    assert (error.file, error.line, error.column, error.js_name, error.js_message) == (
        "scripts/createUser.js",
        3,
        11,
        "Error",
        "no backend",
    )
    assert error.logs == ("creating a",)
    assert error.category == "script"


def test_the_line_is_where_the_error_was_thrown(js: ScriptContext) -> None:
    source = "function check(v) {\n  if (!v) {\n    throw new TypeError('empty');\n  }\n}\n\ncheck('');\n"
    with pytest.raises(ScriptError) as info:
        js.run_script(source, filename="check.js")
    assert (info.value.line, info.value.column, info.value.js_name) == (3, 15, "TypeError")


def test_an_expression_error_is_placed_in_its_flow_file(js: ScriptContext) -> None:
    with pytest.raises(ScriptError) as info:
        js.evaluate("output.user.email", where=Position("flows/login.yaml", 12, 17))
    assert str(info.value) == "flows/login.yaml:12:17: TypeError: cannot read property 'email' of undefined"
    with pytest.raises(ScriptError) as info:
        js.evaluate("1 +\n  nope.x", where=Position("flows/login.yaml", 12, 17))
    assert (info.value.line, info.value.column) == (13, 3)
    with pytest.raises(ScriptError) as info:
        js.evaluate("null.x")
    assert info.value.file == EXPRESSION_FILE


def test_a_runtime_syntax_error_of_the_script_itself_is_a_flow_error(js: ScriptContext) -> None:
    with pytest.raises(ScriptSyntaxError) as info:
        js.evaluate("output.a = ", where=Position("f.yaml", 4, 10))
    assert isinstance(info.value, FlowError)
    assert (info.value.file, info.value.line) == ("f.yaml", 4)


def test_a_syntax_error_thrown_by_json_is_the_scripts_error_not_a_bad_flow(js: ScriptContext) -> None:
    with pytest.raises(ScriptError) as info:
        js.run_script("\nconst data = json('<html>');", filename="parse.js")
    assert not isinstance(info.value, FlowError)
    assert (info.value.js_name, info.value.line) == ("SyntaxError", 2)


def test_throwing_something_that_is_no_error(js: ScriptContext) -> None:
    with pytest.raises(ScriptError) as info:
        js.evaluate("throw 'not ready'")
    assert str(info.value) == "<expression>: uncaught not ready"
    assert info.value.js_name is None


def test_check_syntax_finds_the_error_before_anything_runs(js: ScriptContext) -> None:
    source = "output.ran = true;\nconst total = items.reduce((a, b) => a + b, 0\nconsole.log(total);\n"
    with pytest.raises(ScriptSyntaxError) as info:
        check_syntax(source, "scripts/sum.js")
    assert (info.value.file, info.value.line) == ("scripts/sum.js", 3)
    assert str(info.value).startswith("scripts/sum.js:3:")
    assert js.output() == {}


def test_check_syntax_places_an_expression_in_its_flow_file() -> None:
    with pytest.raises(ScriptSyntaxError) as info:
        check_syntax("output.items.length >", "flows/list.yaml", line=20, column=14)
    assert (info.value.line, info.value.column) == (20, 35)


def test_check_syntax_uses_strict_mode_as_evaluation_does() -> None:
    with pytest.raises(ScriptSyntaxError):
        check_syntax("with (output) { a = 1 }", "legacy.js")
    with pytest.raises(ScriptSyntaxError):
        check_syntax("var n = 010;", "legacy.js")


def test_check_syntax_runs_nothing() -> None:
    check_syntax("while (true) {}", "spin.js")
    check_syntax("throw new Error('never')", "throw.js")


def test_every_failure_is_a_harness_error(js: ScriptContext) -> None:
    for source in ("throw new Error()", "let = 1", "undefined.x", "JSON.parse('{')", "throw null"):
        with pytest.raises(HarnessError):
            js.evaluate(source)
    assert js.evaluate("'after'").text == "after"
