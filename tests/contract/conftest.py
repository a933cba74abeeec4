from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.rigs import APPS, Rig, all_rigs

_RIGS = list(all_rigs())


@pytest.fixture(
    params=[(name, platform) for name, platform, _ in _RIGS], ids=[f"{n}-{p}" for n, p, _ in _RIGS]
)
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    name, platform = request.param
    factory = next(f for n, p, f in _RIGS if (n, p) == (name, platform))
    with factory(platform) as built:
        yield built


@pytest.fixture
def apps(rig: Rig) -> dict[str, str]:
    return APPS[rig.device.platform]
