"""Maestro flows, read as they are and written back: the dialect beside the project's own format.

:func:`~amc.flows.maestro.reader.read_maestro` (reached through :func:`amc.flows.load_flow`, which
tells the two formats apart by their shape) maps a Maestro flow onto the same flow model as any
other; :func:`~amc.flows.maestro.writer.to_maestro` writes steps as a Maestro flow.
"""

from .reader import COMMANDS, looks_maestro, read_maestro
from .writer import to_maestro

__all__ = ["COMMANDS", "looks_maestro", "read_maestro", "to_maestro"]
