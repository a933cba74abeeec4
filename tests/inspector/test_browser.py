"""The inspector in a real headless Chromium: on every kind of simulated device the page shows the
elements, a click in the picture gives selectors the flow loader accepts that find that element
alone, and a flow recorded from the page replays with `amc run`."""

from __future__ import annotations

import os
import select
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amc.connect.simulated import SimDriver
from amc.core.models import UIElement
from amc.core.selectors import Selector
from amc.drivers.connect import connect
from amc.flows import load_flow, parse_flow
from amc.inspector import InspectorServer, InspectorSession
from amc.sim import DEMO_APP, DEMO_PASSWORD, DEMO_USER, SimDevice
from amc.sim.catalog import AppSpec, Screen, Widget
from amc.storage.timeline import read_timeline

from tests.browser import chromium
from tests.flows.helpers import amc, amc_command

SPECS = ["sim:android", "sim:ios", "sim+adb:android", "sim+wda:ios", "sim+appium:android", "sim+appium:ios"]
SETTINGS = {"android": ("com.android.settings", "Display"), "ios": ("com.apple.Preferences", "General")}
WAIT = 15


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


def _wait(browser: Any, check: Any, what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, WAIT).until(lambda b: check(b), message=what)


def _tree_buttons(browser: Any) -> list[Any]:
    return list(browser.find_elements("css selector", "#tree button"))


