"""`amc run --screenshots failure|always|never` and the report's thumbnails with the element outlined."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.storage.report import render_html, render_report
from amc.storage.report_views import acted_on, summarize
from amc.storage.timeline import TIMELINE_FILE, read_timeline
from PIL import Image

from tests.browser import chromium

from .helpers import EXAMPLES, amc, write_flow


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _run(out: Path, flow: Path, *options: str) -> Path:
    result = amc("run", flow, "--out", out, *options)
    assert result.code in (0, 1), result.err
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir


def _pictures(run_dir: Path) -> list[str]:
    return sorted(p.name for p in run_dir.iterdir() if re.fullmatch(r"step-\d{3}\.(png|jpg)", p.name))


def test_always_keeps_one_picture_per_executed_step_and_the_timeline_names_each(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, EXAMPLES / "settings_android.yaml", "--screenshots", "always")
    timeline = read_timeline(run_dir)
    assert len(timeline.steps) == 16
    names = [step["files"].get("screenshot") for step in timeline.steps]
    # step 14 is `screenshot: about-phone`: its picture keeps its name
    assert names == [f"step-{n:03d}.png" if n != 14 else "about-phone.png" for n in range(1, 17)]
    assert _pictures(run_dir) == [name for name in names if name.startswith("step-")]
    assert (run_dir / "about-phone.png").is_file()
    # Each is the screen after its step: the first shows Settings, the last the home screen.
    first = Image.open(run_dir / "step-001.png")
    assert first.size == (1080, 2400)
    assert Image.open(run_dir / "step-004.png").tobytes() != first.tobytes()  # Network & internet


def test_failure_keeps_the_failed_steps_picture_and_never_keeps_none(tmp_path: Path) -> None:
    failing = EXAMPLES / "demo_login_fails.yaml"
    default = _run(tmp_path / "default", failing)
    assert _pictures(default) == ["step-005.png"]  # the screen the assert failed on
    never = _run(tmp_path / "never", failing, "--screenshots", "never")
    assert _pictures(never) == []
    screenshot_step = _run(tmp_path / "passing", EXAMPLES / "settings_android.yaml", "--screenshots", "never")
    assert _pictures(screenshot_step) == []  # a `screenshot:` step keeps its own picture, by its name
    assert (screenshot_step / "about-phone.png").is_file()


def test_a_bad_policy_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = amc("run", EXAMPLES / "settings_android.yaml", "--screenshots", "sometimes", "--out", tmp_path)
    assert result.code == 2 and "invalid choice: 'sometimes'" in capsys.readouterr().err
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


LOGIN = """
name: login-outlined
steps:
  - launch_app: com.example.amc.demo
  - type_text: {text: qa, target: {id: username}}
  - tap: {id: sign_in}
  - assert_visible: {text: Signed in as qa, timeout: 0}
