"""The WebDriverAgent backend (iOS), over the facebook-wda client library (import name ``wda``).

:mod:`.driver` holds ``WdaDriver``, :mod:`.client` ``WdaConfig`` and the facebook-wda client it
drives, :mod:`.errors` the table mapping the client's errors into ``core.errors``,
:mod:`.discovery` the search for iPhones (usbmux, ``$WDA_URL``).
"""

from .client import WdaConfig
from .discovery import discover as discover_ios
from .driver import WdaDriver, connect_spec

__all__ = ["WdaConfig", "WdaDriver", "connect_spec", "discover_ios"]
