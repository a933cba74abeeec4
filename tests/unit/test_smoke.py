"""Every package imports and exposes exactly what its __all__ promises."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "amc.core",
    "amc.world",
    "amc.semantic",
    "amc.runtime",
    "amc.drivers",
    "amc.drivers.appium",
    "amc.drivers.hierarchy",
    "amc.drivers.u2",
    "amc.drivers.wda",
    "amc.sim",
    "amc.storage",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_package_imports_and_exports_its_public_api(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    for symbol in exported:
        assert hasattr(module, symbol), f"{name}.__all__ names {symbol} but it is missing"


def test_world_package_exposes_the_world_model() -> None:
    import amc.world

    assert {"WorldState", "WorldEvent", "WorldModel", "WorldConfig"} <= set(amc.world.__all__)
