"""Fixtures of the JavaScript tests: a script context per test, closed after it, and a fake backend
that records what a script asked for over ``http`` (nothing leaves the process)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from amc.flows.js import HttpRequest, HttpResponse, ScriptContext, ScriptLimits


class Backend:
    """An ``HttpHandler`` answering from ``answer`` (by default: 200, a JSON body); keeps every request."""

    def __init__(self, answer: Callable[[HttpRequest], HttpResponse] | None = None) -> None:
        self.requests: list[HttpRequest] = []
        self.answer = answer or (
            lambda request: HttpResponse(200, '{"message": "ok"}', (("Content-Type", "json"),))
        )
        self.lock = threading.Lock()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with self.lock:
            self.requests.append(request)
        return self.answer(request)


@pytest.fixture
def backend() -> Backend:
    return Backend()


@pytest.fixture
def js(backend: Backend) -> Iterator[ScriptContext]:
    with ScriptContext(platform="android", http=backend) as context:
        yield context


@pytest.fixture
def tight(backend: Backend) -> Iterator[ScriptContext]:
    """A context with small limits, so that running into them is quick."""
    limits = ScriptLimits(time_limit=0.3, grace=1.0, memory_limit=16 * 1024 * 1024, http_timeout=0.2)
    with ScriptContext(platform="ios", http=backend, limits=limits) as context:
        yield context
