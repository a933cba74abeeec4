"""``amc devices``: what discovery finds."""

from __future__ import annotations

import argparse
import json

from .. import connect as connect_module
from .common import EXIT_OK, Streams

__all__ = ["run_devices", "setup_devices"]

_SIMULATED = ("sim:android", "sim:ios")


def setup_devices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")


def run_devices(args: argparse.Namespace, io: Streams) -> int:
    found = connect_module.discover()
    if args.json:
        io.out.write(json.dumps([d.to_dict() for d in found], indent=2) + "\n")
        return EXIT_OK
    if not found:
        io.out.write(
            "no attached device found (adb and WebDriverAgent looked); "
            f"the simulated devices are always there: {', '.join(_SIMULATED)}\n"
        )
        return EXIT_OK
    rows = [("SPEC", "PLATFORM", "BACKEND", "STATE", "DESCRIPTION")]
    rows += [(d.spec, d.platform, d.backend, d.state, d.description) for d in found]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        io.out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + f"  {row[4]}\n")
    unusable = [d for d in found if not d.usable]
    for d in unusable:
        io.err.write(f"note: {d.spec} is {d.state}; run `amc doctor` for the fix\n")
    return EXIT_OK
