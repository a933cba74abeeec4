"""The default enricher reads any screen without failing: whatever the texts (blank ones included),
ids (dialog titles, permission prompts) and types (alerts, keyboards), on every wire format it
either names a page that is not blank or says it cannot (None). A blank dialog title once made it
raise and the step lost its page."""

from __future__ import annotations

from amc.drivers.hierarchy import parse_source
from amc.semantic.enricher import DefaultEnricher
from amc.semantic.screen import alert_of
from hypothesis import given
from hypothesis import strategies as st

from tests.parsers import render
from tests.parsers.render import Node
from tests.parsers.test_roundtrip_property import IOS_RENDERERS, PROPERTY_SETTINGS, TEXT

BLANK_OR_TEXT = st.one_of(st.sampled_from(["", " ", "   ", "\t", "\n ", "\u00a0"]), TEXT)
ANDROID_IDS = st.sampled_from(
    [
        "",
        "android:id/alertTitle",
        "android:id/message",
        "com.android.permissioncontroller:id/permission_message",
        "com.android.settings:id/action_bar",
        "com.example.app:id/toolbar",
    ]
)
IOS_IDS = st.sampled_from(["", " ", "Allow", "Settings"])
ANDROID_TYPES = st.sampled_from(
    ["android.widget.FrameLayout", "android.widget.TextView", "android.widget.Toolbar"]
)
IOS_TYPES = st.sampled_from(
    [
        "XCUIElementTypeAlert",
        "XCUIElementTypeNavigationBar",
        "XCUIElementTypeStaticText",
        "XCUIElementTypeKeyboard",
    ]
)
BOUNDS = st.sampled_from([(0, 0, 1080, 2400), (100, 800, 980, 1400), (0, 0, 0, 0), (150, 850, 900, 950)])


def _nodes(types: st.SearchStrategy[str], ids: st.SearchStrategy[str]) -> st.SearchStrategy[Node]:
    def node(children: st.SearchStrategy[list[Node]]) -> st.SearchStrategy[Node]:
        return st.builds(
            Node,
            cls=types,
            bounds=BOUNDS,
            text=BLANK_OR_TEXT,
            desc=BLANK_OR_TEXT,
            ident=ids,
            enabled=st.booleans(),
            visible=st.booleans(),
            children=children,
        )

    return st.recursive(node(st.just([])), lambda kids: node(st.lists(kids, max_size=3)), max_leaves=12)


def _check(scene_bytes: bytes) -> None:
    scene = parse_source(scene_bytes)
    result = DefaultEnricher().enrich(scene)  # not enrich_scene: a failure must show here
    if result is not None:
        assert result.page.strip() == result.page and result.page
        assert result.alert is None or (result.alert.strip() == result.alert and result.alert)
        assert result.title is None or (result.title.strip() == result.title and result.title)
        assert (result.alert is None) == (alert_of(scene) is None)


@PROPERTY_SETTINGS
@given(windows=st.lists(_nodes(ANDROID_TYPES, ANDROID_IDS), min_size=1, max_size=3))
def test_android_screens_are_named_or_not_but_never_fail(windows: list[Node]) -> None:
    for renderer in (render.uiautomator, render.appium_android):
        _check(renderer(windows))


@PROPERTY_SETTINGS
@given(tree=_nodes(IOS_TYPES, IOS_IDS))
def test_ios_screens_are_named_or_not_but_never_fail(tree: Node) -> None:
    app = Node("XCUIElementTypeApplication", (0, 0, 390, 844), "", "", "", children=[tree])
    for renderer in IOS_RENDERERS:
        _check(renderer(app))
