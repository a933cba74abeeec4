"""The uiautomator2 backend (Android), over adb and the uiautomator2 server.

:mod:`.driver` holds ``U2Driver``, :mod:`.client` the uiautomator2 client as the harness builds it,
:mod:`.adb` the adb server client, :mod:`.errors` the table mapping their errors into ``core.errors``.
"""

from .driver import PRESS_KEYS, U2Config, U2Driver, connect_spec, discover_android

__all__ = ["PRESS_KEYS", "U2Config", "U2Driver", "connect_spec", "discover_android"]
