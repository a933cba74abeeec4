"""The WebDriverAgent backend (iOS), over the facebook-wda client library (import name ``wda``).

:mod:`.driver` holds ``WdaDriver``, :mod:`.errors` the table mapping the client's errors into
``core.errors``, :mod:`.discovery` the search for iPhones (usbmux, ``$WDA_URL``).
"""

from .driver import WdaConfig, WdaDriver, connect_spec, discover_ios

__all__ = ["WdaConfig", "WdaDriver", "connect_spec", "discover_ios"]
