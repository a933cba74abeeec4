"""One string in, one connected ``Driver`` out: :func:`connect`, and :func:`check_spec`, the checks
a list of specs passes before the first is connected.

Backends are looked up in :data:`amc.connect.specs.BACKENDS` and imported only when used, so a
machine without one client library can still use the others. Constructors do no I/O; ``connect``
does.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..core.errors import ConfigError
from ..drivers.base import Driver
from ..drivers.options import server_url
from .sim_options import parse_sim_target
from .specs import BACKENDS, bad_spec, parse_spec

__all__ = ["check_spec", "connect", "resolve"]


def check_spec(spec: str) -> tuple[str, str]:
    """``parse_spec`` plus the checks that need no device: a server URL's shape (IPv6 brackets, the
    scheme, a port from 1 to 65535) and a simulated spec's query, so a list of specs can be checked
    whole before the first is connected."""
    scheme, target = parse_spec(spec)
    if scheme == "appium" or (scheme == "ios" and "://" in target):
        what = "the Appium server URL" if scheme == "appium" else "the WebDriverAgent URL"
        schemes = ("http", "https") if scheme == "appium" else ("http", "https", "http+usbmux")
        try:
            server_url(target, what, schemes)
        except ConfigError as exc:
            raise bad_spec(spec, exc.message) from exc
    elif scheme.startswith("sim"):
        parse_sim_target(scheme, target)
    return scheme, target


def resolve(path: str) -> Callable[..., Any]:
    """The function ``"module:function"`` names, the module relative to this package; a module that
    cannot be imported (its client library missing) is a ``ConfigError``."""
    module_name, _, func_name = path.partition(":")
    try:
        module = importlib.import_module(module_name, __package__)
    except ImportError as exc:
        raise ConfigError(f"backend {module_name} is not available: {exc}") from exc
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ConfigError(f"backend {module_name} has no {func_name}()")
    return func  # type: ignore[no-any-return]


def connect(spec: str, **options: Any) -> Driver:
    """Build and connect the driver ``spec`` names. Options go to the backend (e.g. ``timeout``);
    a simulated spec takes ``?timing=instant|realistic`` (see :func:`amc.connect.sim_timing`)."""
    scheme, target = parse_spec(spec)
    builder = resolve(BACKENDS[scheme])
    driver = builder(target, options)
    return driver  # type: ignore[no-any-return]
