"""The WDA renderers and element lookup, on the simulated screen without any server."""

from __future__ import annotations

import pytest
from amc.sim.device import SimDevice
from amc.sim.render_wda import WdaNode, render_accessible, render_json, render_xml, wda_tree
from amc.sim.wda_query import QueryError, find, parse_predicate
from lxml import etree


def _tree(app: str | None = None, *, typed: str | None = None) -> WdaNode:
    device = SimDevice("ios")
    if app:
        device.launch(app)
    if typed is not None:
        device.tap(195, 147)  # the username field of the demo app
        device.type_text(typed)
    root = device.tree()
    return wda_tree(root, bundle_id=root.package)


def test_xml_follows_wda_attribute_rules() -> None:
    xml = render_xml(_tree("com.example.amc.demo", typed="q&a"))
    doc = etree.fromstring(xml.encode())
    app = doc
    assert app.tag == "XCUIElementTypeApplication"
    assert list(app.attrib)[:3] == ["type", "name", "label"]  # no value on the app element
    assert app.get("bundleId") == "com.example.amc.demo" and app.get("processId", "").isdigit()
    field = doc.find(".//XCUIElementTypeTextField")
    assert field is not None
    assert field.get("value") == "q&a" and field.get("name") == "username"
    assert field.get("placeholderValue") == "Username"
    assert list(field.attrib)[-3:] == ["index", "placeholderValue", "traits"]
    assert 'value="q&amp;a"' in xml  # escaped as libxml2 does
    secure = doc.find(".//XCUIElementTypeSecureTextField")
    assert secure is not None and secure.get("value") == secure.get("placeholderValue")  # empty: placeholder


def test_switches_and_static_texts_report_wda_values() -> None:
    doc = etree.fromstring(render_xml(_tree("com.apple.Preferences")).encode())
    switch = doc.find(".//XCUIElementTypeSwitch")
    assert switch is not None and switch.get("value") in ("0", "1") and switch.get("accessible") == "true"
    for text in doc.iter("XCUIElementTypeStaticText"):
        assert text.get("value") == text.get("label")
    hidden = [el for el in doc.iter("XCUIElementTypeCell") if el.get("visible") == "false"]
    assert hidden, "rows scrolled out of view stay in the tree with visible=false"


def test_springboard_is_named_with_a_space() -> None:
    doc = etree.fromstring(render_xml(_tree()).encode())
    assert doc.get("name") == " " and doc.get("bundleId") == "com.apple.springboard"
    assert doc.find(".//XCUIElementTypeIcon[@label='Settings']") is not None


def test_json_and_accessible_trees() -> None:
    tree = _tree("com.apple.Preferences")
    info = render_json(tree)
    assert info["type"] == "Application" and info["isVisible"] == "1" and info["customActions"] is None
    assert set(info) >= {
        "rawIdentifier",
        "name",
        "value",
        "label",
        "rect",
        "frame",
        "isAccessible",
        "children",
    }
    accessible = render_accessible(tree)

    def leaves(node: dict[str, object]) -> list[dict[str, object]]:
        kids = node.get("children")
        if not isinstance(kids, list):
            return [node]
        return [leaf for kid in kids for leaf in leaves(kid)]

    assert all("value" in leaf and "label" in leaf for leaf in leaves(accessible))


@pytest.mark.parametrize(
    ("predicate", "matches"),
    [
        ("name == 'General'", 1),
        ("label CONTAINS[c] 'wi-fi'", 1),
        (
            "type == 'XCUIElementTypeCell' AND "
            "(name BEGINSWITH 'com.apple.settings.g' OR name == 'airplane')",
            2,
        ),
        ("NOT visible == true AND type == 'XCUIElementTypeCell'", 0),
        ("value IN {'0', '1'}", 1),
        ("name MATCHES 'Blue.*'", 1),
        ("label LIKE 'Sounds*'", 1),
        ("wdName == 'General' && wdType == 'XCUIElementTypeStaticText'", 1),
        ("width > 300 AND type == 'XCUIElementTypeTable'", 1),
    ],
)
def test_predicates(predicate: str, matches: int) -> None:
    tree = _tree("com.apple.Preferences")
    found = [n for n in tree.iter() if parse_predicate(predicate)(n) and n.visible]
    assert len(found) == matches, [n.name for n in found]


def test_lookup_strategies_agree() -> None:
    tree = _tree("com.apple.Preferences")
    by_id = find(tree, "accessibility id", "General")
    by_xpath = find(tree, "xpath", "//*[@name='General']")
    by_chain = find(tree, "class chain", "**/XCUIElementTypeAny[`name == 'General'`]")
    by_predicate = find(tree, "predicate string", "name == 'General'")
    assert by_id == by_xpath == by_chain == by_predicate and len(by_id) == 1
    assert find(tree, "class name", "XCUIElementTypeNavigationBar")[0].name == "Settings"


@pytest.mark.parametrize(
    ("using", "value"),
    [
        ("xpath", "//*["),
        ("predicate string", "name =="),
        ("predicate string", "name ~~ 'x'"),
        ("class chain", "**/XCUIElementTypeCell[`name == 'x'"),
        ("class chain", "XCUIElementTypeCell[0]"),
        ("link text", "x"),
    ],
)
def test_bad_locators_are_query_errors(using: str, value: str) -> None:
    with pytest.raises(QueryError):
        find(_tree(), using, value)
