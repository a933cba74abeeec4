"""Whether this process walks lxml's trees in C.

``amc.drivers.hierarchy._native`` (``_native.c``, built by ``setup.py`` where a C compiler is
at hand) answers a step's queries over libxml2's nodes: the element walks (:func:`next_match`),
the element count and the plain-bounds check of a parse (:func:`scan`), and an element's
attributes in one call (:func:`values`). Without it the same answers come from Python
(:mod:`.walk` and the lxml calls in :mod:`.xml_source` and :mod:`.schema`; the plans the C
walker takes are made in :mod:`.walk`), which stay the
reference: tests/parsers run every query and every parse both ways and compare.

:data:`NATIVE` is the loaded module, or None when it was not built, cannot be loaded against this
lxml, or ``AMC_PURE_PYTHON=1`` is set. Callers read it at call time, so a test can switch it off.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from types import ModuleType
from typing import Final

__all__ = ["ENV_PURE_PYTHON", "NATIVE", "load"]

log = logging.getLogger(__name__)

ENV_PURE_PYTHON: Final = "AMC_PURE_PYTHON"


def load(environ: Mapping[str, str] | None = None) -> ModuleType | None:
    """The C module, or None (``AMC_PURE_PYTHON=1``, not built, or built against an lxml whose
    C API differs from the installed one: lxml then refuses the import, and Python answers)."""
    env = os.environ if environ is None else environ
    if env.get(ENV_PURE_PYTHON, "").strip() == "1":
        return None
    try:
        from . import _native  # absent where it was not built
    except (ImportError, TypeError) as exc:  # TypeError: lxml's C API signature check
        log.debug("drivers.hierarchy: the C walks are not available (%s); walking in Python", exc)
        return None
    module: ModuleType = _native
    return module


NATIVE: ModuleType | None = load()
