"""One root rule for every file a flow reaches (issue 40, item 6): under ``amc mcp --flow-root R``,
a flow inside ``R`` reaches no file outside it, by ``run_flow``/``runFlow``, ``runScript`` or
``addMedia``, relative or absolute or through a symlink, and the refusal says nothing of the file.

Before, ``run_flow`` of a flow inside ``R`` ran a ``runFlow: ../outside.yaml`` (or an absolute
path) outside ``R``, and when that file was no flow the error quoted its keys. Each agent call here
goes through the MCP SDK's own client to the server ``amc mcp`` builds, on the simulated phone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from amc.agent.mcp_server import build_server
from amc.agent.service import DeviceService
from amc.connect.simulated import SimDriver
from amc.flows import FileOutsideRoot, file_in_roots, in_roots
from mcp import Client
from mcp_types import TextContent

pytestmark = pytest.mark.timeout(60)

APP = "appId: com.example.amc.demo\n---\n"
OUTSIDE_KEYS = "database_password: hunter2-outside\nprivate_notes: do-not-show\n"  # no flow
OUTSIDE_FLOW = APP + "- launchApp\n- inputText: ran-outside\n"


def _run(tmp_path: Path, flow: str, **files: str) -> tuple[bool, str, SimDriver]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "flow.yaml").write_text(flow, encoding="utf-8")
    driver = SimDriver("android")
    service = DeviceService(driver, spec="sim:android", run_dir=tmp_path / "run", flow_root=root)
    service.start()
    replies: list[Any] = []

    async def main() -> None:
        async with Client(build_server(service)) as client:
            replies.append(await client.call_tool("run_flow", {"path": "flow.yaml"}))

    try:
        anyio.run(main)
    finally:
        service.close()
    first = replies[0].content[0]
    assert isinstance(first, TextContent)
    return replies[0].is_error, first.text, driver


CASES = {
    "runFlow ../outside.yaml (a flow)": (
        APP + "- runFlow: ../outside.yaml\n",
        {"outside.yaml": OUTSIDE_FLOW},
    ),
    "runFlow ../outside.yaml (not a flow)": (
        APP + "- runFlow: ../outside.yaml\n",
        {"outside.yaml": OUTSIDE_KEYS},
    ),
    "runFlow by an absolute path": (
        APP + "- runFlow: {outside}/outside.yaml\n",
        {"outside.yaml": OUTSIDE_FLOW},
    ),
    "run_flow in the harness's own dialect": (
        "name: own\nsteps:\n  - run_flow: ../outside.yaml\n",
        {"outside.yaml": "name: o\nsteps:\n  - type: ran-outside\n"},
    ),
    "runScript ../x.js": (APP + "- runScript: ../x.js\n", {"x.js": "output.ran = 'outside'"}),
    "addMedia ../secret.png": (APP + "- addMedia:\n    - ../secret.png\n", {"secret.png": "not a picture"}),
    "runFlow of a file that does not exist": (APP + "- runFlow: ../missing.yaml\n", {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_flow_inside_the_root_reaches_no_file_outside_it(tmp_path: Path, case: str) -> None:
    flow, files = CASES[case]
    failed, text, driver = _run(tmp_path, flow.replace("{outside}", str(tmp_path)), **files)
    assert failed, text
    assert "lies outside the flow root" in text or "lies outside the flow's folder tree" in text, text
    for word in ("database_password", "hunter2", "private_notes", "No such file", "not a flow"):
        assert word not in text, (word, text)  # nothing of the file, not even whether it exists
    assert "ran-outside" not in str(driver.device.tree())  # nothing of the outside flow was typed


def test_a_symlink_inside_the_root_that_leads_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(OUTSIDE_FLOW, encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(tmp_path / "outside.yaml", root / "inside.yaml")
    failed, text, _ = _run(tmp_path, APP + "- runFlow: inside.yaml\n")
    assert failed and "lies outside the flow root" in text, text


def test_files_inside_the_root_are_reached(tmp_path: Path) -> None:
    failed, text, _ = _run(
        tmp_path,
        APP + "- runFlow: sub/inner.yaml\n- runScript: sub/x.js\n",
        **{
            "root/sub/inner.yaml": APP + "- evalScript: ${output.inner = 1}\n",
            "root/sub/x.js": "output.x = 2",
        },
    )
    assert not failed, text


def test_the_rule_is_one_public_function(tmp_path: Path) -> None:
    root = str(tmp_path / "root")
    os.makedirs(root)
    assert file_in_roots("a/b.png", base=root, roots=(root,), what="addMedia") == Path(root) / "a/b.png"
    with pytest.raises(FileOutsideRoot, match=r"assertScreenshot '\.\./b\.png' lies outside the flow root"):
        file_in_roots("../b.png", base=root, roots=(root,), what="assertScreenshot")
    with pytest.raises(FileOutsideRoot):
        file_in_roots("/etc/passwd", base=root, roots=(root,), what="addMedia")
    assert file_in_roots("/etc/passwd", base=root, roots=(), what="addMedia") == Path("/etc/passwd")
    assert in_roots(Path(root) / "x", (root,)) and not in_roots(tmp_path / "x", (root,))