"""


def _login_run(tmp_path: Path) -> Path:
    return _run(tmp_path / "runs", write_flow(tmp_path, LOGIN), "--screenshots", "always")


def test_the_report_outlines_the_element_a_step_acted_on_on_the_screen_it_acted_on(tmp_path: Path) -> None:
    run_dir = _login_run(tmp_path)
    timeline = read_timeline(run_dir)
    tap = timeline.steps[2]["result"]["output"]
    sign_in = tap["bounds"]
    assert tap["window"] == [1080, 2400] and sign_in["left"] < tap["x"] < sign_in["right"]
    html = render_report(run_dir).read_text(encoding="utf-8")
    start = html.index('id="step-3"')
    card = html[start : html.index('id="step-4"', start)]
    # Before: the picture after step 2 (the screen the tap's selector was resolved on), outlined.
    before, after = re.findall(r'<img src="(step-\d{3}\.png)"', card)
    assert (before, after) == ("step-002.png", "step-003.png")
    style = re.search(r'<span class="outline" style="([^"]+)"', card)
    assert style is not None
    expected = (
        f"left:{100 * sign_in['left'] / 1080:.3f}%;top:{100 * sign_in['top'] / 2400:.3f}%;"
        f"width:{100 * (sign_in['right'] - sign_in['left']) / 1080:.3f}%;"
        f"height:{100 * (sign_in['bottom'] - sign_in['top']) / 2400:.3f}%"
    )
    assert style.group(1) == expected
    assert card.count('class="outline"') == 1
    # The failed step's screen texts are open, the passed steps' collapsed.
    # (step 4 shows twice: under Failures and under All steps)
    assert html.count('<details class="texts" open>') == 2
    assert html.count('<details class="texts">') == 3
    assert html.index('<details class="texts" open>') > html.index("<h2>Failures</h2>")


def test_one_status_word_for_runs_and_steps(tmp_path: Path) -> None:
    run_dir = _login_run(tmp_path)
    html = render_html(read_timeline(run_dir))
    assert '<span class="badge failed">failed</span>' in html
    assert "succeeded" not in html and "device_error" not in html
    passed = _run(tmp_path / "ok", EXAMPLES / "settings_android.yaml")
    assert '<h1>settings-android <span class="badge passed">passed</span></h1>' in render_html(
        read_timeline(passed)
    )


@pytest.mark.parametrize(
    "output",
    [
        None,
        {"bounds": {"left": 0, "top": 0, "right": 10, "bottom": 10}},
        {"bounds": {"left": 0, "top": 0, "right": 10, "bottom": 10}, "window": [0, 100]},
        {"bounds": {"left": "0", "top": 0, "right": 10, "bottom": 10}, "window": [100, 100]},
        {"bounds": {"left": 50, "top": 0, "right": 10, "bottom": 10}, "window": [100, 100]},
        {"bounds": {"left": 0, "top": 0, "right": float("nan"), "bottom": 10}, "window": [100, 100]},
        {"bounds": {"left": 200, "top": 200, "right": 300, "bottom": 300}, "window": [100, 100]},
        {"bounds": [0, 0, 10, 10], "window": [100, 100]},
    ],
)
def test_a_tampered_or_missing_element_record_draws_no_outline(output: object) -> None:
    assert acted_on(output) is None


def test_an_element_partly_off_screen_is_outlined_where_it_shows() -> None:
    outline = acted_on({"bounds": {"left": -10, "top": 90, "right": 50, "bottom": 120}, "window": [100, 100]})
    assert outline is not None and (outline.left, outline.top, outline.width, outline.height) == (
        0,
        90,
        50,
        10,
    )


def test_a_page_listing_runs_gets_each_runs_verdict_and_link(tmp_path: Path) -> None:
    run_dir = _login_run(tmp_path)
    line = summarize(run_dir, relative_to=tmp_path)
    assert (line.flow, line.verdict, line.reason) == ("login-outlined", "failed", None)
    assert line.report == f"runs/{run_dir.name}/report.html"
    assert line.picture == f"runs/{run_dir.name}/step-004.png"
    assert line.failure is not None and line.failure.startswith("step 4 assert_visible: AssertionFailed")
    assert dict(line.counts) == {"passed": 3, "failed": 1}
    # A report links back to the index above its folder, once there is one.
    assert "all runs" not in render_report(run_dir).read_text(encoding="utf-8")
    (run_dir.parent / "index.html").write_text("<!DOCTYPE html>", encoding="utf-8")
    assert '<a href="../index.html">&larr; all runs</a>' in render_report(run_dir).read_text(encoding="utf-8")


def test_the_outline_is_drawn_over_the_element_in_a_real_browser(tmp_path: Path) -> None:
    run_dir = _login_run(tmp_path)
    report = render_report(run_dir)
    timeline = read_timeline(run_dir)
    bounds = timeline.steps[2]["result"]["output"]["bounds"]
    with chromium(tmp_path / "profile") as browser:
        browser.get(report.as_uri())
        card = browser.find_element("css selector", "main > section#step-3")
        image = card.find_element("css selector", "figure.shot img")
        assert (
            browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 1080
        )
        browser.execute_script("arguments[0].scrollIntoView()", image)
        shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
        box = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", image
        )
    left, top, width, height = box
    scale_x, scale_y = width / 1080, height / 2400

    def px(x: float, y: float) -> tuple[int, int, int]:
        return shot.getpixel((round(left + x * scale_x), round(top + y * scale_y)))  # type: ignore[return-value]

    def outline_red(colour: tuple[int, int, int]) -> bool:
        r, g, b = colour
        return r > 200 and g < 90 and 50 < b < 140

    mid_y = (bounds["top"] + bounds["bottom"]) / 2
    mid_x = (bounds["left"] + bounds["right"]) / 2
    # The outline's four sides sit on the element's edges (within the 3 px border).
    edges = [
        [px(bounds["left"] + d / scale_x, mid_y) for d in range(4)],
        [px(bounds["right"] - d / scale_x, mid_y) for d in range(1, 5)],
        [px(mid_x, bounds["top"] + d / scale_y) for d in range(4)],
        [px(mid_x, bounds["bottom"] - d / scale_y) for d in range(1, 5)],
    ]
    assert all(any(outline_red(c) for c in side) for side in edges), edges
    # Inside and outside it, the screenshot itself shows (no outline colour there).
    assert not outline_red(px(mid_x, mid_y))
    assert not outline_red(px(mid_x, bounds["top"] - 40))
    assert json.dumps(px(mid_x, mid_y)) != json.dumps(px(mid_x, bounds["top"] - 200))


def test_timeline_of_a_run_names_no_picture_it_does_not_hold(tmp_path: Path) -> None:
    run_dir = _login_run(tmp_path)
    for line in (run_dir / TIMELINE_FILE).read_text().splitlines():
        record = json.loads(line)
        name = (record.get("files") or {}).get("screenshot")
        if name:
            assert (run_dir / name).is_file()


def test_a_run_that_ended_with_a_device_error_is_failed_with_the_reason(tmp_path: Path) -> None:
    run_dir = _login_run(tmp_path)
    path = run_dir / TIMELINE_FILE
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[-1]["status"] = "device_error"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    html = render_html(read_timeline(run_dir))
    assert '<span class="badge failed">failed</span> <span class="reason">device error</span>' in html
    assert "device_error" not in html
