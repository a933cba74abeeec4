"""Real Maestro JavaScript: the ``runScript`` files and ``${...}`` expressions of the public flows
collected for issue 32 (``tests/fixtures/maestro/corpus``: its PROVENANCE.md names each repository and
commit, SPLIT.md how train and holdout were drawn, by repository, before any rule was written).

Every script and expression parses as it is; every script runs in a context of its own (HTTP answered
with ``{}`` by a fake backend, no variables) and either finishes or fails with an error the script
itself raised, at a line of its file: never a limit, never the engine's own failure. Train and
holdout are reported apart (``docs/maestro.md``, JavaScript).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from amc.core.errors import HarnessError, ScriptError, ScriptMemoryExceeded, ScriptTimeout
from amc.flows.js import HttpResponse, ScriptContext, check_syntax

from .conftest import Backend

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "maestro" / "corpus"
EXPRESSION = re.compile(r"(?<!\\)\$\{([^$]*)}")  # Maestro's own pattern for ${...} in a string

pytestmark = pytest.mark.skipif(
    not (CORPUS / "split.json").is_file(),
    reason="the Maestro corpus (tests/fixtures/maestro/corpus, of branch maestro-corpus) is not checked out",
)


def _repositories(side: str) -> list[Path]:
    split = json.loads((CORPUS / "split.json").read_text(encoding="utf-8"))
    return [CORPUS / repo["dir"] for repo in split["repos"].values() if repo["split"] == side]


def _scripts(side: str) -> list[Path]:
    return sorted(path for repo in _repositories(side) for path in repo.rglob("*.js"))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in _strings(key) + _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _expressions(side: str) -> list[tuple[Path, str]]:
    found = []
    for repo in _repositories(side):
        for path in sorted([*repo.rglob("*.yaml"), *repo.rglob("*.yml")]):
            try:
                documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
            except (yaml.YAMLError, UnicodeDecodeError):
                continue  # a file Maestro refuses too (split.json lists them); not this test's concern
            found += [
                (path, m[1])
                for text in _strings(documents)
                for m in EXPRESSION.finditer(text)
                if m[1].strip()
            ]
    return found


@pytest.mark.parametrize("side", ["train", "holdout"])
def test_every_real_script_and_expression_parses(side: str) -> None:
    scripts, expressions = _scripts(side), _expressions(side)
    assert scripts and expressions
    problems = []
    for path in scripts:
        try:
            check_syntax(path.read_text(encoding="utf-8"), str(path.relative_to(CORPUS)))
        except HarnessError as error:
            problems.append(str(error))
    for path, expression in expressions:
        try:
            check_syntax(expression, str(path.relative_to(CORPUS)))
        except HarnessError as error:
            problems.append(f"{error} in ${{{expression}}}")
    assert problems == []


@pytest.mark.parametrize("side", ["train", "holdout"])
def test_every_real_script_runs_or_fails_at_a_line_of_its_own(side: str) -> None:
    backend = Backend(lambda request: HttpResponse(200, "{}", (("Content-Type", "application/json"),)))
    ran: list[str] = []
    threw: list[str] = []
    wrong: list[str] = []
    for path in _scripts(side):
        name = str(path.relative_to(CORPUS))
        with ScriptContext(platform="android", http=backend) as js:
            try:
                js.run_script(path.read_text(encoding="utf-8"), filename=name)
                ran.append(name)
            except (ScriptTimeout, ScriptMemoryExceeded) as error:
                wrong.append(f"{error} (a limit)")
            except ScriptError as error:
                (threw if error.file == name and error.line is not None else wrong).append(str(error))
    assert wrong == []
    assert ran, "no real script ran"
    print(f"{side}: {len(ran)} ran, {len(threw)} threw at a line of their own: {threw}")
