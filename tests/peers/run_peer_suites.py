"""Run the peer suites against the faces: ``python -m tests.peers.run_peer_suites [wda] [adbutils]``.

Fetches each suite at its pinned version into ``--cache`` (default ``.ci/cache/peers``), runs it
against its face (see :mod:`tests.peers.suites`), prints each suite's counts and failures and a
closing ``N passed, N failed, N skipped`` line; exits 1 when any test failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.peers.suites import ROOT, SUITES, run

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="run_peer_suites", description=__doc__.splitlines()[0])
    parser.add_argument(
        "suites", nargs="*", metavar="SUITE", help=f"any of {', '.join(SUITES)} (all by default)"
    )
    parser.add_argument("--cache", type=Path, default=ROOT / ".ci" / "cache" / "peers")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the suites' own output")
    args = parser.parse_args(argv)
    unknown = [name for name in args.suites if name not in SUITES]
    if unknown:
        parser.error(f"no peer suite {', '.join(unknown)}; known: {', '.join(SUITES)}")
    outcomes = [run(SUITES[name], args.cache, verbose=args.verbose) for name in args.suites or SUITES]
    for outcome in outcomes:
        print(f"{outcome.line} ({outcome.seconds:.1f} s)")
        for name in outcome.failures:
            print(f"  FAILED {name}")
    passed = sum(o.passed for o in outcomes)
    failed = sum(o.failed for o in outcomes)
    skipped = sum(o.skipped for o in outcomes)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
