"""`amc inspect --app` and the checks `amc inspect --serve` makes before it contacts a device."""

from __future__ import annotations

from pathlib import Path

import pytest
from amc import connect as connect_module
from amc.connect.simulated import SimDriver

from tests.flows.helpers import amc


@pytest.fixture(autouse=True)
def _no_attached_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "discover", lambda environ=None: [])


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every device connection made, still connecting to the simulated device."""
    made: list[str] = []
    real = connect_module.connect

    def counting(spec: str, **options: object) -> object:
        made.append(spec)
        return real(spec, **options)

    monkeypatch.setattr(connect_module, "connect", counting)
    return made


def test_app_launches_the_app_before_the_screen_is_printed() -> None:
    result = amc("inspect", "--device", "sim:android", "--app", "com.android.settings")
    assert result.code == 0, result.err
    assert result.out.startswith(
        "android emulator-5554  app=com.android.settings  activity=com.android.settings.Settings"
    )
    assert '"Network & internet"' in result.out
    ios = amc("inspect", "--platform", "ios", "--app", "com.example.amc.demo", "--format", "json")
    assert ios.code == 0 and '"foreground_app": "com.example.amc.demo"' in ios.out


@pytest.mark.parametrize(
    ("spec", "size"), [("sim:android", "1080x2400"), ("sim:ios", "390x844"), ("sim+wda:ios", "390x844")]
)
def test_app_shows_the_screen_settled_not_mid_transition(spec: str, size: str) -> None:
    # the simulated phone's realistic timing slides a launched app in (as a phone does); a look
    # taken at once showed it half on screen (2110 wide on a 1080-wide phone)
    result = amc("inspect", "--device", f"{spec}?timing=realistic", "--app", "com.example.amc.demo")
    assert result.code == 0, result.err
    header = result.out.splitlines()[0]
    assert f"  {size}  " in header, header
    assert '"Sign in to continue"' in result.out


def test_an_app_that_is_not_installed_is_named(connections: list[str]) -> None:
    result = amc("inspect", "--device", "sim:android", "--app", "com.example.missing")
    assert result.code == 1 and "com.example.missing is not installed" in result.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--app", "com.x; rm -rf /"], "is not an app id"),
        (["--app", ""], "is not an app id"),
        (["--record", "x.yaml"], "--record needs --serve"),
        (["--port", "8080"], "--port needs --serve"),
        (["--serve", "--overwrite"], "--overwrite needs --record"),
        (["--serve", "--format", "json"], "--serve serves the page instead"),
        (["--serve", "--record", "/no/such/folder/x.yaml"], "does not exist"),
    ],
)
def test_bad_arguments_exit_2_before_any_device_is_contacted(
    connections: list[str], argv: list[str], message: str
) -> None:
    result = amc("inspect", "--device", "sim:android", *argv)
    assert result.code == 2 and message in result.err, result.err
    assert connections == []


@pytest.mark.parametrize("port", ["-1", "65536", "http", "80.5"])
def test_a_bad_port_is_a_usage_error(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert amc("inspect", "--serve", "--port", port).code == 2
    assert "is not a port number" in capsys.readouterr().err


def test_an_existing_record_file_is_kept_and_nothing_is_contacted(
    tmp_path: Path, connections: list[str]
) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("precious\n")
    result = amc("inspect", "--serve", "--device", "sim:android", "--record", mine)
    assert result.code == 2 and "already exists" in result.err and "--overwrite" in result.err
    assert mine.read_text() == "precious\n" and connections == []
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    result = amc("inspect", "--serve", "--device", "sim:android", "--record", folder, "--overwrite")
    assert result.code == 2 and "not a regular file" in result.err


def test_recording_from_the_home_screen_needs_an_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_module, "connect", lambda spec, **options: SimDriver("android"))
    path = tmp_path / "flow.yaml"
    result = amc("inspect", "--serve", "--device", "sim:android", "--record", path)
    assert result.code == 2 and "pass --app APP_ID" in result.err
    assert not path.exists()  # nothing written for a recording that never started
