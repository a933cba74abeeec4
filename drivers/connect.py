"""``amc.drivers.connect``: the composition root under the name the README and the docs give it
(``from amc.drivers.connect import connect``), kept so that name keeps working.

The root itself is :mod:`amc.connect`, which stands above the adapters and the simulated device;
this module only re-exports its public names, and is the one module of ``drivers/`` that imports
upward (tests/packaging/test_layers.py).
"""

from __future__ import annotations

from ..connect import (
    BACKENDS,
    FACE_OPTIONS,
    SIM_QUERY,
    SPEC_FORMS,
    SimTarget,
    check_spec,
    connect,
    discover,
    parse_sim_target,
    parse_spec,
    sim_timing,
)

__all__ = [
    "BACKENDS",
    "FACE_OPTIONS",
    "SIM_QUERY",
    "SPEC_FORMS",
    "SimTarget",
    "check_spec",
    "connect",
    "discover",
    "parse_sim_target",
    "parse_spec",
    "sim_timing",
]
