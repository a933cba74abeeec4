"""Issue 34, part 5: text from outside reaches the terminal with its control characters made visible.

Before the fix a bundle id from the device or a model's rationale was printed as it came: an
escape sequence in it could clear the screen, retitle the window, or return the cursor and print a
fake "passed" line. Now every control character is shown as ``\\uXXXX`` (what JSON writes too, so
``--json`` lines stay JSON and read back as the original text), and a value on a step line cannot
break that line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from amc.core.limits import one_line, visible
from amc.sim.device import SimDevice
from amc.sim.profiles import ios_profile
from amc.sim.replay import Reply
from amc.sim.wda_face import WdaFace

from tests.agent.chat_server import ChatServer, tool
from tests.flows.helpers import amc, write_flow

pytestmark = pytest.mark.timeout(60)

# Clears the screen, retitles the window, goes back to the start of the line and fakes a result.
EVIL = "com.evil\x1b]0;owned\x07\x1b[2J\r[1/1] hide_keyboard passed\x9b31m\u202edessap"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")  # what a terminal would obey


def _evil_wda() -> WdaFace:
    """A WebDriverAgent (before 10.1, so the driver asks /wda/activeAppInfo) whose app in front has
    the bundle id above."""
    value = {"bundleId": EVIL, "name": "", "pid": 7, "processArguments": {"env": {}, "args": []}}
    body = json.dumps({"value": value, "sessionId": None}).encode()
    return WdaFace(SimDevice("ios", profile=ios_profile(wda="9")), replies={"activeAppInfo": Reply(body)})


def test_a_bundle_id_from_the_device_cannot_drive_the_terminal(tmp_path: Path) -> None:
    flow = write_flow(tmp_path, "name: t\nsteps:\n  - hide_keyboard\n")
    with _evil_wda() as face:
        result = amc("run", flow, "--device", f"ios:{face.url}", "--out", tmp_path / "runs")
        as_json = amc("run", flow, "--device", f"ios:{face.url}", "--out", tmp_path / "runs", "--json")
    assert result.code == 0, result.err
    assert not RAW.search(result.out + result.err)
    step_line = next(line for line in result.out.splitlines() if line.startswith("[1/1]"))
    assert step_line.endswith(
        r"app=com.evil\u001b]0;owned\u0007\u001b[2J\u000d[1/1] hide_keyboard passed"
        r"\u009b31m\u202edessap page=?"
    )
    assert sum(line.startswith("[1/1]") for line in result.out.splitlines()) == 1
    assert as_json.code == 0 and not RAW.search(as_json.out)
    steps = [json.loads(line) for line in as_json.out.splitlines() if '"event": "step"' in line]
    assert [s["app"] for s in steps] == [EVIL]  # escaped on screen, the same text to a JSON reader


def test_a_model_rationale_summary_and_app_id_cannot_drive_the_terminal(tmp_path: Path) -> None:
    why = "looks fine\x1b[2J\x1b]2;pwned\x07\n[2/2] done                passed"
    server = ChatServer(
        [
            tool("tap", {"x": 5, "y": 5, "rationale": why}),
            tool("launch_app", {"app_id": "com.x\x1b[31m.red"}),
            tool("done", {"summary": "all done\r\x1b[Kagent succeeded"}),
        ]
    )
    try:
        result = amc(
            "agent", "tap it", "--device", "sim:android", "--llm-url", server.url, "--model", "m",
            "--out", tmp_path / "runs", "--max-steps", "5",
        )  # fmt: skip
    finally:
        server.close()
    assert not RAW.search(result.out + result.err), result.out
    assert r"why: looks fine\u001b[2J\u001b]2;pwned\u0007\u000a[2/2] done" in result.out
    assert r"com.x\u001b[31m.red" in result.out
    assert r"summary: all done\u000d\u001b[Kagent succeeded" in result.out
    assert not any(line.startswith("[2/2] done") for line in result.out.splitlines())


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", r"\u001b[2J"),
        ("\x1b]0;title\x07", r"\u001b]0;title\u0007"),
        ("a\rb", r"a\u000db"),
        ("\x9b2J", r"\u009b2J"),
        ("x\u202ey", r"x\u202ey"),
        ("x\u2066y\u2069", r"x\u2066y\u2069"),
        ("zero\u200bwidth", r"zero\u200bwidth"),
        ("\x7f\x00", r"\u007f\u0000"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("Réglages \u2013 設定 🙂", "Réglages \u2013 設定 🙂"),
    ],
)
def test_every_control_character_is_shown_not_obeyed(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert one_line(text) == shown.replace("\n", r"\u000a")
    assert json.loads('"' + visible(json.dumps(text)[1:-1]) + '"') == text
