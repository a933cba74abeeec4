"""The C module's own contract (``drivers/hierarchy/_native.c``): what it answers equals what
lxml answers on every input the parsers know, and every wrong argument is a typed error, never a
crash. The rest of tests/parsers runs the whole parser both ways (conftest.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from amc.core.errors import SceneParseError
from amc.core.selectors import Selector
from amc.drivers.hierarchy import native
from amc.drivers.hierarchy.schema import ANDROID, IOS
from amc.drivers.hierarchy.source import decode_source, detect_format
from amc.drivers.hierarchy.walk import attribute_plan, native_plan
from amc.drivers.hierarchy.xml_source import _parser
from lxml import etree

from tests.parsers.conftest import BUILT, REQUIRED
from tests.parsers.snapshot import inputs

PLAIN = re.compile(r"\[-?\d+,-?\d+\]\[-?\d+,-?\d+\]")


@pytest.fixture(autouse=True)
def walks() -> Iterator[str]:
    """Only the C run: these tests are about the module itself."""
    if BUILT is None:
        if REQUIRED:
            pytest.fail(
                "AMC_REQUIRE_NATIVE=1 but amc.drivers.hierarchy._native is not built or does not load"
            )
        pytest.skip("the C walks are not built (pip install -e . with a C compiler builds them)")
    yield "c"


def _xml_inputs() -> list[tuple[str, bytes]]:
    out = []
    for key, path, data in inputs():
        raw = path.read_bytes() if path is not None else data
        assert raw is not None
        try:
            utf8, _ = decode_source(raw, 1 << 26)
            if detect_format(utf8) == "wda-json":
                continue
            etree.fromstring(utf8, _parser())
        except (SceneParseError, etree.XMLSyntaxError):
            continue  # the hostile and broken inputs: tests/parsers/test_hostile_input.py
        out.append((key, utf8))
    return out


XML = _xml_inputs()
KEYS = [key for key, _ in XML]


def _tree(key: str) -> Any:
    return etree.fromstring(dict(XML)[key], _parser())


def test_the_module_loads_unless_told_not_to() -> None:
    assert native.load({native.ENV_PURE_PYTHON: "1"}) is None
    module = native.load({native.ENV_PURE_PYTHON: "0"})
    assert module is not None and module is BUILT
    assert module.LXML_BUILT_WITH.split(".")[0] == etree.__version__.split(".")[0]


def test_the_inputs_cover_every_source_of_xml() -> None:
    groups = {key.split("/")[0] + "/" + key.split("/")[1].split("-")[0] for key in KEYS}
    assert {"fixtures/hierarchy", "fixtures/real", "synthetic/android", "synthetic/ios"} <= groups, KEYS
    assert len(XML) >= 15, KEYS


@pytest.mark.parametrize("key", KEYS)
def test_scan_counts_what_xpath_counts(key: str) -> None:
    root = _tree(key)
    every = root.xpath("descendant-or-self::*")
    assert BUILT.scan(root, None) == (len(every), False)
    for node in every[:: max(1, len(every) // 7)]:
        assert BUILT.scan(node, None)[0] == len(node.xpath("descendant-or-self::*"))


@pytest.mark.parametrize("key", KEYS)
def test_scan_says_odd_where_a_bounds_is_not_plain(key: str) -> None:
    root = _tree(key)
    plain = all(
        PLAIN.fullmatch(b) for b in (n.get("bounds") for n in root.iterdescendants()) if b is not None
    )
    assert BUILT.scan(root, b"bounds")[1] is (not plain)


@pytest.mark.parametrize(
    ("bounds", "odd"),
    [
        ("[0,0][1080,2400]", False),
        ("[-12,0][1080,-3]", False),
        ("[0,0][1080,2400] ", True),
        ("[0, 0][1080,2400]", True),
        ("[+1,0][1080,2400]", True),
        ("[0,0][1080,2400][0,0]", True),
        ("[0,0]", True),
        ("", True),
        ("[0,0][1080,\uff12\uff14\uff10\uff10]", True),  # full-width digits: not ASCII
        ("&#91;0,0][1,1]", False),  # an entity for "[": what the value reads is plain
    ],
)
def test_scan_reads_the_value_lxml_reads(bounds: str, odd: bool) -> None:
    root = etree.fromstring(f'<hierarchy><node bounds="{bounds}"/><node/></hierarchy>'.encode(), _parser())
    assert BUILT.scan(root, b"bounds") == (3, odd)
    assert BUILT.scan(root[0], b"bounds") == (1, False)  # the element scanned from is not a descendant


@pytest.mark.parametrize("key", KEYS)
def test_values_are_what_get_reads(key: str) -> None:
    root = _tree(key)
    names = sorted({name for node in root.iter() for name in node.attrib} | {"no-such", "text", "bounds"})
    encoded = tuple(name.encode() for name in names)
    for node in root.iter():
        assert BUILT.values(node, encoded) == tuple(node.get(name) for name in names)


def test_values_read_what_lxml_joins_or_defaults() -> None:
    doc = (
        b'<!DOCTYPE a [<!ENTITY e "middle"><!ATTLIST b d CDATA "declared">]>'
        b'<a><b t="1&e;2" u="&#233;t&#233; &amp; &lt;"/></a>'
    )
    tree = etree.fromstring(doc, etree.XMLParser(resolve_entities=False, attribute_defaults=True))
    b = tree[0]
    assert BUILT.values(b, (b"t", b"u", b"d", b"x")) == (b.get("t"), "été & <", b.get("d"), None)
    assert b.get("d") == "declared" and "middle" in (b.get("t") or "")


def test_namespaced_elements_pass_the_walk_for_the_caller_to_judge() -> None:
    root = etree.fromstring(b'<r xmlns:p="urn:x"><p:node text="OK"/><node text="OK"/><p:b/></r>', _parser())
    plan = native_plan(BUILT, ANDROID, Selector(text="OK").query())
    assert plan is not None
    first = BUILT.next_match(root, root, plan)
    assert first is root[0]  # "{urn:x}node" holds text="OK"
    assert BUILT.next_match(root, first, plan) is root[1]
    type_plan = native_plan(BUILT, IOS, Selector(type="XCUIElementTypeButton").query())
    assert BUILT.next_match(root, root, type_plan) is root[0]  # a namespaced name cannot be read in C: passed
    assert BUILT.next_match(root, root[0], type_plan) is root[2]


@pytest.mark.parametrize("key", KEYS)
def test_the_attribute_walk_meets_every_element_holding_the_attribute(key: str) -> None:
    root = _tree(key)
    for name in ("text", "label", "resource-id", "no-such"):
        plan = attribute_plan(BUILT, name)
        met, node = [], BUILT.next_match(root, root, plan)
        while node is not None:
            met.append(node)
            node = BUILT.next_match(root, node, plan)
        assert met == [n for n in root.iterdescendants() if n.get(name)], name


def test_queries_c_strings_cannot_spell_are_left_to_python() -> None:
    assert native_plan(BUILT, ANDROID, Selector(text="a\0b").query()) is None
    assert native_plan(BUILT, ANDROID, Selector(text="\ud800").query()) is None
    assert native_plan(BUILT, ANDROID, Selector(text="ok").query()) is not None


@pytest.mark.parametrize(
    "plan",
    [
        None,
        [()],
        ((None,),),
        (((b"text", False),),),
        (((b"text", 1, ()),),),
        (((b"te\0xt", False, ()),),),
        (((b"text", False, ((True, "str"),)),),),
        (((b"text", False, ((1, b"x"),)),),),
        (((b"text", False, ((True, b"x\0"),)),),),
        (((b"text", False, [(True, b"x")]),),),
    ],
)
def test_a_malformed_plan_is_a_type_error(plan: Any) -> None:
    with pytest.raises(TypeError, match="malformed walk plan"):
        BUILT.compile_plan(plan)


def test_wrong_arguments_are_typed_errors() -> None:
    root = etree.fromstring(b"<a><!--c--><b/><c><d/></c></a>")
    other = etree.fromstring(b"<a><b/></a>")
    plan = attribute_plan(BUILT, "text")
    with pytest.raises(TypeError, match="top must be an lxml element"):
        BUILT.next_match("<a/>", root, plan)
    with pytest.raises(TypeError, match=r"after must be an element, not a lxml\.etree\._Comment"):
        BUILT.next_match(root, root[0], plan)
    with pytest.raises(ValueError, match="after is not top or an element under it"):
        BUILT.next_match(root[2], root[1], plan)
    with pytest.raises(ValueError, match="after is not top or an element under it"):
        BUILT.next_match(root, other[0], plan)
    with pytest.raises(ValueError, match="PyCapsule"):  # not a plan
        BUILT.next_match(root, root, b"plan")
    with pytest.raises(TypeError, match="takes 3 arguments"):
        BUILT.next_match(root, root)
    with pytest.raises(TypeError, match="malformed argument: bounds is an attribute name"):
        BUILT.scan(root, "bounds")
    with pytest.raises(TypeError, match="names must be a tuple of bytes"):
        BUILT.values(root, [b"x"])
    with pytest.raises(TypeError, match="malformed argument: an attribute name is bytes without NUL"):
        BUILT.values(root, (b"x\0y",))
    with pytest.raises(TypeError, match="element must be an lxml element"):
        BUILT.values(etree.ElementTree(root), (b"x",))


@pytest.mark.parametrize(
    "spec",
    [
        None,
        (),
        tuple(range(10)),
    ],
)
def test_a_malformed_builder_spec_is_a_type_error(spec: Any) -> None:
    with pytest.raises(TypeError, match="malformed builder spec"):
        BUILT.compile_builder(spec)


def test_a_builder_spec_with_foreign_slots_is_refused() -> None:
    from amc.core.lazy import LazyElement
    from amc.drivers.hierarchy.common import view_slots

    class Other:
        __slots__ = tuple(f"s{i}" for i in range(18))

    foreign = tuple(getattr(Other, f"s{i}") for i in range(18))
    spec: list[Any] = [
        LazyElement,
        foreign,
        (b"a",),
        ((0,),) * 5,
        ((), lambda: None),
        0,
        (),
        (None,) * 7,
        None,
        dict,
    ]
    with pytest.raises(TypeError, match="a slot descriptor is a slot of the element class"):
        BUILT.compile_builder(tuple(spec))
    spec[1] = view_slots()
    spec[3] = ((5,),) * 5
    with pytest.raises(TypeError, match="an index is out of range"):
        BUILT.compile_builder(tuple(spec))
    spec[3] = ((0,),) * 5
    assert BUILT.compile_builder(tuple(spec)) is not None
