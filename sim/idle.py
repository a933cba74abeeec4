"""The idle signal the simulated phone's faces play, as the real servers give it: an answer once
the screen has not changed for the server's quiet time after its last change, never sooner, or at
the timeout (:meth:`amc.sim.device.SimDevice.idle_left` says how long is left).

- uiautomator2 (openatx/android-uiautomator-server, ``AutomatorServiceImpl.waitForIdle(long
  timeout)``): ``device.waitForIdle(timeout)``, i.e. ``UiAutomation.waitForIdle(500, timeout)``:
  idle once no accessibility event came for 500 ms. The method is ``void``: the JSON-RPC answer is
  ``null`` whether the phone went idle or the timeout passed (a ``TimeoutException`` is only
  logged by ``QueryController``), so a client learns which from the time it took.
- Appium's UiAutomator2 server: ``GET /source`` calls ``resetAccessibilityCache()``, whose
  ``Device.waitForIdle()`` waits up to the ``waitForIdleTimeout`` setting (ms, 10000 by default,
  none at 0) the same way (handler/Source.java, utils/AXWindowHelpers.java, utils/Device.java).
- WebDriverAgent (and Appium's XCUITest, which drives it): XCTest's quiescence, animations
  included, has no quiet window; ``GET /source`` waits for it up to ``animationCoolOffTimeout``
  (FBXPath.m ``waitUntilStableWithElement``, 2 s by default), an action's reply up to
  ``waitForIdleTimeout`` (XCUIApplicationProcess+FBQuiescence.m, 10 s). WDA has no route that
  answers whether the app is idle.
"""

from __future__ import annotations

import threading
import time

from .device import SimDevice

__all__ = ["MAX_IDLE_WAIT", "wait_idle"]

MAX_IDLE_WAIT = 30.0  # seconds a face waits for idle at most, whatever a client asks
_SLICE = 0.02  # the face looks at the device this often (new events move the end of the wait)


def wait_idle(device: SimDevice, quiet: float, limit: float, stopped: threading.Event | None = None) -> bool:
    """Wait until ``device`` has been still for ``quiet`` seconds, at most ``limit`` seconds (and
    :data:`MAX_IDLE_WAIT`), or until ``stopped`` is set; whether it went idle."""
    deadline = time.monotonic() + min(max(0.0, limit), MAX_IDLE_WAIT)
    while True:
        left = device.idle_left(quiet)
        if left <= 0:
            return True
        now = time.monotonic()
        if now >= deadline or (stopped is not None and stopped.is_set()):
            return False
        time.sleep(min(left, deadline - now, _SLICE))
