"""The Appium backend (Android and iOS), over Appium-Python-Client and an Appium 3 server or Grid.

:mod:`.driver` holds ``AppiumDriver``, :mod:`.spec` turns ``appium:`` specs into the client's options,
:mod:`.elements` the server-side element lookups, :mod:`.errors` the table mapping the client's errors
into ``core.errors``.
"""

from .driver import (
    ANDROID_KEYCODES,
    IOS_BUTTONS,
    LOCATORS,
    AppiumDriver,
    AppiumElement,
    options_for,
)
from .spec import connect_spec

__all__ = [
    "ANDROID_KEYCODES",
    "IOS_BUTTONS",
    "LOCATORS",
    "AppiumDriver",
    "AppiumElement",
    "connect_spec",
    "options_for",
]
