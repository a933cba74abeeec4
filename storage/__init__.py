"""Persistence of runs (the run timeline lands here)."""

__all__: list[str] = []
