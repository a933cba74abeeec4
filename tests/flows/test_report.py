"""The HTML report: failures first, each step with its evidence, hostile UI text escaped, no server needed."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from amc.connect.simulated import SimDriver
from amc.flows import FlowPlanner, parse_flow
from amc.runtime.recording import TimelineRecorder
from amc.runtime.task import TaskRunner
from amc.sim import SimDevice
from amc.sim.catalog import AppSpec, Screen, Widget
from amc.storage.report import render_html, render_report
from amc.storage.timeline import TIMELINE_FILE, RunInfo, TimelineWriter, read_timeline

from tests.browser import CHROMIUM, need_browser

HOSTILE = '<script>alert("pwned")</script><img src=x onerror=alert(1)>'
APP = "com.example.hostile"


def _hostile_device() -> SimDriver:
    screen = Screen(
        "main",
        "Inbox",
        (Widget("text", "subject", HOSTILE), Widget("button", "ok", "OK")),
        activity=f"{APP}.MainActivity",
    )
    device = SimDevice("android", apps={APP: AppSpec(APP, "Hostile", "main", {"main": screen})})
    return SimDriver("android", device=device)


def _run(run_dir: Path, text: str, driver: SimDriver) -> None:
    flow = parse_flow(text, environ={})
    writer = TimelineWriter(run_dir)
    writer.start(RunInfo(flow.name, "goal", driver.device_id, driver.platform, driver.backend, "sim:android"))
    result = TaskRunner(
        driver, FlowPlanner(flow, driver.platform), listeners=[TimelineRecorder(writer, driver)]
    ).run("goal")
    writer.finish(
        result.status.value, duration=result.duration, error=result.error, error_kind=result.error_kind
    )


HOSTILE_FLOW = f"""
name: '<b>inbox</b> & "quotes"'
steps:
  - launch_app: {APP}
  - assert_visible: {{text_contains: "<script>", timeout: 0}}
  - screenshot: inbox
  - assert_visible: {{text: 'missing </div><h1>injected</h1>', timeout: 0}}
"""


def test_failures_come_first_and_every_step_has_its_evidence(tmp_path: Path) -> None:
    _run(tmp_path, HOSTILE_FLOW, _hostile_device())
    html = render_report(tmp_path).read_text(encoding="utf-8")
    assert html.index("<h2>Failures</h2>") < html.index("<h2>All steps</h2>")
    failures = html[html.index("<h2>Failures</h2>") : html.index("<h2>All steps</h2>")]
    assert failures.count('<section class="step failed"') == 1 and "#4" in failures
    assert '<img src="step-004.png"' in failures  # taken when the step failed
    steps = html[html.index("<h2>All steps</h2>") :]
    assert [int(n) for n in re.findall(r'id="step-(\d+)"', steps)] == [1, 2, 3, 4]
    assert '<img src="inbox.png"' in steps and '<a href="step-001-source.xml">page source</a>' in steps
    assert "4 run: 3 passed, 1 failed, 0 skipped" in html
    assert "World state" in html and "&#34;current_app&#34;: &#34;com.example.hostile&#34;" in html


def test_hostile_ui_text_and_names_are_escaped(tmp_path: Path) -> None:
    _run(tmp_path, HOSTILE_FLOW, _hostile_device())
    html = render_html(read_timeline(tmp_path))
    assert "<script" not in html.lower()
    assert "<img src=x" not in html and "<h1>injected" not in html and "<b>inbox" not in html
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;b&gt;inbox&lt;/b&gt; &amp; &#34;quotes&#34;" in html


def test_file_names_from_a_tampered_timeline_are_not_linked(tmp_path: Path) -> None:
    _run(tmp_path, HOSTILE_FLOW, _hostile_device())
    path = tmp_path / TIMELINE_FILE
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[3]["files"] = {"screenshot": "javascript:alert(1)", "source": "../../etc/passwd"}
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    html = render_html(read_timeline(tmp_path))
    assert "javascript:" not in html and "../../etc/passwd" not in html


def test_an_unfinished_run_still_gets_a_report_that_says_so(tmp_path: Path) -> None:
    _run(tmp_path, HOSTILE_FLOW, _hostile_device())
    lines = (tmp_path / TIMELINE_FILE).read_bytes().splitlines(keepends=True)
    (tmp_path / TIMELINE_FILE).write_bytes(b"".join(lines[:3]) + lines[3][:20])
    html = render_html(read_timeline(tmp_path))
    assert "This run did not finish" in html and "after step 2" in html
    assert "was cut off mid-write" in html
    assert '<span class="badge failed">failed</span> <span class="reason">did not finish</span>' in html


def test_the_report_renders_in_a_real_headless_browser_without_injected_markup(tmp_path: Path) -> None:
    need_browser(CHROMIUM)
    run_dir = tmp_path / "run"
    _run(run_dir, HOSTILE_FLOW, _hostile_device())
    report = render_report(run_dir)
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "<h2>Failures</h2>" in dom and 'id="step-4"' in dom  # the browser parsed the whole page
    assert "<script" not in dom.lower() and "<h1>injected" not in dom
    assert "onerror" not in re.sub(r"&lt;img src=x onerror=alert\(1\)&gt;", "", dom)
    assert '&lt;script&gt;alert("pwned")&lt;/script&gt;' in dom  # shown as text
    # the step cards' pictures (the filmstrip above them shows each file once more)
    assert dom.count('alt="step ') == 3 and 'src="inbox.png"' in dom  # `screenshot: inbox`, under its name


PROMPT_FLOW = """
name: notes asks for notifications
steps:
  - launch_app: com.example.amc.notes
  - assert_visible: Allow
  - tap: Allow
  - assert_visible: Trip
"""


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_dialog_over_the_app_is_named_in_the_steps_it_covered(tmp_path: Path, platform: str) -> None:
    _run(tmp_path, PROMPT_FLOW, SimDriver("android" if platform == "android" else "ios"))
    records = read_timeline(tmp_path).steps
    assert [r["status"] for r in records] == ["passed"] * 4
    overlays = [r["world"]["overlay"] for r in records]
    assert overlays[0] is not None and overlays[0] == overlays[1] and overlays[2:] == [None, None]
    html = render_report(tmp_path).read_text(encoding="utf-8")
    assert html.count('covered by <span class="overlay">') == 2
    assert "otifications" in html.split('covered by <span class="overlay">', 1)[1].split("</span>", 1)[0]


def test_warnings_and_retried_steps_are_listed_before_all_steps(tmp_path: Path) -> None:
    text = f"""
name: tolerant
steps:
  - launch_app: {APP}
  - assert_visible: {{text: Not here, timeout: 0}}
    optional: true
  - retry:
      times: 1
      steps:
        - assert_visible: {{text: Not here either, timeout: 0}}
    optional: true
"""
    _run(tmp_path, text, _hostile_device())
    html = render_report(tmp_path).read_text(encoding="utf-8")
    assert read_timeline(tmp_path).status == "succeeded"
    assert "1 passed, 0 failed, 0 skipped, 2 warning, 1 retried" in html
    noticed = html[html.index("<h2>Warnings and retried steps</h2>") : html.index("<h2>All steps</h2>")]
    assert [int(n) for n in re.findall(r'href="#step-(\d+)"', noticed)] == [2, 3, 4]
    assert "<h2>Failures</h2>" not in html
