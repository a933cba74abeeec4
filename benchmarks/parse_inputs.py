"""The inputs of ``benchmarks/parse.py``: every fixture, every real capture, synthetic trees.

The synthetic trees are deterministic (seeded): a uiautomator2-style Android dump of lists of rows,
a WDA XML table of cells, and the same iOS tree as WDA's JSON source.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from lxml import etree

__all__ = ["REAL_CAPTURES", "SHARED", "inputs", "synthetic_android", "synthetic_ios", "synthetic_ios_json"]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "hierarchy"
SHARED = REPO.parent / "shared" / "fixtures" / "android"
# The UI trees among the project's real outputs (tests/fixtures/real/PROVENANCE.md): a uiautomator
# dump and the lines of a WDA /source (the other files there are command outputs and WDA replies
# that are not trees, such as an element reference, which the parser reads as a one-element tree).
REAL_CAPTURES = (
    REPO
    / "tests"
    / "fixtures"
    / "real"
    / "android"
    / "fixture-uiautomator-dump-permission-allow-deny-a13plus.xml",
    REPO
    / "tests"
    / "fixtures"
    / "real"
    / "ios"
    / "wda-8.5.2-springboard-source-notification-alert-texts.txt",
)


def _words(rng: random.Random) -> str:
    pool = [
        "Settings",
        "Network",
        "internet",
        "Wi\u2011Fi",
        "Bluetooth",
        "Battery",
        "Display",
        "设置",
        "Звук",
        "&",
    ]
    return " ".join(rng.choice(pool) for _ in range(rng.randint(1, 3)))


def synthetic_android(n: int, seed: int = 7) -> bytes:
    """A uiautomator2-style dump of about ``n`` nodes: lists of rows, each a few widgets deep."""
    rng = random.Random(seed)
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\">"]
    count = 0

    def node(cls: str, b: tuple[int, int, int, int], *, text: str = "", rid: str = "", kids: int = 0) -> None:
        nonlocal count
        count += 1
        out.append(
            f'<node index="{count % 7}" text="{text}" resource-id="{rid}" class="{cls}" '
            f'package="com.example.app" content-desc="" checkable="false" checked="false" '
            f'clickable="{"true" if text else "false"}" enabled="true" focusable="false" focused="false" '
            f'scrollable="false" long-clickable="false" password="false" selected="false" '
            f'visible-to-user="true" bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]" '
            f'drawing-order="{count % 5}" hint="" display-id="0"' + (">" if kids else " />")
        )

    def row(top: int) -> None:
        node("android.widget.LinearLayout", (0, top, 1080, top + 176), rid="com.example.app:id/row", kids=1)
        node("android.widget.ImageView", (42, top + 40, 138, top + 136), rid="android:id/icon")
        node("android.widget.RelativeLayout", (168, top + 26, 1038, top + 150), kids=1)
        node(
            "android.widget.TextView",
            (168, top + 40, 1000, top + 96),
            text=_words(rng),
            rid="android:id/title",
        )
        node(
            "android.widget.TextView",
            (168, top + 96, 1000, top + 140),
            text=_words(rng),
            rid="android:id/summary",
        )
        out.append("</node></node>")

    node("android.widget.FrameLayout", (0, 0, 1080, 2400), kids=1)
    node("androidx.recyclerview.widget.RecyclerView", (0, 118, 1080, 2400), kids=1)
    top = 118
    while count < n:
        row(top)
        top += 176
    out.append("</node></node></hierarchy>")
    return "".join(out).replace("&", "&amp;").replace("&amp;#", "&#").encode("utf-8")


def _ios_element(kind: str, x: int, y: int, w: int, h: int, *, label: str = "", kids: bool = False) -> str:
    named = f' name="{label}" label="{label}" value="{label}"' if label else ""
    return (
        f'<XCUIElementType{kind} type="XCUIElementType{kind}"{named} enabled="true" '
        f'visible="{"true" if y < 844 else "false"}" accessible="{"true" if label else "false"}" '
        f'x="{x}" y="{y}" width="{w}" height="{h}" index="0"' + (">" if kids else "/>")
    )


def synthetic_ios(n: int, seed: int = 7) -> bytes:
    """A WDA XML source of about ``n`` elements: a table of cells, each with texts and a button."""
    rng = random.Random(seed)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" '
        'enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0" '
        'processId="312" bundleId="com.apple.Preferences">',
        _ios_element("Window", 0, 0, 390, 844, kids=True),
        _ios_element("Table", 0, 0, 390, 844, kids=True),
    ]
    count, y = 3, 100
    while count < n:
        out.append(_ios_element("Cell", 16, y, 358, 52, kids=True))
        out.append(_ios_element("StaticText", 44, y + 13, 200, 22, label=_words(rng).replace("&", "&amp;")))
        out.append(_ios_element("StaticText", 220, y + 13, 100, 22, label=_words(rng).replace("&", "&amp;")))
        out.append(_ios_element("Button", 320, y + 4, 44, 44, label="More Info"))
        out.append("</XCUIElementTypeCell>")
        count, y = count + 4, y + 52
    out.append("</XCUIElementTypeTable></XCUIElementTypeWindow></XCUIElementTypeApplication>")
    return "".join(out).encode("utf-8")


def synthetic_ios_json(n: int) -> bytes:
    """The synthetic iOS tree as WDA's JSON source says it."""

    def convert(el: Any) -> dict[str, Any]:
        g = el.get
        node: dict[str, Any] = {
            "type": el.tag.removeprefix("XCUIElementType"),
            "name": g("name"),
            "label": g("label"),
            "value": g("value"),
            "rect": {k: int(g(k)) for k in ("x", "y", "width", "height")},
            "isEnabled": "1",
            "isVisible": "1" if g("visible") == "true" else "0",
        }
        if len(el):
            node["children"] = [convert(c) for c in el]
        return node

    root = etree.fromstring(synthetic_ios(n))
    return json.dumps({"value": convert(root), "sessionId": "bench"}, ensure_ascii=False).encode("utf-8")


def inputs(quick: bool) -> list[tuple[str, bytes]]:
    """``(name, bytes)`` of every input, the 20,000-node trees left out when ``quick``."""
    out = [(p.name, p.read_bytes()) for p in sorted(FIXTURES.iterdir())]
    out += [(f"real: {p.name}", p.read_bytes()) for p in REAL_CAPTURES if p.exists()]
    if SHARED.is_dir():
        out += [(f"real: {p.name}", p.read_bytes()) for p in sorted(SHARED.glob("*.xml"))]
    sizes = (2_000,) if quick else (2_000, 20_000)
    for n in sizes:
        out.append((f"synthetic Android {n:,}", synthetic_android(n)))
        out.append((f"synthetic iOS {n:,}", synthetic_ios(n)))
        out.append((f"synthetic iOS JSON {n:,}", synthetic_ios_json(n)))
    return out
