"""A spec's kind of iPhone (`kind=simulator|device`) is read strictly, before any device is asked:
a wrong, repeated or misplaced kind is exit 2 naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..flows.helpers import amc, write_flow

FLOW = "appId: com.example.amc.demo\n---\n- launchApp\n"


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("sim:ios?kind=phone", "kind='phone'"),
        ("sim:ios?kind=", "'kind' needs a value"),
        ("sim:ios?kind=device&kind=simulator", "'kind' is given twice"),
        ("sim:android?kind=device", "unknown key 'kind' for a simulated android device"),
        ("sim+wda:ios?kind=emulator", "kind='emulator'"),
        ("ios:http://127.0.0.1:8100?kind=phone", "kind='phone'"),
        ("ios:http://127.0.0.1:8100?kind=device&kind=device", "kind='device,device'"),
        ("appium:http://127.0.0.1:4723?platform=ios&kind=phone", "kind='phone'"),
    ],
)
def test_a_bad_kind_is_exit_2_naming_it(spec: str, said: str, tmp_path: Path) -> None:
    flow = write_flow(tmp_path, FLOW)
    result = amc("check", flow, "--device", spec)
    assert result.code == 2, result.out + result.err
    assert said in result.err + result.out
