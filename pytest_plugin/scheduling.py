"""pytest-xdist scheduling for device runs: all tests of one device go to one worker.

xdist's own ``--dist loadgroup`` would do this through ``xdist_group`` marks, but it renames items
through ``item._nodeid``, which pytest 9.2 no longer reads, so the groups silently vanish. Instead
the plugin answers ``pytest_xdist_make_scheduler`` (for ``-n N`` without an explicit ``--dist``)
with a load-scope scheduler whose scope is the device named in the test id: with four devices and
``-n 4`` each worker gets one device's tests. Tests without a device are each their own scope,
spread like ``--dist load`` spreads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["device_scope", "make_device_scheduler"]


def device_scope(nodeid: str, displays: Sequence[str]) -> str:
    """The scheduling scope of ``nodeid``: ``amc-device:<display>`` for the device it runs on, else itself.

    The device is the longest of ``displays`` found in the test id's parameter part, so
    ``sim:android`` does not claim ``sim:android?id=a1``'s tests.
    """
    _base, sep, rest = nodeid.partition("[")
    if not sep:
        return nodeid
    params = rest.rsplit("]", 1)[0]
    found = [d for d in displays if d in params]
    if not found:
        return nodeid
    return "amc-device:" + max(found, key=len)


def make_device_scheduler(config: Any, log: Any, displays: Sequence[str]) -> Any:
    """A ``LoadScopeScheduling`` that scopes by device (xdist imported only here)."""
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    known = tuple(displays)

    class DeviceScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return device_scope(nodeid, known)

    return DeviceScheduling(config, log)
