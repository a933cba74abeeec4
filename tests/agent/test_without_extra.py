"""Without the agent extra the harness still imports and runs; `amc mcp` and `amc agent` say how to
get it. Each case runs in a fresh Python whose import system refuses the extra's packages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.flows.helpers import EXAMPLES

REFUSE = """
import sys
class RefuseExtra:
    # No mcp, no openai: as after `pip install agentic-mobile-control` without [agent].
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("mcp", "mcp_types", "openai"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, RefuseExtra())
"""


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false", "ANDROID_ADB_SERVER_PORT": "1"}
    return subprocess.run(
        [sys.executable, "-c", REFUSE + code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
        check=False,
    )


@pytest.mark.parametrize(
    ("argv", "missing"),
    [
        (["mcp", "--device", "sim:android"], "mcp"),
        (["agent", "a goal", "--llm-url", "http://127.0.0.1:9/v1", "--model", "m"], "openai"),
    ],
)
def test_the_agent_commands_exit_2_saying_how_to_install_the_extra(
    argv: list[str], missing: str, tmp_path: Path
) -> None:
    code = f"from amc.cli import main\nsys.exit(main({argv!r}))"
    done = _python(code, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"amc: error: `amc {argv[0]}` needs the agent extra ({missing} is not installed): "
        "pip install 'agentic-mobile-control[agent]'\n"
    )
    assert not (tmp_path / "runs").exists()


def test_the_harness_imports_and_runs_a_flow_without_the_extra(tmp_path: Path) -> None:
    flow = EXAMPLES / "settings_android.yaml"
    code = (
        "import amc.runtime, amc.agent\n"
        "from amc.agent import action_tools, compact_screen\n"
        "try:\n    from amc.agent import LLMPlanner\n"
        "except ImportError as exc:\n    print('no planner:', exc.name)\n"
        "from amc.cli import main\n"
        f"sys.exit(main(['run', {str(flow)!r}, '--out', 'runs']))"
    )
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("no planner: openai\n")
    assert "flow settings-android passed" in done.stdout
