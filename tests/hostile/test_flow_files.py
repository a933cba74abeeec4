"""Hostile flow files through ``amc run`` at a live device: refused, exit 2, and no device request.

tests/flows/test_loader.py proves each limit of the loader (positions, messages, memory); this file
proves the end-to-end promise: nothing reaches the device and no run folder is made.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from amc.flows.loader import MAX_DEPTH, MAX_FLOW_BYTES, MAX_STEPS
from amc.sim.wda_face import WdaFace

from tests.flows.helpers import amc

pytestmark = pytest.mark.timeout(60)


def _bomb() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\nsteps:\n  - tap: *i\n"


HOSTILE: dict[str, tuple[bytes, str]] = {
    "alias bomb": (_bomb().encode(), "anchors and aliases"),
    "alias bomb in a merge key": (b"base: &b {tap: OK}\nsteps:\n  - <<: *b\n", "anchors and aliases"),
    "oversized": (b"steps:\n  - tap: OK\n" + b"#" * MAX_FLOW_BYTES, "the limit is 1048576"),
    "deep nesting": (
        b"steps: " + b"[" * (MAX_DEPTH + 8) + b"]" * (MAX_DEPTH + 8) + b"\n",
        "nested more than",
    ),
    "too many steps": (b"steps:\n" + b"  - press: back\n" * (MAX_STEPS + 1), f"at most {MAX_STEPS} steps"),
    "python object tag": (b"steps:\n  - !!python/object/apply:os.system ['touch /tmp/pwned']\n", "bad flow"),
    "custom tag": (b"steps:\n  - !tap OK\n", "bad flow"),
    "binary garbage": (bytes(range(256)) * 16, "not UTF-8"),
    "NUL bytes": (b"steps:\n  - tap: O\x00K\n", "bad flow"),
    "a list, not a flow": (b"- tap: OK\n", "bad flow"),
    "empty file": (b"", "bad flow"),
    "many documents": (b"steps: [{tap: A}]\n---\nsteps: [{tap: B}]\n", "bad flow"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_flow_is_refused_before_any_device_request(name: str, wda: WdaFace, tmp_path: Path) -> None:
    data, message = HOSTILE[name]
    flow = tmp_path / "hostile.yaml"
    flow.write_bytes(data)
    out = tmp_path / "runs"
    result = amc("run", flow, "--device", f"ios:{wda.url}", "--out", out)
    assert result.code == 2, result.err
    assert message in result.err and result.err.endswith("amc: nothing was run\n")
    assert result.out == ""
    assert wda.count() == 0  # not even a status request: the device was never contacted
    assert not out.exists()
    assert not Path("/tmp/pwned").exists()


def test_one_hostile_flow_among_good_ones_stops_them_all(wda: WdaFace, tmp_path: Path) -> None:
    from tests.hostile.conftest import GOOD_FLOW

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(_bomb())
    result = amc("run", GOOD_FLOW, bomb, GOOD_FLOW, "--device", f"ios:{wda.url}", "--out", tmp_path / "runs")
    assert result.code == 2 and wda.count() == 0 and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "path", ["/dev/zero", "/dev/urandom", "/proc/self/environ", "/", "/nonexistent/f.yaml"]
)
def test_special_files_are_refused_without_reading_forever(path: str, wda: WdaFace, tmp_path: Path) -> None:
    result = amc("run", path, "--device", f"ios:{wda.url}", "--out", tmp_path / "runs")
    assert result.code == 2 and "nothing was run" in result.err
    assert wda.count() == 0
