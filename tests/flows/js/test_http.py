"""Maestro's ``http``: the caller's handler gets the request the script described, the script gets
Maestro's response object; refusals are errors the script may catch. The cases after the first
three are those of Maestro's own engine tests (a GET with headers, a POST with a JSON body, a
response with a header sent twice)."""

from __future__ import annotations

import json

import pytest
from amc.core.errors import DeviceTimeout, ScriptError
from amc.flows.js import HttpRefused, HttpRequest, HttpResponse, ScriptContext, ScriptLimits

from .conftest import Backend


def test_get_with_headers_reaches_the_handler_as_written(js: ScriptContext, backend: Backend) -> None:
    result = js.run_script(
        "var response = http.get('http://127.0.0.1:8080/json',\n"
        "  {headers: {Authorization: 'Bearer Token', 'X-N': 3}});\n"
        "json(response.body).message",
        filename="get.js",
    )
    assert result.text == "ok"
    (request,) = backend.requests
    assert (request.method, request.url, request.headers, request.body) == (
        "GET",
        "http://127.0.0.1:8080/json",
        (("Authorization", "Bearer Token"), ("X-N", "3")),
        None,
    )
    assert 0 < request.timeout <= 10.0


def test_each_method(js: ScriptContext, backend: Backend) -> None:
    js.run_script(
        """
        http.post('http://127.0.0.1/a', {body: JSON.stringify({payload: 'Value'})});
        http.put('http://127.0.0.1/b', {body: 'text'});
        http.delete('http://127.0.0.1/c');
        http.request('http://127.0.0.1/d', {method: 'patch', body: '{}'});
        http.request('http://127.0.0.1/e');
        http.post('http://127.0.0.1/f',
          {body: {not: 'a string'}, multipartForm: {uploadType: 'import', data: {filePath: 'a.png'}}});
        """,
        filename="methods.js",
    )
    assert [(r.method, r.url.rsplit("/", 1)[1], r.body) for r in backend.requests] == [
        ("POST", "a", '{"payload":"Value"}'),
        ("PUT", "b", "text"),
        ("DELETE", "c", None),
        ("PATCH", "d", "{}"),
        ("GET", "e", None),
        ("POST", "f", None),  # Maestro sends a body only when it is a string
    ]
    assert backend.requests[-1].multipart_form == {"uploadType": "import", "data": {"filePath": "a.png"}}


def test_the_response_object(js: ScriptContext) -> None:
    backend = Backend(
        lambda request: HttpResponse(
            200,
            json.dumps({"message": "GET Endpoint"}),
            (("Content-Type", "application/json"), ("testHeader", "first"), ("testHeader", "second")),
        )
    )
    with ScriptContext(platform="android", http=backend) as js:
        result = js.run_script(
            "var response = http.get('http://127.0.0.1/json');\n"
            "var message = json(response.body).message;\n"
            "String(message + ' ' + response.headers['content-type'] + ' ' + response.headers['testheader'])"
            " + ' ' + response.ok + ' ' + response.status",
            filename="headers.js",
        )
    assert result.text == "GET Endpoint application/json first,second true 200"


def test_an_error_status_is_a_response_not_an_exception() -> None:
    with ScriptContext(platform="android", http=Backend(lambda r: HttpResponse(404, "missing"))) as js:
        result = js.evaluate("const r = http.get('http://127.0.0.1/x'); [r.ok, r.status, r.body]")
    assert result.value == [False, 404, "missing"]


