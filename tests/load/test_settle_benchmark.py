"""benchmarks/settle.py measures what it says: one extra look on a static screen, several on a
transition, each next to the device's own time."""

from __future__ import annotations

from benchmarks import settle


def test_the_settle_benchmark_counts_one_extra_look_on_a_static_screen_and_more_on_a_transition() -> None:
    static, timed = settle.run(blocks=1, rounds=1)
    looks = {(row[0], row[1]): row[2] for row in static.rows}
    assert set(looks.values()) == {1, 2} and len(looks) == 4
    assert all(n == (2 if loop.startswith("settle on") else 1) for (_, loop), n in looks.items())
    (row,) = timed.rows
    assert row[0] == "2 page changes"
    assert int(str(row[3]).split()[0]) >= 2  # the page was still sliding at the first look
    assert float(str(row[4]).rstrip("x")) >= 1.0  # a step can never be quicker than the device
