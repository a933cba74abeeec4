"""Where the parser tests find their inputs, and small helpers to read Scenes."""

from __future__ import annotations

from pathlib import Path

from amc.core.models import Scene, UIElement
from amc.drivers.hierarchy import parse_source

__all__ = ["FIXTURES", "SHARED_ANDROID", "fixture", "parse_fixture", "the"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hierarchy"
# Real captures live beside the repository (see ../shared/fixtures/PROVENANCE.md); CI has them.
SHARED_ANDROID = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "android"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def parse_fixture(name: str, **kwargs: object) -> Scene:
    return parse_source(fixture(name), **kwargs)  # type: ignore[arg-type]


def the(scene: Scene, **where: object) -> UIElement:
    """The one element (visible or not) whose attributes equal ``where``; fails loudly otherwise."""
    found = [el for el in scene if all(getattr(el, k) == v for k, v in where.items())]
    assert len(found) == 1, f"expected one element with {where}, found {len(found)}"
    return found[0]
