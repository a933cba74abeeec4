"""What a hostile server costs the harness: wall time and peak memory of one call (issue 34).

``python benchmarks/hostile.py [--limit SECONDS]`` runs each case in a child process of its own (so
its peak resident memory is its own: ``ru_maxrss``), in front of the simulated device's real faces
through the hostile servers of ``tests/hostile/servers.py``:

- a WebDriverAgent whose ``/source`` trickles a byte every 0.25 s, or sends chunks forever, with the
  driver's timeout at 5 s; one that answers it with a 200 MB body;
- a model server that trickles its reply, with ``--llm-timeout 5`` (one request); one whose reply is
  300 MB.

Each row: how the call ended (the error's kind, or ``killed`` when it was still going at
``--limit`` seconds), the wall time, the child's peak resident memory, and what the hostile server
had sent. Not a test: numbers for the record (the tests assert what a user sees, not times).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["CASES", "main"]

REPO = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {repo!r})
from tests.hostile.servers import HttpProxy
case, how = {case!r}, {how!r}
start = time.monotonic()
outcome = "returned"
if case == "wda":
    from amc.drivers.connect import connect
    from amc.sim.device import SimDevice
    from amc.sim.wda_face import WdaFace
    with WdaFace(SimDevice("ios")) as face, HttpProxy(how, r"/source", face.url) as proxy:
        driver = connect(f"ios:{{proxy.url}}", timeout=5)
        try:
            driver.observe()
        except Exception as exc:
            outcome = type(exc).__name__
        sent = proxy.sent
else:
    import openai
    from amc.agent.llm import LLMPlanner
    with HttpProxy(how) as proxy:
        planner = LLMPlanner.connect(proxy.url + "/v1", "m", timeout=5)
        try:
            planner.client.chat.completions.create(model="m", messages=[{{"role": "user", "content": "hi"}}])
        except Exception as exc:
            outcome = type(exc).__name__
        sent = proxy.sent
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"outcome": outcome, "seconds": time.monotonic() - start, "peak_mib": peak, "sent": sent}}))
"""

CASES: tuple[tuple[str, str], ...] = (
    ("wda", "trickle"),
    ("wda", "chunks forever"),
    ("wda", "huge"),
    ("model", "trickle"),
    ("model", "huge"),
)


def _run(case: str, how: str, limit: float) -> dict[str, object]:
    code = _CHILD.format(repo=str(REPO), case=case, how=how)
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=limit, cwd=REPO, check=False
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "killed", "seconds": time.monotonic() - start, "peak_mib": None, "sent": None}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"outcome": f"crashed: {done.stderr.strip().splitlines()[-1:]}", "seconds": None}
    result: dict[str, object] = json.loads(lines[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--limit", type=float, default=120.0, help="kill a case after this long (s)")
    args = parser.parse_args(argv)
    print("| server | reply | ended | wall time | peak memory | sent by the server |")
    print("|---|---|---|---|---|---|")
    for case, how in CASES:
        row = _run(case, how, args.limit)
        seconds = f"{row['seconds']:.1f} s" if isinstance(row.get("seconds"), float) else "-"
        peak = f"{row['peak_mib']:.0f} MiB" if isinstance(row.get("peak_mib"), float) else "-"
        sent = f"{row['sent'] / 2**20:.1f} MiB" if isinstance(row.get("sent"), int) else "-"
        print(f"| {case} | {how} | {row['outcome']} | {seconds} | {peak} | {sent} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
