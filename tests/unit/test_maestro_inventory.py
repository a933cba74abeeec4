"""The Maestro corpus inventory counts what a flow file says, and INVENTORY.md is what it prints today."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "maestro"


def _inventory() -> ModuleType:
    spec = importlib.util.spec_from_file_location("maestro_inventory", FIXTURES / "inventory.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _corpus(tmp_path: Path, files: dict[str, str], split: str = "train") -> Path:
    repo = tmp_path / "o__r"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    split_json = {"repos": {"o/r": {"split": split, "dir": "o__r"}}}
    (tmp_path / "split.json").write_text(json.dumps(split_json), encoding="utf-8")
    return tmp_path


FLOW = """\
appId: com.example
onFlowStart:
  - runScript: setup.js
---
- launchApp
- tapOn: "Sign (in)"
- tapOn:
    id: ".*submit"
    below: Password
- runFlow:
    when:
      true: ${output.ready}
    commands:
      - back
      - pressKey: Enter
- inputText: x
  label: oops
"""


def test_counts_nested_commands_forms_and_options(tmp_path: Path) -> None:
    inv = _inventory()
    tally = inv.count_corpus(_corpus(tmp_path, {"f.yaml": FLOW}))["train"]
    assert tally.flow_files == 1
    # Commands inside runFlow.commands and the header's onFlowStart count as uses of their own.
    assert tally.uses["runScript"] == 1 and tally.uses["back"] == 1 and tally.uses["pressKey"] == 1
    assert tally.uses["tapOn"] == 2 and tally.files["tapOn"] == 1
    assert tally.forms[("launchApp", "bare string")] == 1
    assert tally.forms[("tapOn", "scalar")] == 1 and tally.forms[("tapOn", "mapping")] == 1
    assert tally.uses["tapOn.below=<scalar>"] == 1
    # PyYAML reads the key `true:` as a boolean; Maestro reads it as the option named "true".
    assert tally.uses["runFlow.when.true"] == 1
    assert tally.values[("pressKey", "Enter")] == 1
    # A second key beside a command is flagged (Maestro rejects it), not counted as a command.
    assert tally.features["a command item with several keys (Maestro rejects it)"] == 1
    assert "label" not in tally.uses
    assert tally.features["selector text or id: regex syntax (.* .+ a bar [..] \\x ^ $)"] == 1
    assert tally.features["selector text or id: only ( ) ? + * { } (literal, changed as regex)"] == 1
    assert tally.features["${...} (a JavaScript expression)"] == 1


def test_workspace_config_is_not_a_flow_and_unknown_names_are_marked(tmp_path: Path) -> None:
    inv = _inventory()
    files = {
        "config.yaml": "flows:\n  - '*'\nexecutionOrder:\n  continueOnFailure: false\n",
        "g.yaml": "appId: a\n---\n- assertOneOf:\n  - x\n- tapOn\n",
        "s.js": "output.x = 1\n",
    }
    tallies = inv.count_corpus(_corpus(tmp_path, files, split="holdout"))
    tally = tallies["holdout"]
    assert tallies["train"].flow_files == 0
    assert (tally.flow_files, tally.config_files, tally.js_files) == (1, 1, 1)
    assert tally.config_keys["executionOrder.continueOnFailure"] == 1
    assert tally.features["a command name that is not a Maestro 2.8.0 command"] == 1
    assert tally.features["a bare string item Maestro 2.8.0 does not accept"] == 1
    assert "`assertOneOf` (not Maestro)" in inv.render(tallies)


def test_missing_split_json_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = _inventory()
    assert inv.main(["inventory.py", str(tmp_path)]) == 2
    assert "no split.json" in capsys.readouterr().err


def test_inventory_md_is_what_the_script_prints_for_the_corpus() -> None:
    inv = _inventory()
    printed = inv.render(inv.count_corpus(FIXTURES / "corpus"))
    assert (FIXTURES / "INVENTORY.md").read_text(encoding="utf-8") == printed, (
        "regenerate: python tests/fixtures/maestro/inventory.py > tests/fixtures/maestro/INVENTORY.md"
    )
