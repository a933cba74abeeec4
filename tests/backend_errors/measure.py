"""How many catalogue entries the error tables get right, per backend, held-out third apart.

``python -m tests.backend_errors.measure [-v]`` plays every entry on every face it names (as the
tests do) and prints, per backend, the plays, how many end in the expected class, and how many
match in full (class, transient flag, hint and message words, the raw answer quoted once and
bounded), for all plays and for the held-out third; ``-v`` lists each mismatch.
"""

from __future__ import annotations

import os
import sys

from tests.backend_errors.catalogue import BACKENDS, load
from tests.backend_errors.replay import faces_of, play, problems


def main(argv: list[str]) -> int:
    os.environ.setdefault("AMC_SIM_TIMING", "instant")
    verbose = "-v" in argv
    rows = []
    totals = [0] * 6
    for backend in BACKENDS:
        counts = [0] * 6  # plays, class right, full right; held-out: the same three
        for entry in load(backend):
            for face in faces_of(entry):
                outcome = play(entry, face)
                found = problems(entry, outcome)
                right_class = outcome.error is not None and type(outcome.error).__name__ == entry.expect.error
                marks = (1, int(right_class), int(not found))
                for i, value in enumerate(marks):
                    counts[i] += value
                    if entry.held_out:
                        counts[3 + i] += value
                if verbose and found:
                    held = " [held out]" if entry.held_out else ""
                    print(f"{entry.name}@{face}{held}: {found[0][:220]}")
        rows.append((backend, counts))
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
    print(f"{'backend':<14}{'plays':>6}{'class':>7}{'full':>6}   {'held out':>9}{'class':>7}{'full':>6}")
    for backend, c in [*rows, ("all", totals)]:
        print(f"{backend:<14}{c[0]:>6}{c[1]:>7}{c[2]:>6}   {c[3]:>9}{c[4]:>7}{c[5]:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
