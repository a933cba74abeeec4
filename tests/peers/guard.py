"""A pytest plugin for a foreign suite's process (``-p tests.peers.guard``): the loopback guard of
the project's own tests, so a peer suite reaches nothing but the faces on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.netguard import loopback_only

__all__ = ["pytest_runtestloop"]


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[None]:
    with loopback_only():
        return (yield)
