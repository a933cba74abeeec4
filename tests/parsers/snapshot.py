"""The eager parser's results, frozen: what every input parsed to before Scenes became lazy.

``python -m tests.parsers.snapshot`` rewrote ``tests/fixtures/snapshots/scenes.json.gz`` from the
parser on main before the lazy Scene existed (commit a421476); ``test_lazy_equivalence`` compares
today's Scenes with it field by field. Regenerate it only when a change of meaning is intended.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from amc.core.errors import SceneParseError
from amc.core.models import Scene, UIElement
from amc.drivers.hierarchy import parse_source

__all__ = ["SNAPSHOT", "describe", "inputs", "load"]

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
SNAPSHOT = TESTS / "fixtures" / "snapshots" / "scenes.json.gz"
_SHARED = TESTS.parents[1] / "shared" / "fixtures"


def inputs() -> Iterator[tuple[str, Path | None, bytes | None]]:
    """``(key, path, data)`` for every input: a path for files (data None), data for synthetic trees."""
    for p in sorted((TESTS / "fixtures" / "hierarchy").iterdir()):
        yield f"fixtures/hierarchy/{p.name}", p, None
    for p in sorted((TESTS / "fixtures" / "real").rglob("*")):
        if p.is_file() and p.suffix in {".xml", ".json", ".txt"}:
            yield f"fixtures/real/{p.relative_to(TESTS / 'fixtures' / 'real')}", p, None
    for p in sorted(_SHARED.rglob("*.xml")):
        yield f"shared/{p.relative_to(_SHARED)}", p, None
    from benchmarks.parse_inputs import synthetic_android, synthetic_ios, synthetic_ios_json

    for n in (300,):
        yield f"synthetic/android-{n}", None, synthetic_android(n)
        yield f"synthetic/ios-{n}", None, synthetic_ios(n)
        yield f"synthetic/ios-json-{n}", None, synthetic_ios_json(n)


def _element(el: UIElement, depth: int) -> list[Any]:
    return [depth, len(el.children), el.to_dict(children=False), dict(el.attributes)]


def describe(scene: Scene) -> dict[str, Any]:
    """Everything a Scene holds that parsing decides: fields, raw attributes, document order."""
    rows: list[list[Any]] = []
    stack: list[tuple[UIElement, int]] = [(scene.root, 0)]
    while stack:
        el, depth = stack.pop()
        rows.append(_element(el, depth))
        stack.extend((c, depth + 1) for c in reversed(el.children))
    return {
        "platform": scene.platform,
        "foreground_app": scene.foreground_app,
        "window_size": list(scene.window_size),
        "element_count": len(scene),
        "elements": rows,
    }


def load() -> dict[str, Any]:
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as fh:
        return json.load(fh)  # type: ignore[no-any-return]


def main() -> None:
    out: dict[str, Any] = {}
    for key, path, data in inputs():
        raw = path.read_bytes() if path is not None else data
        assert raw is not None
        try:
            out[key] = describe(parse_source(raw))
        except SceneParseError as exc:  # an input the parser refuses stays refused
            out[key] = {"error": type(exc).__name__, "message": str(exc)}
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(SNAPSHOT, "wt", encoding="utf-8", compresslevel=9) as fh:
        json.dump(out, fh, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    print(f"{len(out)} inputs -> {SNAPSHOT}")


if __name__ == "__main__":
    main()
