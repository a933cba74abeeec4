"""The composition root: one device spec in, one connected ``Driver`` out.

It stands above both the adapters (``amc.drivers``) and the simulated device (``amc.sim``), which
never import each other, and has one job a module:

- :mod:`~amc.connect.specs`: the device specs (their forms, the backend each scheme names);
- :mod:`~amc.connect.sim_options`: a simulated device's options (the spec's query, its timing);
- :mod:`~amc.connect.build`: :func:`connect` and :func:`check_spec`;
- :mod:`~amc.connect.wiring`: the simulated device wired to the adapters (in process, or a face
  served on 127.0.0.1 and the real adapter against it);
- :mod:`~amc.connect.simulated`: ``SimDriver``, the ``Driver`` protocol on the simulated device in
  process;
- :mod:`~amc.connect.discovery`: :func:`discover`, the devices each backend can see;
- :mod:`~amc.connect.kinds`: :func:`~amc.connect.kinds.spec_kind`, a Simulator or a device.

``amc.drivers.connect`` (the name the README gives) re-exports this package's names.
"""

from __future__ import annotations

from .build import check_spec, connect
from .discovery import discover
from .sim_options import SIM_QUERY, SimTarget, parse_sim_target, sim_timing
from .specs import BACKENDS, SPEC_FORMS, parse_spec
from .wiring import FACE_OPTIONS

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