def _click_in_picture(browser: Any, element: UIElement, window: tuple[int, int]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    picture = browser.find_element("id", "picture")
    _wait(browser, lambda b: b.execute_script("return arguments[0].naturalWidth", picture) > 0, "the picture")
    width, height = picture.size["width"], picture.size["height"]
    x, y = element.bounds.center
    offset_x = x / window[0] * width - width / 2
    offset_y = y / window[1] * height - height / 2
    ActionChains(browser).move_to_element_with_offset(
        picture, round(offset_x), round(offset_y)
    ).click().perform()


@pytest.mark.parametrize("spec", SPECS)
def test_a_click_in_the_picture_shows_selectors_that_find_that_element_alone(browser: Any, spec: str) -> None:
    platform = spec.rsplit(":", 1)[1]
    app, text = SETTINGS[platform]
    driver = connect(spec)
    try:
        driver.launch_app(app)
        session = InspectorSession(driver)
        with InspectorServer(session) as server:
            browser.get(server.url)
            snapshot = session.latest()
            _wait(browser, lambda b: len(_tree_buttons(b)) == len(snapshot.elements), "the element tree")
            shown = [b.text for b in _tree_buttons(browser)]
            assert any(f'"{text}"' in line for line in shown)
            (target,) = [
                el for el in snapshot.elements if el.visible and el.display_text == text and not el.children
            ]
            _click_in_picture(browser, target, snapshot.scene.window_size)
            _wait(browser, lambda b: b.find_elements("css selector", "#selectors code.selector"), "selectors")
            offered = [c.text for c in browser.find_elements("css selector", "#selectors code.selector")]
            assert offered and offered[-1].startswith("{xpath:")
            for written in offered:
                flow = parse_flow(f"steps:\n  - tap: {written}\n", environ={})
                found = Selector.from_mapping(flow.steps[0].args["target"]).find_all(snapshot.scene)
                assert len(found) == 1 and found[0] is target, written
            selected = browser.find_element("css selector", "#tree button.selected").text
            assert f'"{text}"' in selected
            # The outline of the selected element is drawn over the picture.
            assert browser.find_elements("css selector", "#overlay .box.selected")
            assert session.latest().version == snapshot.version  # looking changed nothing
    finally:
        driver.close()


def _start_recording(tmp_path: Path, spec: str) -> tuple[subprocess.Popen[str], str, Path]:
    flow = tmp_path / "recorded.yaml"
    command = [
        *amc_command(),
        "inspect",
        "--serve",
        "--device",
        spec,
        "--app",
        DEMO_APP,
        "--record",
        str(flow),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 30)
    line = process.stdout.readline() if ready else ""
    if not line.startswith("inspector: http://127.0.0.1:"):
        process.kill()
        raise AssertionError(
            f"no inspector address: {line!r} {process.stderr.read() if process.stderr else ''}"
        )
    return process, line.split()[1], flow


def _screen(browser: Any) -> str:
    return str(browser.find_element("id", "device").text)


def _act(browser: Any, button: str) -> None:
    before = _screen(browser)
    browser.find_element("id", button).click()
    _wait(
        browser,
        lambda b: _screen(b) != before and not b.find_element("id", "status").text,
        f"{button} to finish",
    )
    assert browser.find_element("id", "error").get_attribute("hidden") is not None, browser.find_element(
        "id", "error"
    ).text


def _select(browser: Any, words: str) -> None:
    (button,) = [b for b in _tree_buttons(browser) if words in b.text]
    button.click()
    _wait(
        browser,
        lambda b: (
            b.find_element("id", "detail").is_displayed()
            and b.find_elements("css selector", "#selectors code.selector")
        ),
        f"{words} selected",
    )


@pytest.mark.parametrize("spec", ["sim:android", "sim+wda:ios"])
def test_three_actions_recorded_in_the_browser_replay_with_amc_run(
    browser: Any, tmp_path: Path, spec: str
) -> None:
    process, url, flow = _start_recording(tmp_path, spec)
    try:
        browser.get(url)
        _wait(browser, lambda b: any("id=username" in x.text for x in _tree_buttons(b)), "the login screen")
        _select(browser, "id=username")
        browser.find_element("id", "text").send_keys(DEMO_USER)
        _act(browser, "type")
        _select(browser, "id=password")
        browser.find_element("id", "text").send_keys(DEMO_PASSWORD)
        _act(browser, "type")
        _select(browser, '"Sign in"')
        _act(browser, "tap")
        assert any(f"Signed in as {DEMO_USER}" in b.text for b in _tree_buttons(browser))
        draft = browser.find_element("id", "draft").text
        assert browser.find_element("id", "draft-steps").text == "4"
        assert DEMO_PASSWORD not in draft and "${PASSWORD}" in draft
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert f"recorded 4 steps to {flow}" in out
    assert DEMO_PASSWORD not in flow.read_text()  # the secret is a variable the replay is given
    recorded = load_flow(flow, environ={"PASSWORD": DEMO_PASSWORD})
    assert [s.command for s in recorded.steps] == ["launch_app", "type_text", "type_text", "tap"]
    assert recorded.steps[1].args == {
        "text": DEMO_USER,
        "target": {"id": "username", "visible": True},
        "timeout": 10.0,  # the loader's wait for a step's target
    }
    assert recorded.steps[2].secret and recorded.steps[3].args["target"] == {
        "text": "Sign in",
        "visible": True,
    }
    # Replayed on the same kind of device by `amc run`: every step passes and ends signed in.
    replay = amc(
        "run", flow, "--device", spec, "--out", tmp_path / "runs", "--env", f"PASSWORD={DEMO_PASSWORD}"
    )
    assert replay.code == 0, replay.out + replay.err
    (run_dir,) = (tmp_path / "runs").iterdir()
    timeline = read_timeline(run_dir)
    assert [s["status"] for s in timeline.steps] == ["passed"] * 4
    assert f"Signed in as {DEMO_USER}" in timeline.steps[-1]["scene"]["texts"]


HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


def test_hostile_text_on_the_device_is_shown_as_text_and_never_runs(browser: Any) -> None:
    app = "com.example.hostile"
    screen = Screen("main", HOSTILE, (Widget("text", "subject", HOSTILE), Widget("button", "ok", "OK")))
    device = SimDevice("android", apps={app: AppSpec(app, "Hostile", "main", {"main": screen})})
    driver = SimDriver("android", device=device)
    driver.launch_app(app)
    session = InspectorSession(driver)
    with InspectorServer(session) as server:
        browser.get(server.url)
        _wait(browser, lambda b: len(_tree_buttons(b)) == len(session.latest().elements), "the element tree")
        (subject,) = [b for b in _tree_buttons(browser) if "id=subject" in b.text]
        subject.click()
        _wait(browser, lambda b: b.find_elements("css selector", "#selectors code.selector"), "selectors")
        assert browser.execute_script("return window.pwned") is None
        assert len(browser.find_elements("css selector", "img")) == 1  # the screenshot only
        assert not browser.find_elements("css selector", "main script, #tree script, #detail script")
        cells = [c.text for c in browser.find_elements("css selector", "#attributes td")]
        assert HOSTILE in cells
