"""The smaller faults issue 39 found, each as a user meets it: a named screenshot's file, YAML
comments in a step's text, a Maestro launchApp's expectation, where an unclosed quote is reported,
a hint in the flow's own words, and an openLink whose filled link holds spaces."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.storage.timeline import read_timeline

from ..helpers import amc, write_flow

SPEC = "sim:android?timing=instant"


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _run(tmp_path: Path, text: str, spec: str = SPEC) -> tuple[int, str, Path]:
    flow = write_flow(tmp_path, text, "flow.yaml")
    result = amc("run", flow, "--device", spec, "--out", tmp_path / "runs")
    run_dir = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    return result.code, result.out + result.err, run_dir


FLOW = """
appId: com.example.amc.demo
---
- launchApp:   # start fresh
    stopApp: true  # the app is stopped first
- takeScreenshot: login_page
- tapOn: "Username"  # the user field
"""


@pytest.mark.parametrize("spec", [SPEC, "sim:ios?timing=instant", "sim+adb:android?timing=instant"])
def test_take_screenshot_keeps_the_picture_under_its_name(spec: str, tmp_path: Path) -> None:
    code, out, run_dir = _run(tmp_path, FLOW, spec)
    assert code == 0, out
    # named as Maestro names it; the suffix says what the picture is (uiautomator2 sends a JPEG)
    picture = "login_page.jpg" if "adb" in spec else "login_page.png"
    assert (run_dir / picture).is_file() and not list(run_dir.glob("step-002.*g"))
    steps = read_timeline(run_dir).steps
    assert steps[1]["files"]["screenshot"] == picture
    assert f'<img src="{picture}"' in (run_dir / "report.html").read_text(encoding="utf-8")


def test_yaml_comments_stay_out_of_the_steps_text(tmp_path: Path) -> None:
    code, out, run_dir = _run(tmp_path, FLOW)
    assert code == 0, out
    assert "#" not in out, out
    report = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "start fresh" not in report and "the user field" not in report
    assert "`launchApp: stopApp: true`" in read_timeline(run_dir).steps[0]["step"]["rationale"]


def test_a_maestro_launch_app_expects_its_app_in_front(tmp_path: Path) -> None:
    _code, _out, run_dir = _run(tmp_path, FLOW)
    first = read_timeline(run_dir).steps[0]
    assert first["step"]["expected_outcome"] == "com.example.amc.demo is in the foreground"
    assert "None is in the foreground" not in (run_dir / "report.html").read_text(encoding="utf-8")


def test_an_unclosed_quote_is_reported_where_it_opens(tmp_path: Path) -> None:
    flow = write_flow(tmp_path, 'appId: x\n---\n- launchApp\n- tapOn: "Sign in\n- back\n- back\n')
    result = amc("check", flow)
    assert result.code == 2
    assert f"{flow}:4:10: not valid YAML" in result.out, result.out


def test_a_maestro_hint_names_maestros_option(tmp_path: Path) -> None:
    text = (
        "appId: com.example.amc.demo\n---\n- launchApp\n"
        '- scrollUntilVisible:\n    element: "Nothing"\n    timeout: 500\n'
    )
    code, out, _ = _run(tmp_path, text)
    assert code == 1
    assert "max_swipes" not in out and "raise `timeout`, check the direction" in out
    ours = tmp_path / "ours"
    ours.mkdir()
    amc_flow = (
        "steps:\n  - launch_app: com.example.amc.demo\n"
        "  - scroll_until_visible: {target: Nothing, timeout: 0.5}\n"
    )
    code, out, _ = _run(ours, amc_flow)
    assert code == 1 and "raise `timeout` or `max_swipes`" in out  # the project's own spelling


LINK = """
appId: com.example.amc.demo
env:
  PHRASE: one two three
  NAME: my wallet
---
- openLink: amcdemo://login?key=${PHRASE}&name=${NAME}
"""


@pytest.mark.parametrize("spec", [SPEC, "sim+adb:android?timing=instant"])
def test_an_open_link_with_spaces_is_handed_to_the_device_with_a_warning(spec: str, tmp_path: Path) -> None:
    code, out, run_dir = _run(tmp_path, LINK, spec)
    assert code == 0, out
    assert read_timeline(run_dir).steps[0]["status"] == "passed"
    check = amc("check", tmp_path / "flow.yaml")
    assert check.code == 0 and "the link holds spaces" in check.out


BEHIND_THE_DIALOG = """
appId: com.example.amc.demo
---
- launchApp
- tapOn: "Username"
- inputText: qa
- tapOn: "Password"
- inputText: wrong
- tapOn: "Sign in"
- assertVisible: "Sign-in failed"
- tapOn: "Password"      # behind the dialog: on a phone the dialog takes the touch
- eraseText: 20
- inputText: secret123
- tapOn: "OK"
- tapOn: "Sign in"
- extendedWaitUntil:
    visible: "Signed in as qa"
    timeout: 1000
"""


@pytest.mark.parametrize("spec", [SPEC, "sim:ios?timing=instant", "sim+adb:android?timing=instant"])
def test_a_tap_behind_a_modal_dialog_does_not_reach_the_field(spec: str, tmp_path: Path) -> None:
    code, out, run_dir = _run(tmp_path, BEHIND_THE_DIALOG, spec)
    # as on a phone: the field behind the dialog never took the tap, so the new password never
    # replaced the wrong one (or found no field to go to) and the sign-in fails again
    assert code == 1, out
    steps = read_timeline(run_dir).steps
    failed = next(i for i, s in enumerate(steps) if s["status"] == "failed")
    assert failed > 7, [s["status"] for s in steps]  # after the tap behind the dialog (step 8)


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_simulated_phone_gives_a_tap_behind_a_dialog_to_nothing(platform: str) -> None:
    from amc.connect.simulated import SimDriver
    from amc.core.selectors import Selector, tap_point

    driver = SimDriver(platform)  # type: ignore[arg-type]

    def tap(text: str) -> None:
        scene = driver.observe()
        element = scene.find(Selector(text=text))
        assert element is not None, scene.texts()
        driver.tap(*tap_point(element, scene.window))

    driver.launch_app("com.example.amc.demo")
    user_field = driver.observe().find(Selector(text="Username"))
    assert user_field is not None
    tap("Password")
    driver.type_text("wrong")
    tap("Sign in")
    assert "Sign-in failed" in driver.observe().texts()
    driver.tap(*tap_point(user_field, driver.observe().window))  # behind the dialog
    assert "Sign-in failed" in driver.observe().texts()  # the dialog is still up
    tap("OK")
    driver.type_text("typed")
    assert "typed" not in driver.observe().texts()  # the user field never took the focus
