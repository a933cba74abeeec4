"""The agent's app guard over the device commands the flows added: clear_state names its app, and
open_link must name an allowed one (a link without an app may open any)."""

from __future__ import annotations

from amc.agent.guard import agent_executor
from amc.core.models import PlannedStep

from tests.unit.fakes import FakeDriver, scene

ALLOWED = ["com.example.amc.demo"]


class _Screen:
    latest = None
    world = None

    def observe(self) -> object:
        raise AssertionError("no look is needed")


def _run(step: PlannedStep) -> tuple[str | None, str | None, FakeDriver]:
    driver = FakeDriver(scenes=[scene("x")])
    result = agent_executor(driver, ALLOWED).execute(step, _Screen())  # type: ignore[arg-type]
    return result.error_kind, result.error, driver


def test_clear_state_of_another_app_is_refused_before_any_request() -> None:
    kind, error, driver = _run(PlannedStep("clear_state", {"app_id": "com.android.settings"}))
    assert kind == "GuardrailViolation" and "outside the allowed apps" in (error or "")
    assert driver.calls == []
    kind, _error, driver = _run(PlannedStep("clear_state", {"app_id": "com.example.amc.demo"}))
    assert kind is None and driver.calls == [("clear_state", ("com.example.amc.demo",))]


def test_open_link_must_name_an_allowed_app() -> None:
    kind, error, driver = _run(PlannedStep("open_link", {"url": "https://example.com"}))
    assert kind == "GuardrailViolation" and "names no app, so it may open any" in (error or "")
    assert driver.calls == []
    kind, _error, driver = _run(PlannedStep("open_link", {"url": "amcdemo://login", "app_id": ALLOWED[0]}))
    assert kind is None and driver.calls == [("open_link", ("amcdemo://login", ALLOWED[0]))]