@pytest.mark.parametrize(
    ("call", "says"),
    [
        ("http.get('file:///etc/passwd')", "only http:// and https:// URLs are requested"),
        ("http.get(42)", "the URL must be a string, not a number"),
        ("http.get('http://127.0.0.1/', 'x')", "the second argument must be an object, not a string"),
        ("http.get('http://127.0.0.1/', {headers: {'X-A': 'a\\r\\nHost: evil'}})", "holds a line break"),
        ("http.request('http://127.0.0.1/', {method: 'GET /x'})", "the method must be a word"),
        ("http.get('http://127.0.0.1/' + 'a'.repeat(9000))", "over 8,192"),
    ],
)
def test_a_request_that_cannot_be_made_throws_and_never_reaches_the_handler(
    js: ScriptContext, backend: Backend, call: str, says: str
) -> None:
    with pytest.raises(ScriptError) as info:
        js.evaluate(call)
    assert says in str(info.value)
    assert info.value.js_name == "Error"
    assert backend.requests == []
    caught = js.evaluate(f"try {{ {call}; 'no' }} catch (e) {{ e.message }}")
    assert says in caught.text


@pytest.mark.parametrize(
    "failure",
    [HttpRefused("flows from MCP may not call HTTP"), ConnectionRefusedError(111, "Connection refused"),
     DeviceTimeout("no answer in 2 s")],
)  # fmt: skip
def test_a_handler_that_fails_is_an_error_the_script_may_catch(js: ScriptContext, failure: Exception) -> None:
    def refuse(request: HttpRequest) -> HttpResponse:
        raise failure

    with ScriptContext(platform="android", http=Backend(refuse)) as js:
        caught = js.evaluate("try { http.get('http://127.0.0.1/x') } catch (e) { e.message }")
        assert caught.text == f"http.get http://127.0.0.1/x: {failure}"
        with pytest.raises(ScriptError, match=r"http\.get http://127\.0\.0\.1/x"):
            js.run_script("\n\nhttp.get('http://127.0.0.1/x')", filename="fail.js")


def test_a_response_over_the_cap_is_refused() -> None:
    limits = ScriptLimits(http_max_response_bytes=100)
    backend = Backend(lambda r: HttpResponse(200, "é" * 60))
    with (
        ScriptContext(platform="android", http=backend, limits=limits) as js,
        pytest.raises(ScriptError, match="the response body is 120 bytes, over the cap of 100"),
    ):
        js.evaluate("http.get('http://127.0.0.1/big')")


def test_the_number_of_calls_per_evaluation_is_bounded(backend: Backend) -> None:
    with ScriptContext(platform="android", http=backend, limits=ScriptLimits(http_max_calls=3)) as js:
        with pytest.raises(ScriptError, match="more than 3 HTTP calls in one evaluation"):
            js.evaluate("for (let i = 0; i < 5; i++) http.get('http://127.0.0.1/' + i)")
        assert len(backend.requests) == 3
        js.evaluate("http.get('http://127.0.0.1/again')")  # a new evaluation, a new count
    assert len(backend.requests) == 4


def test_the_request_timeout_never_outlasts_the_evaluation(backend: Backend) -> None:
    limits = ScriptLimits(time_limit=1.0, http_timeout=30.0)
    with ScriptContext(platform="android", http=backend, limits=limits) as js:
        js.evaluate("http.get('http://127.0.0.1/')")
    assert 0 < backend.requests[0].timeout <= 1.0


def test_secrets_reach_the_handler_as_given_and_nothing_else(backend: Backend) -> None:
    """What a secret variable holds goes where the script sends it (the handler decides what to log,
    and hides it); the engine itself writes it nowhere: not in the result, the logs or its errors."""
    secret = "s3cr3t-t0ken"
    with ScriptContext(platform="android", http=backend) as js:
        result = js.run_script(
            "const r = http.post(BASE + '/login', {headers: {Authorization: 'Bearer ' + TOKEN}, body: 1});\n"
            "r.status",
            filename="login.js",
            env={"TOKEN": secret, "BASE": "http://127.0.0.1:8080"},
        )
        assert backend.requests[0].headers == (("Authorization", f"Bearer {secret}"),)
        assert secret not in repr(result)
        with pytest.raises(ScriptError) as info:
            js.run_script(
                "http.post('ftp://127.0.0.1', {headers: {Authorization: TOKEN}})",
                filename="bad.js",
                env={"TOKEN": secret},
            )
        assert secret not in str(info.value) and secret not in repr(info.value.logs)
