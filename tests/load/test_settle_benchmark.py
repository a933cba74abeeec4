"""benchmarks/settle.py measures what it says: on a static screen the idle rule takes one page source
and one idle query at most, today's rule a second page source; after page changes no step of the
idle rule or today's rule settles before the transition is over, and no step is quicker than the
device (counts and ordering only: the times follow the machine)."""

from __future__ import annotations

from benchmarks import settle


def test_the_settle_benchmark_counts_page_sources_idle_queries_and_early_steps() -> None:
    static, timed = settle.run(blocks=1, rounds=1)
    counts = {(row[0], row[1], row[2]): (row[3], row[4]) for row in static.rows}
    assert len(counts) == 16  # 3 backends (the simulated device twice) x 4 rules
    for (backend, _, rule), (sources, idles) in counts.items():
        if rule == "idle":
            assert sources == 1 and idles == (0 if backend.startswith("WebDriverAgent") else 1)
        elif rule == "settle off":
            assert (sources, idles) == (1, 0)
        else:
            assert (sources, idles) == (2, 0)
    rows = {(row[0], row[2]): row for row in timed.rows}
    assert len(rows) == 9
    for (_, rule), row in rows.items():
        assert row[3] == 2  # a page opened, then back
        if rule in ("idle", "looks"):
            assert row[8] == 0  # never settled on the page being left or still sliding
            assert float(str(row[7]).rstrip("x")) >= 0.95  # never quicker than the device
