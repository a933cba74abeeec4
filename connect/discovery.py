"""Every attached device each backend can see: :func:`discover`."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from ..core.errors import ConfigError, HarnessError
from ..drivers.base import DeviceInfo
from .build import resolve

__all__ = ["DISCOVERERS", "discover"]

log = logging.getLogger(__name__)

# Backends asked by discover(): "module:function" (relative to amc.connect) returning a list of DeviceInfo.
DISCOVERERS: tuple[str, ...] = ("..drivers.u2:discover_android", "..drivers.wda:discover_ios")


def discover(environ: Mapping[str, str] | None = None) -> list[DeviceInfo]:
    """Every attached device each backend can see.

    A backend that cannot look (its client library missing, nothing answering) is skipped and
    logged; a malformed address in the environment (``ANDROID_ADB_SERVER_PORT=abc``, a bad
    ``WDA_URL``) is a ``ConfigError`` naming it, never mistaken for "no device attached".
    """
    env = os.environ if environ is None else environ
    found: list[DeviceInfo] = []
    for path in DISCOVERERS:
        try:
            finder = resolve(path)
        except ConfigError as exc:
            log.info("discovery through %s unavailable: %s", path, exc)
            continue
        try:
            found.extend(finder(env))
        except ConfigError:
            raise
        except HarnessError as exc:
            log.info("discovery through %s skipped: %s", path, exc)
    return found
