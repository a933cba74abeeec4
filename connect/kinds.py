"""Which kind of device a spec names, read from the spec alone: :func:`spec_kind` (the rule is
:mod:`amc.drivers.kinds`'s docstring; a simulated spec's kind is its profile's, so this reads the
simulated device's options and stands above the adapters)."""

from __future__ import annotations

from ..drivers.kinds import DEVICE, SIMULATOR, split_kind, wda_url_kind
from .sim_options import parse_sim_target

__all__ = ["spec_kind"]


def spec_kind(scheme: str, target: str, platform: str) -> str:
    """The kind of device ``scheme:target`` names, without connecting (see :mod:`amc.drivers.kinds`)."""
    if platform != "ios":
        return DEVICE
    if scheme.startswith("sim"):
        kind = getattr(parse_sim_target(scheme, target).profile, "kind", DEVICE)
        return kind if kind in (SIMULATOR, DEVICE) else DEVICE
    if scheme == "ios":
        return wda_url_kind(target) if "://" in target else DEVICE
    if scheme == "appium":
        _, given = split_kind(target)
        return given or SIMULATOR
    return DEVICE
