"""Secrets marked in a flow never appear in a run folder, its log, its report or the console."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from amc import connect as connect_module

from .helpers import EXAMPLES, amc, amc_command, run_files_text, write_flow

PASSWORD = "secret123"  # the demo app's real password: signing in proves it was typed
TOKEN = "Zq-t0ken-8841"

FLOW = """
name: secrets
steps:
  - launch_app: com.example.amc.demo
  - type_text: {text: qa, target: {id: username}}
  - type_text: {text: "${PASSWORD}", target: {id: password}, secret: true}
  - remember: {token: "${API_TOKEN}", secret: true}
  - tap: Sign in
  - wait_for: {text: Signed in as qa, timeout: 2}
  - screenshot: welcome
  # Fails on purpose: its error message names the selector, which holds the secret token.
  - assert_visible: {text: "token ${API_TOKEN}", timeout: 0}
"""


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


def _assert_nowhere(secrets: tuple[str, ...], texts: dict[str, bytes]) -> None:
    for name, data in texts.items():
        for secret in secrets:
            assert secret.encode() not in data, f"{secret!r} leaked into {name}"


def test_secrets_are_hidden_in_every_file_of_the_run_and_in_the_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PASSWORD", PASSWORD)
    monkeypatch.setenv("API_TOKEN", TOKEN)
    flow = write_flow(tmp_path, FLOW)
    out = tmp_path / "runs"
    human = amc("run", flow, "--out", out)
    as_json = amc("run", flow, "--out", out, "--json")
    assert human.code == 1 and as_json.code == 1  # the last assert fails, after signing in
    assert "[6/8] wait_for" in human.out and "[8/8] assert_visible" in human.out
    assert "text='token ***'" in human.out  # the failure is shown, the token is not

    run_dirs = sorted(out.iterdir())
    files = {f"{d.name}/{n}": data for d in run_dirs for n, data in run_files_text(d).items()}
    assert {name.split("/", 1)[1] for name in files} >= {
        "timeline.jsonl",
        "run.log",
        "report.html",
        "welcome.png",  # `screenshot: welcome`, kept under its name
    }
    # The places where the secrets would be: the typed step, the variable, the error, the log line.
    timeline = files[f"{run_dirs[0].name}/timeline.jsonl"].decode()
    assert (
        '"args":{"text":"***","target":{"id":"password","visible":true},"timeout":10.0,"secret":true}'
        in timeline
    )
    assert '"variables":{"token":"***"}' in timeline
    assert "token ***" in files[f"{run_dirs[0].name}/run.log"].decode()
    _assert_nowhere(
        (PASSWORD, TOKEN),
        {**files, "stdout": human.out.encode(), "stderr": human.err.encode(), "json": as_json.out.encode()},
    )


def test_secrets_stay_out_of_a_real_process_output(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PASSWORD": PASSWORD,
        "API_TOKEN": TOKEN,
        "ANDROID_ADB_SERVER_PORT": "1",
        "ANDROID_ADB_SERVER_HOST": "127.0.0.1",
    }
    flow = write_flow(tmp_path, FLOW)
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [
                *amc_command(),
                "run",
                str(flow),
                "--device",
                "sim:ios",
                "--out",
                str(tmp_path / "runs"),
                *extra,
            ],
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        _assert_nowhere((PASSWORD, TOKEN), {"stdout": done.stdout, "stderr": done.stderr})
    for run_dir in (tmp_path / "runs").iterdir():
        _assert_nowhere((PASSWORD, TOKEN), run_files_text(run_dir))


def test_the_demo_password_of_the_example_is_hidden(tmp_path: Path) -> None:
    result = amc("run", EXAMPLES / "demo_login.yaml", "--out", tmp_path)
    assert result.code == 0  # the sign-in worked, so the password was typed
    (run_dir,) = list(tmp_path.iterdir())
    _assert_nowhere(
        (PASSWORD,), {**run_files_text(run_dir), "stdout": result.out.encode(), "stderr": result.err.encode()}
    )
