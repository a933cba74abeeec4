"""Device specs: the forms a spec takes, the backend each scheme names, and the shape check.

Accepted specs (see :data:`SPEC_FORMS`):

- ``sim:android`` / ``sim:ios``: the simulated device, in process.
- ``android:SERIAL``: a phone or emulator through the adb server at
  ``$ANDROID_ADB_SERVER_HOST:$ANDROID_ADB_SERVER_PORT`` (as adb itself reads them).
- ``ios:http://HOST:PORT``: a running WebDriverAgent; ``ios:UDID``: a USB iPhone over usbmux.
- ``appium:http://HOST:PORT[/path]?platform=android|ios&…``: any Appium server or Selenium Grid.
- ``sim+wda:ios``, ``sim+adb:android``, ``sim+appium:android|ios``: the simulated device served
  over that backend's real protocol on 127.0.0.1, driven by the real adapter.

A simulated device's query (``?api=31``, ``?ios=17&wda=5``, ``timing=``, ``locked=``, ``id=``,
``install=``) is read by :mod:`amc.connect.sim_options`.
"""

from __future__ import annotations

from ..core.errors import ConfigError

__all__ = ["BACKENDS", "SPEC_FORMS", "bad_spec", "parse_spec"]

SPEC_FORMS: tuple[str, ...] = (
    "sim:android[?api=29|31|33|34|35&oem=aosp|miui|…]",
    "sim:ios[?ios=15|17|18&wda=4|5|9|10&kind=simulator|device]",
    "android:SERIAL",
    "ios:http://HOST:PORT[?kind=simulator|device]",
    "ios:UDID",
    "appium:http://HOST:PORT?platform=android|ios",
    "sim+wda:ios",
    "sim+adb:android[?adb=27|28|29|34|35]",
    "sim+appium:android",
    "sim+appium:ios",
)

# scheme -> "module:function", the module relative to the package amc.connect (imported only when
# used, so a machine without one client library can still use the others); the function takes
# (target, options) and returns a connected Driver.
BACKENDS: dict[str, str] = {
    "sim": ".wiring:connect_sim",
    "android": "..drivers.u2:connect_spec",
    "ios": "..drivers.wda:connect_spec",
    "appium": "..drivers.appium:connect_spec",
    "sim+wda": ".wiring:connect_wda_face",
    "sim+adb": ".wiring:connect_adb_face",
    "sim+appium": ".wiring:connect_appium_face",
}


def bad_spec(spec: object, why: str) -> ConfigError:
    """The ``ConfigError`` of a spec that is not one of :data:`SPEC_FORMS` (shown bounded)."""
    shown = repr(spec)
    if len(shown) > 120:
        shown = f"{shown[:100]}… ({len(shown)} characters)"
    return ConfigError(
        f"bad device spec {shown}: {why}",
        hint="accepted forms: " + ", ".join(SPEC_FORMS),
    )


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``spec`` into (scheme, target), checking only its shape."""
    if not isinstance(spec, str):
        raise bad_spec(spec, "it must be a string")
    text = spec.strip()
    if not text or len(text) > 2048 or any(ord(c) < 32 for c in text):
        raise bad_spec(spec, "it is empty, too long or has control characters")
    scheme, sep, target = text.partition(":")
    if not sep or not target:
        raise bad_spec(spec, "expected SCHEME:TARGET")
    scheme = scheme.lower()
    if scheme not in BACKENDS:
        raise bad_spec(spec, f"unknown scheme {scheme!r}")
    return scheme, target
