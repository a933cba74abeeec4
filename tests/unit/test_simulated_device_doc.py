"""docs/simulated-device.md and docs/sim/*.svg are what ``python -m amc.cli.simdoc docs`` writes
from the simulated device (its catalog, stand-ins, profiles and faces), so they cannot drift."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from amc.cli import simdoc
from amc.sim.catalog import catalog
from amc.sim.catalog_peers import stand_ins

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return simdoc.render()


def test_the_page_and_every_picture_are_current(files: dict[str, str]) -> None:
    stale = [
        path
        for path, text in files.items()
        if not (DOCS / path).is_file() or (DOCS / path).read_text() != text
    ]
    extra = sorted(p.name for p in (DOCS / "sim").glob("*.svg") if f"sim/{p.name}" not in files)
    assert not stale and not extra, (
        f"regenerate as docs/simulated-device.md says: stale {stale}, extra {extra}"
    )


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_every_app_screen_and_widget_is_on_the_page(files: dict[str, str], platform: str) -> None:
    page = files[simdoc.DOC]
    for app in {**catalog(platform), **stand_ins(platform)}.values():  # type: ignore[arg-type]
        assert f"`{app.app_id}` ({platform})" in page
        for name, screen in app.screens.items():
            assert f"#### `{name}`: “{screen.title}”" in page, (app.app_id, name)
            assert f"sim/{platform}-{app.app_id}-{name}.svg" in files
            for widget in screen.widgets[:20]:
                assert (
                    (widget.text and f"`{widget.text}" in page)
                    or f":id/{widget.key}`" in page
                    or (f"`{widget.key}`" in page)
                ), (app.app_id, name, widget.key)


def test_a_picture_draws_the_texts_of_its_screen(files: dict[str, str]) -> None:
    picture = files["sim/android-io.appium.android.apis-alert_dialogs.svg"]
    assert picture.startswith("<svg ") and "OK Cancel dialog with a message" in picture
    prompt = files["sim/ios-com.example.amc.notes-notes-prompt.svg"]
    assert "Allow" in prompt and 'fill-opacity="0.35"' in prompt


def test_check_names_a_stale_file_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(DOCS / "sim", tmp_path / "sim")
    (tmp_path / simdoc.DOC).write_text((DOCS / simdoc.DOC).read_text() + "edited by hand\n")
    (tmp_path / "sim" / "android-no-such-app.svg").write_text("<svg/>")

    assert simdoc.main([str(tmp_path), "--check"]) == 1
    err = capsys.readouterr().err
    assert f"stale: {tmp_path / simdoc.DOC}" in err and "android-no-such-app.svg" in err
    assert simdoc.main([str(tmp_path)]) == 0
    assert simdoc.main([str(tmp_path), "--check"]) == 0
    assert not (tmp_path / "sim" / "android-no-such-app.svg").exists()
