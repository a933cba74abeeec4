"""Issue 41, item 6, on iOS: the simulated iPhone names an app's process by one pid.

facebook-wda's ``app_current()`` (``GET /wda/activeAppInfo``) and the source's ``processId`` on the
application element (WDA 10.1.0 on) name the same process, and an app launched again is a new
process (iOS gives each launch a new pid), through the real facebook-wda client over the WDA face.
"""

from __future__ import annotations

import re

import wda
from amc.sim.device import SimDevice
from amc.sim.wda_face import WdaFace

APP = "com.apple.Preferences"


def test_an_app_has_one_pid_and_a_new_one_after_a_relaunch() -> None:
    with WdaFace(SimDevice("ios")) as face:
        client = wda.Client(face.url)
        session = client.session()

        def pids() -> set[int]:
            found = re.search(r'processId="(\d+)"', client.source())
            assert found is not None
            return {int(client.app_current()["pid"]), int(found.group(1))}

        session.app_launch(APP)
        first = pids()
        session.app_terminate(APP)
        session.app_launch(APP)
        second = pids()
    assert len(first) == 1 and len(second) == 1
    assert first != second
