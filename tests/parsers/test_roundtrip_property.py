"""Any well-formed generated tree survives every wire format with its text and bounds intact."""

from __future__ import annotations

from collections.abc import Callable

from amc.core.models import Bounds, Scene
from amc.drivers.hierarchy import parse_source
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.parsers import render
from tests.parsers.render import Node

# Anything XML 1.0 can carry in an attribute: no surrogates, no C0 controls but tab/LF/CR, and no
# U+FFFE/U+FFFF. Bidi isolates, the non-breaking hyphen, CJK and Cyrillic are drawn on purpose.
_SPECIAL = st.sampled_from(
    ["\u2068", "\u2069", "\u2011", "&", "<", ">", '"', "'", "\t", "\n", "\r", "中", "Ж", "🙂"]
)
_CHARS = st.characters(blacklist_categories=("Cs", "Cc", "Cn"))
TEXT = st.text(st.one_of(_CHARS, _SPECIAL), max_size=12)
IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
COORD = st.integers(min_value=-3000, max_value=3000)
SIZE = st.integers(min_value=0, max_value=3000)


@st.composite
def _bounds(draw: st.DrawFn) -> tuple[int, int, int, int]:
    left, top = draw(COORD), draw(COORD)
    return left, top, left + draw(SIZE), top + draw(SIZE)


def _nodes(classes: st.SearchStrategy[str]) -> st.SearchStrategy[Node]:
    leaf = st.builds(
        Node,
        cls=classes,
        bounds=_bounds(),
        text=TEXT,
        desc=TEXT,
        ident=st.one_of(st.just(""), IDENT),
        enabled=st.booleans(),
        visible=st.booleans(),
    )

    def extend(children: st.SearchStrategy[list[Node]]) -> st.SearchStrategy[Node]:
        return st.builds(
            Node,
            cls=classes,
            bounds=_bounds(),
            text=TEXT,
            desc=TEXT,
            ident=st.one_of(st.just(""), IDENT),
            enabled=st.booleans(),
            visible=st.booleans(),
            children=children,
        )

    return st.recursive(leaf, lambda kids: extend(st.lists(kids, max_size=4)), max_leaves=25)


ANDROID_CLASSES = st.sampled_from(
    [
        "android.widget.FrameLayout",
        "android.widget.TextView",
        "android.widget.Button",
        "androidx.compose.ui.platform.ComposeView",
    ]
)
IOS_CLASSES = st.sampled_from(
    ["XCUIElementTypeOther", "XCUIElementTypeStaticText", "XCUIElementTypeButton", "XCUIElementTypeCell"]
)
PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _flatten(node: Node) -> list[Node]:
    out = [node]
    for child in node.children:
        out.extend(_flatten(child))
    return out


def _check_android(windows: list[Node], scene: Scene) -> None:
    expected = [n for w in windows for n in _flatten(w)]
    got = scene.elements()[1:]  # the hierarchy root comes first
    assert len(got) == len(expected)
    for node, el in zip(expected, got, strict=True):
        assert el.type == node.cls
        assert el.text == (node.text or None)
        assert el.label == (node.desc or None)
        assert el.identifier == (node.ident or None)
        assert el.bounds == Bounds(*node.bounds)
        assert (el.enabled, el.visible) == (node.enabled, node.visible)


def _check_ios(app: Node, scene: Scene) -> None:
    expected = _flatten(app)
    got = scene.elements()
    assert len(got) == len(expected)
    for node, el in zip(expected, got, strict=True):
        assert el.type == node.cls
        assert el.label == (node.text or None)
        assert el.value == (node.desc or None)
        assert el.text == (node.text or node.desc or None)
        assert el.identifier == (node.ident or None)
        assert el.bounds == Bounds(*node.bounds)
        assert (el.enabled, el.visible) == (node.enabled, node.visible)


@PROPERTY_SETTINGS
@given(windows=st.lists(_nodes(ANDROID_CLASSES), min_size=1, max_size=3))
def test_android_dumps_round_trip(windows: list[Node]) -> None:
    for renderer in (render.uiautomator, render.appium_android):
        _check_android(windows, parse_source(renderer(windows), platform="android"))


def _app(node: Node) -> Node:
    return Node(
        "XCUIElementTypeApplication", node.bounds, node.text, node.desc, node.ident, children=node.children
    )


IOS_RENDERERS: list[Callable[[Node], bytes]] = [render.wda_xml, render.xcuitest, render.wda_json]


@PROPERTY_SETTINGS
@given(tree=_nodes(IOS_CLASSES))
def test_ios_sources_round_trip(tree: Node) -> None:
    app = _app(tree)
    for renderer in IOS_RENDERERS:
        _check_ios(app, parse_source(renderer(app), platform="ios"))
    _check_ios(app, parse_source(render.wda_json(app, wrapped=False)))


@PROPERTY_SETTINGS
@given(tree=_nodes(IOS_CLASSES), codec=st.sampled_from(["utf-8-sig", "utf-16-le", "utf-16-be", "utf-16"]))
def test_encodings_round_trip(tree: Node, codec: str) -> None:
    app = _app(tree)
    text = render.wda_xml(app).decode("utf-8")
    _check_ios(app, parse_source(text.encode(codec)))
