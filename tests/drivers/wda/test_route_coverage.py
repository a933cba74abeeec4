"""The WDA face serves every route WebDriverAgent 10.5.4 registers on iOS
(``tests/fixtures/wda/routes-v10.5.4.tsv``, enumerated from its source by tests/peers/wda_route_list.py):
each one, sent over HTTP as a client would (with or without a session, as WDA registers it), gets
an answer other than ``unknown command``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from amc.sim.device import SimDevice
from amc.sim.profiles import IosProfile
from amc.sim.wda_face import WdaFace

ROUTES = Path(__file__).parents[2] / "fixtures" / "wda" / "routes-v10.5.4.tsv"


def _rows() -> list[tuple[str, str, str]]:
    lines = [line.split("\t") for line in ROUTES.read_text().splitlines() if not line.startswith("#")]
    return [(method, path, session) for method, path, session, _file in lines]


def _send(url: str, method: str, body: Any = None) -> tuple[int, Any]:
    data = None if method in ("GET", "DELETE") else json.dumps(body or {}).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def unknown_routes(face: WdaFace) -> list[str]:
    """The routes of the list the face answers ``unknown command``."""
    _, created = _send(f"{face.url}/session", "POST", {"capabilities": {}})
    sid = created["sessionId"]
    _, found = _send(
        f"{face.url}/session/{sid}/elements", "POST", {"using": "class name", "value": "XCUIElementTypeCell"}
    )
    uid = found["value"][0]["ELEMENT"]
    missing = []
    rows = sorted(_rows(), key=lambda r: (r[0], r[1]) in (("POST", "/session"), ("DELETE", "")))
    for method, path, session in rows:
        concrete = path.replace(":uuid", uid).replace(":name", "label")
        url = f"{face.url}/session/{sid}{concrete}" if session == "session" else f"{face.url}{concrete}"
        _, reply = _send(url, method, {"duration": 0})
        value = reply.get("value") if isinstance(reply, dict) else None
        if isinstance(value, dict) and value.get("error") == "unknown command":
            missing.append(f"{method} {path} ({session})")
    return missing


def test_the_list_is_the_131_ios_routes_of_wda_10_5_4() -> None:
    rows = _rows()
    assert len(rows) == len(set(rows)) == 131
    assert ("POST", "/wda/element/:uuid/touchAndHold", "session") in rows
    assert ("POST", "/wda/homescreen", "no-session") in rows


def test_every_route_of_wda_10_5_4_is_served() -> None:
    device = SimDevice("ios", profile=IosProfile("18", "10"))
    device.launch("com.apple.Preferences")
    with WdaFace(device) as face:
        assert unknown_routes(face) == []
