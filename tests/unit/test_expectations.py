"""runtime/expectations.py: what a step expected, checked against the looks before and after it, on
the simulated device's own screens; and the loop recording the verdict for every step."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.agent.service import DeviceService
from amc.connect.simulated import SimDriver
from amc.core.models import PlannedStep
from amc.runtime.expectations import Expectation, check, parse_expectation
from amc.runtime.task import open_session
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.models import Observation

DEMO = "com.example.amc.demo"


def _look(driver: SimDriver) -> Observation:
    scene = driver.observe()
    return Observation(scene, DefaultEnricher().enrich(scene))


@pytest.fixture
def settings() -> tuple[Observation, Observation]:
    """The Settings list, then the Network & internet page (a tap on its row)."""
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    before = _look(driver)
    row = next(el for el in before.scene if el.text == "Network & internet")
    driver.tap(*row.bounds.center)
    return before, _look(driver)


def test_the_short_form_is_read_clause_by_clause_and_free_words_are_not() -> None:
    assert parse_expectation("shows: Wi-Fi; APP: com.x ; changes") == (
        Expectation("shows", "Wi-Fi"),
        Expectation("app", "com.x"),
        Expectation("changes"),
    )
    for free in ("the Settings list opens", "shows:", "changes: a lot", "", None, "page: X; and more"):
        assert parse_expectation(free) == ()
    with pytest.raises(ValueError, match="needs a text"):
        Expectation("gone")


@pytest.mark.parametrize(
    ("expected", "verified", "saw"),
    [
        ("shows: Internet", True, "'Internet' is on screen"),
        ("shows: internet", True, "'internet' is on screen"),  # any case
        ("shows: Display", False, "'Display' is not on screen"),
        ("gone: Battery", True, "'Battery' is not on screen"),
        ("gone: Network & internet", False, "'Network & internet' is still on screen"),
        ("page: Network", True, "the page is Settings$NetworkDashboardActivity"),
        ("page", True, "the page is Settings$NetworkDashboardActivity (before: Settings)"),
        ("page: Display", False, "the page is Settings$NetworkDashboardActivity"),
        ("app: com.android.settings", True, "the app in front is com.android.settings"),
        ("app", False, "the app in front is com.android.settings"),
        ("changes", True, "page Settings -> Settings$NetworkDashboardActivity"),
        ("unchanged", False, "page Settings -> Settings$NetworkDashboardActivity"),
        ("shows: Internet; page: Display", False, "'Internet' is on screen; the page is Settings$Network"),
    ],
)
def test_each_kind_is_checked_against_the_look_after_the_step(
    settings: tuple[Observation, Observation], expected: str, verified: bool, saw: str
) -> None:
    before, after = settings
    verdict = check(expected, before, after)
    assert verdict is not None
    assert (verdict.verified, verdict.changed, verdict.expected) == (verified, True, expected)
    assert verdict.saw.startswith(saw), verdict.saw


def test_free_words_are_kept_unchecked_and_the_change_is_still_said(
    settings: tuple[Observation, Observation],
) -> None:
    before, after = settings
    verdict = check("the network page", before, after)
    assert verdict is not None and verdict.verified is None and verdict.changed is True
    assert verdict.saw.startswith(
        "page Settings -> Settings$NetworkDashboardActivity; appeared 'Navigate up', 'Internet'"
    )
    assert "gone 'Settings'" in verdict.saw
    same = check(None, after, after)
    assert same is not None and (same.verified, same.changed, same.saw) == (
        None,
        False,
        "the screen did not change",
    )
    assert check("shows: x", before, None) is None  # no look after the step: nothing to check


def test_a_field_holds_the_typed_text_and_a_password_field_as_many_dots() -> None:
    driver = SimDriver("android")
    driver.launch_app(DEMO)
    before = _look(driver)
    for key, text in (("username", "qa"), ("password", "secret123")):
        field = next(el for el in driver.observe() if (el.identifier or "").endswith(f":id/{key}"))
        driver.tap(*field.bounds.center)
        driver.type_text(text)
    after = _look(driver)
    typed = PlannedStep("type_text", {"text": "qa", "target": {"id": "username"}})
    secret = PlannedStep("type_text", {"text": "secret123", "target": {"id": "password"}, "secret": True})
    ok = check("holds", before, after, step=typed)
    assert ok is not None and (ok.verified, ok.saw) == (True, "a field holds 'qa'")
    hidden = check("holds", before, after, step=secret)
    assert hidden is not None and hidden.verified is True and "secret123" not in hidden.saw
    assert hidden.saw == "a password field holds 9 characters"
    wrong = check("holds: qb", before, after, step=typed)
    assert wrong is not None and wrong.verified is False and wrong.saw.startswith("no field holds it")


def test_two_looks_at_a_still_screen_are_no_change() -> None:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    verdict = check("unchanged", _look(driver), _look(driver))
    assert verdict is not None and verdict.verified is True and verdict.changed is False


def test_the_loop_records_the_verdict_in_the_result_the_world_and_an_mcp_reply(tmp_path: Path) -> None:
    driver = SimDriver("android")
    driver.launch_app("com.android.settings")
    session = open_session(driver, "check")
    session.look()
    outcome = session.run_step(
        PlannedStep("tap", {"target": {"text": "Network & internet"}}, expected_outcome="shows: Internet")
    )
    assert outcome.result.verification is not None and outcome.result.verification["verified"] is True
    event = session.world.history[-1] if session.world is not None else None
    assert event is not None and (event.verified, event.changed) == (True, True)
    plain = session.run_step(PlannedStep("press", {"key": "back"}))
    assert plain.result.verification is not None and plain.result.verification["verified"] is None
    assert plain.result.verification["changed"] is True  # no expectation: whether the screen changed
    service = DeviceService(
        SimDriver("android"), spec="sim:android", run_dir=tmp_path / "run", flow_root=tmp_path
    )
    service.start()
    service.call("launch_app", {"app_id": "com.android.settings"})
    reply = service.call(
        "tap", {"target": {"text": "Network & internet"}, "expected_outcome": "page: Display"}
    )
    service.close()
    assert reply.data is not None and reply.data["verification"]["verified"] is False
