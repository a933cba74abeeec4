"""``open_link``: open a URL or deep link, in a given app or whichever the device picks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import OPTIONAL_APP
from .base import Action, FlowForm, Param, Screen
from .kinds import Text

MAX_URL = 2048
URL = Param(
    "url",
    Text(
        max_length=MAX_URL,
        pattern=re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+"),
        what="a link such as https://example.com or myapp://path (a scheme, no spaces)",
    ),
    "the link to open (https://…, myapp://…)",
    required=True,
)


def _open(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.open_link(args["url"], args.get("app_id"))
    return {"url": args["url"]}


ACTION = Action(
    "open_link",
    "open a URL or deep link",
    _open,
    params=(URL, OPTIONAL_APP),
    changes_screen=True,
    flow=FlowForm(
        "open_link", short="url", written="url, or `{url*, app}` (the app: an id, or one per platform)"
    ),
)
