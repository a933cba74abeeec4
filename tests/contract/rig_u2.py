"""U2Driver under contract: the real uiautomator2 + adbutils clients against the adb face
(``sim+adb:android?api=N``)."""

from __future__ import annotations

PLATFORMS = ("android",)
SCHEME = "sim+adb"
