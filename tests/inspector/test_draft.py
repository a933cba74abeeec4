"""The recorded flow file: claimed safely, a launch_app first, every string kept literally."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from amc.core.errors import ConfigError
from amc.flows import load_flow, parse_flow
from amc.inspector import FlowDraft, check_path, claim_path
from amc.inspector.draft import MAX_DRAFT_STEPS

from tests.flows.helpers import REPO


def test_a_new_file_is_claimed_and_holds_a_flow_the_loader_accepts(tmp_path: Path) -> None:
    path = claim_path(tmp_path / "login.yaml", overwrite=False)
    assert path.is_file() and path.read_text() == ""
    draft = FlowDraft(
        "com.example.amc.demo", platform="android", name="login", path=path, device="sim:android"
    )
    draft.save()
    draft.add("type_text", {"text": "${HOME} $${x}", "target": {"id": "username"}})
    draft.add("type_text", {"text": "s3cret", "target": {"id": "password"}, "secret": True})
    draft.add("tap", {"text": "true"})
    draft.add("press", "back")
    flow = load_flow(path, environ={})
    assert flow.name == "login" and flow.platform == "android"
    assert [s.command for s in flow.steps] == ["launch_app", "type_text", "type_text", "tap", "press"]
    assert flow.steps[0].app is not None and flow.steps[0].app.default == "com.example.amc.demo"
    assert flow.steps[1].args["text"] == "${HOME} $${x}"  # typed literally, not as variables
    assert flow.steps[2].secret and flow.secrets == {"s3cret"}
    assert flow.steps[3].args["target"] == {"text": "true", "visible": True}
    assert path.read_text().startswith("# Recorded with `amc inspect --serve --record` on sim:android")
    assert "s3cret" not in draft.text(shown=True) and "***" in draft.text(shown=True)
    assert not [p for p in tmp_path.iterdir() if p.name != "login.yaml"]  # no temporary file left


def test_an_existing_file_is_kept_unless_overwrite_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text("mine\n")
    with pytest.raises(ConfigError, match="already exists") as refused:
        claim_path(path, overwrite=False)
    assert "--overwrite" in str(refused.value)
    assert path.read_text() == "mine\n"
    assert claim_path(path, overwrite=True) == path and path.read_text() == ""


@pytest.mark.parametrize("kind", ["folder", "link", "link to nowhere", "fifo", "missing folder", "dot"])
def test_paths_that_are_not_regular_files_are_refused_even_with_overwrite(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    path = tmp_path / "flow.yaml"
    if kind == "folder":
        path.mkdir()
    elif kind == "link":
        path.symlink_to(target)
    elif kind == "link to nowhere":
        path.symlink_to(tmp_path / "nowhere.yaml")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "missing folder":
        path = tmp_path / "no" / "such" / "flow.yaml"
    else:
        path = tmp_path / "."
    for overwrite in (False, True):
        with pytest.raises(ConfigError, match="--record"):
            check_path(path, overwrite=overwrite)
        with pytest.raises(ConfigError, match="--record"):
            claim_path(path, overwrite=overwrite)
    assert target.read_text() == "keep me\n"
    assert not (tmp_path / "nowhere.yaml").exists()


def test_a_draft_is_bounded(tmp_path: Path) -> None:
    draft = FlowDraft("com.a", platform="ios", name="long")
    for _ in range(MAX_DRAFT_STEPS - 1):
        draft.add("press", "home")
    with pytest.raises(ConfigError, match="steps"):
        draft.add("press", "home")
    assert len(draft.steps) == MAX_DRAFT_STEPS


def test_the_recording_shown_in_the_docs_is_a_flow_the_loader_accepts() -> None:
    docs = (REPO / "docs" / "inspector.md").read_text(encoding="utf-8")
    block = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    flow = parse_flow(block, environ={})
    assert [s.command for s in flow.steps] == ["launch_app", "type_text", "type_text", "tap"]
    draft = FlowDraft("com.example.amc.demo", platform="android", name="login", device="x")
    draft.add("type_text", {"text": "qa", "target": {"id": "username"}})
    draft.add("type_text", {"text": "secret123", "target": {"id": "password"}, "secret": True})
    draft.add("tap", {"text": "Sign in"})
    assert draft.text().split("\n", 1)[1] == block.split("\n", 1)[1]  # the docs show what is written
