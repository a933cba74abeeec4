"""The harness's benchmarks: ``python -m benchmarks`` prints every table (see README.md here)."""

__all__: list[str] = []
