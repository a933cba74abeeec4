"""WdaDriver under contract: the real facebook-wda client against the WebDriverAgent face
(``sim+wda:ios?ios=N&wda=G``)."""

from __future__ import annotations

PLATFORMS = ("ios",)
SCHEME = "sim+wda"
