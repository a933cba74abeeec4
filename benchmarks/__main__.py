"""``python -m benchmarks``: every benchmark, every table (see :mod:`benchmarks.run_all`)."""

from __future__ import annotations

from benchmarks.run_all import main

__all__: list[str] = []

raise SystemExit(main())
