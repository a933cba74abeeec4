"""The argument that names an app: an Android package or an iOS bundle id."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Param
from .kinds import Text

__all__ = ["APP", "OPTIONAL_APP", "AppId"]


@dataclass(frozen=True)
class AppId(Text):
    """An app id. Flow files may also give one per platform (``{android: …, ios: …}``): the flow
    reader picks the device's before the step is built."""

    max_length: int = 255


_DOC = "the app: Android package or iOS bundle id (com.android.settings)"
APP = Param("app_id", AppId(), _DOC, required=True, aliases=("bundle_id", "package"))
OPTIONAL_APP = Param(
    "app_id", AppId(), "the app that should open it (optional)", aliases=("bundle_id", "package")
)
