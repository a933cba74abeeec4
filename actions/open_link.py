"""``open_link``: open a URL or deep link, in a given app or whichever the device picks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .apps import OPTIONAL_APP
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Text

MAX_URL = 2048
URL = Param(
    "url",
    Text(
        max_length=MAX_URL,
        # a scheme, then the rest; spaces are passed through, as Maestro hands such a link to the
        # device (a Maestro flow's check notes them: flows/maestro/commands.py)
        pattern=re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S.*"),
        what="a link such as https://example.com or myapp://path (a scheme, then the link)",
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
    maestro=(
        MaestroForm(
            "openLink",
            short="url",
            options={"link": "url"},
            note="`autoVerify` and `browser` are read; the device picks the app that opens the link",
            ignored=frozenset({"autoVerify", "browser"}),
        ),
    ),
)
