"""The lazy Scene is the eager one: every input parses to what the eager parser gave (the snapshot
taken on main before Scenes became lazy), and the native queries answer what a Python walk does.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from amc.core.errors import SceneParseError
from amc.core.lazy import LazyElement, count, first_attribute, texts
from amc.core.models import Bounds, Scene, UIElement
from amc.core.selectors import Selector
from amc.drivers.hierarchy import parse_source
from amc.semantic.enricher import DefaultEnricher, title_of
from amc.semantic.screen import Cover, alert_of, cover_of, keyboard_visible
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.parsers.snapshot import describe, inputs, load

SNAPSHOT = load()
INPUTS = {key: (path, data) for key, path, data in inputs()}
PARSED = sorted(key for key, want in SNAPSHOT.items() if "error" not in want)


def _raw(key: str) -> bytes:
    path, data = INPUTS.get(key, (None, None))
    if path is not None and path.exists():
        return path.read_bytes()
    if data is None:
        pytest.skip(f"{key} is not here (../shared/fixtures is absent outside CI)")
    return data


def _eager(rows: list[list[Any]]) -> UIElement:
    """The plain UIElement tree a snapshot describes, built bottom-up."""

    def build(i: int) -> tuple[UIElement, int]:
        _depth, n_children, fields, attributes = rows[i]
        kids: list[UIElement] = []
        j = i + 1
        for _ in range(n_children):
            kid, j = build(j)
            kids.append(kid)
        values = {k: v for k, v in fields.items() if k != "bounds"}
        return UIElement(
            **values, bounds=Bounds(**fields["bounds"]), children=tuple(kids), attributes=attributes
        ), j

    root, end = build(0)
    assert end == len(rows)
    return root


def _pair(key: str) -> tuple[Scene, Scene]:
    lazy = parse_source(_raw(key))
    want = SNAPSHOT[key]
    eager = Scene(
        device_id=lazy.device_id,
        platform=want["platform"],
        root=_eager(want["elements"]),
        foreground_app=want["foreground_app"],
        window_size=tuple(want["window_size"]),  # type: ignore[arg-type]
        captured_at=lazy.captured_at,
        capture_duration=lazy.capture_duration,
        backend=lazy.backend,
    )
    return lazy, eager


@pytest.mark.parametrize("key", sorted(SNAPSHOT))
def test_every_input_parses_to_what_the_eager_parser_gave(key: str) -> None:
    want = SNAPSHOT[key]
    raw = _raw(key)
    if "error" in want:
        with pytest.raises(SceneParseError) as info:
            parse_source(raw)
        assert (type(info.value).__name__, str(info.value)) == (want["error"], want["message"])
        return
    scene = parse_source(raw)
    assert type(scene.root) is LazyElement
    assert describe(scene) == want  # every field, raw attribute, document order, count


@pytest.mark.parametrize("key", PARSED)
def test_a_lazy_tree_equals_and_hashes_like_the_eager_one(key: str) -> None:
    lazy, eager = _pair(key)
    assert lazy.root == eager.root and hash(lazy.root) == hash(eager.root)
    assert lazy == eager and hash(lazy) == hash(eager)
    assert lazy.root.to_dict() == eager.root.to_dict() and repr(lazy.root) == repr(eager.root)
    assert [dict(e.attributes) for e in lazy] == [dict(e.attributes) for e in eager]


def _selectors(scene: Scene) -> list[Selector]:
    out: list[Selector] = []
    for el in scene.root.iter():
        for text in {el.text, el.label, el.value} - {None}:
            assert text is not None
            out += [Selector(text=text), Selector(text_contains=text[: max(1, len(text) // 2)], visible=None)]
        if el.identifier:
            out += [Selector(id=el.identifier), Selector(id=el.identifier.rsplit("/", 1)[-1], index=1)]
        if el.label:
            out.append(Selector(label=el.label, enabled=None))
        short = el.type.rsplit(".", 1)[-1].removeprefix("XCUIElementType")
        out += [Selector(type=el.type), Selector(type=short, visible=False)]
    out += [Selector(text_regex=r"^\w{3,6}$"), Selector(text_regex="(?i)wi.?fi", visible=None)]
    return list(dict.fromkeys(out))[:400]


@pytest.mark.parametrize("key", PARSED)
def test_native_queries_answer_what_a_python_walk_does(key: str) -> None:
    lazy, eager = _pair(key)
    assert len(lazy) == len(eager) == count(eager.root) and texts(lazy.root) == eager.texts()
    for sel in _selectors(eager):
        walked = [el for el in eager.root.iter() if sel.matches(el)]
        if sel.index is not None:
            walked = walked[sel.index : sel.index + 1]
        assert sel.find_all(lazy) == walked, sel
    assert title_of(lazy) == title_of(eager)
    assert keyboard_visible(lazy) == keyboard_visible(eager)
    assert alert_of(lazy) == alert_of(eager)
    cover = cover_of(eager)
    assert cover_of(lazy) == cover == Cover(keyboard_visible(eager), alert_of(eager), cover.kind)
    assert DefaultEnricher().enrich(lazy) == DefaultEnricher().enrich(eager)


@pytest.mark.parametrize("key", PARSED)
def test_the_first_raw_attribute_is_the_one_a_walk_meets(key: str) -> None:
    lazy, eager = _pair(key)
    names = sorted({name for el in eager for name in el.attributes} | {"no-such-attribute"})
    pairs = list(zip(lazy.elements(), eager.elements(), strict=True))
    for name in names:
        for lazy_el, eager_el in pairs[:: max(1, len(pairs) // 12)]:
            walked = next((v for el in eager_el.iter() if (v := el.attributes.get(name))), None)
            assert first_attribute(lazy_el, name) == first_attribute(eager_el, name) == walked, name


@pytest.mark.parametrize("key", PARSED)
def test_an_element_found_natively_is_the_one_a_walk_reaches(key: str) -> None:
    scene = parse_source(_raw(key))
    deepest = scene.find(Selector(text_regex=".", visible=None))  # found natively first
    walked = list(scene.root.iter())
    assert deepest is None or any(el is deepest for el in walked)
    for sel in _selectors(scene)[:50]:
        for el in sel.find_all(scene):
            assert any(w is el for w in walked)


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(PARSED), data=st.data())
def test_any_substring_selector_agrees(key: str, data: st.DataObject) -> None:
    lazy, eager = _pair(key)
    pool = [t for t in eager.texts() + [e.identifier or "" for e in eager] + [e.type for e in eager] if t]
    if not pool:
        return
    word = data.draw(st.sampled_from(pool))
    start = data.draw(st.integers(0, max(0, len(word) - 1)))
    needle = word[start : start + data.draw(st.integers(1, 8))]
    field = data.draw(st.sampled_from(["text", "text_contains", "id", "label", "type"]))
    visible = data.draw(st.sampled_from([True, False, None]))
    sel = Selector(**{field: needle}, visible=visible)  # type: ignore[arg-type]
    assert sel.find_all(lazy) == [el for el in eager.root.iter() if sel.matches(el)]


@pytest.mark.parametrize(
    "name", ["u2_settings_add_network_keyboard.xml", "wda_clock_alarms.json", "wda_springboard_home.xml"]
)
def test_a_scene_nobody_holds_is_freed_at_once(name: str) -> None:
    # A long task drops a parsed Scene per step: were the views and their source a reference cycle,
    # each dropped Scene (and its lxml tree) would wait for the collector's oldest generation.
    data = (Path(__file__).resolve().parents[1] / "fixtures" / "hierarchy" / name).read_bytes()
    gc.collect()
    gc.disable()
    try:
        scene = parse_source(data)
        DefaultEnricher().enrich(scene)
        Selector(text_regex=".", visible=None).find_all(scene)
        assert len(list(scene.root.iter())) == len(scene)
        del scene
        assert gc.collect() == 0, "the dropped Scene left a reference cycle behind"
    finally:
        gc.enable()
