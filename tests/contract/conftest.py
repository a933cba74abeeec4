from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.rigs import APPS, Rig, RigSpec, all_rigs, build_rig

_RIGS = list(all_rigs())


@pytest.fixture(params=_RIGS, ids=[r.id for r in _RIGS])
def rig_spec(request: pytest.FixtureRequest) -> RigSpec:
    spec: RigSpec = request.param
    return spec


@pytest.fixture
def rig(rig_spec: RigSpec) -> Iterator[Rig]:
    with build_rig(rig_spec) as built:
        yield built


@pytest.fixture
def apps(rig: Rig) -> dict[str, str]:
    return APPS[rig.device.platform]


@pytest.fixture(scope="session", autouse=True)
def _real_appium_stack() -> Iterator[None]:
    """Stop the real Appium server rig_appium_u2 started (if it did) when the session ends."""
    yield
    from tests.appium_server.u2_stack import stop_shared_stack

    stop_shared_stack()
