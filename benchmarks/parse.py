"""How much a Scene costs next to a bare lxml parse of the same bytes.

For every fixture (tests/fixtures/hierarchy and, when present, ../shared/fixtures/android) and for
synthetic 2,000- and 20,000-node trees of both platforms, this times, in the same run and
interleaved, ``drivers.hierarchy.parse_source(data)`` and ``lxml.etree.fromstring(data)`` (for the
WDA JSON source: ``json.loads``) and prints the medians and their ratio as a Markdown table. A third
column, "attribute dicts only", is an lxml parser target that does nothing but keep each element's
attributes as the Python dict lxml hands it: the floor for any design that keeps raw attributes.

    python benchmarks/parse.py [--repeats N] [--quick]

Timing: ``time.perf_counter``, a one-second CPU warm-up, then rounds that run each candidate once in
turn, each after a ``gc.collect()``; the result of a run is released only after its clock stops,
so neither side pays for freeing its tree, or for the other side's garbage, inside the
measurement.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from lxml import etree

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from amc.drivers.hierarchy import decode_source, detect_format, parse_source  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "hierarchy"
REAL = REPO.parent / "shared" / "fixtures" / "android"

_BARE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


class _KeepAttributes:
    """The floor for any design that keeps each element's raw attributes as a Python dict."""

    def __init__(self) -> None:
        self.stack: list[list[Any]] = [[]]

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self.stack.append([tag, attrib])

    def end(self, tag: str) -> None:
        frame = self.stack.pop()
        self.stack[-1].append(frame)

    def close(self) -> list[Any]:
        out, self.stack = self.stack, [[]]
        return out


_KEEP = _KeepAttributes()
_KEEP_PARSER = etree.XMLParser(
    target=cast(Any, _KEEP), resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
)


# --- synthetic trees -----------------------------------------------------------------------------


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


# --- timing ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    fmt: str
    elements: int
    size: int
    bare: float
    floor: float | None
    scene: float

    @property
    def ratio(self) -> float:
        return self.scene / self.bare


def _warm_up(seconds: float = 1.0) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(10_000))


def _medians(candidates: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(repeats):
        for name, run in candidates.items():
            gc.collect()  # each run pays for its own garbage, not for the previous run's
            start = time.perf_counter()
            kept = run()
            times[name].append(time.perf_counter() - start)
            del kept
    return {name: statistics.median(samples) for name, samples in times.items()}


def _bare_input(data: bytes) -> bytes:
    """What plain lxml can read of ``data``: as is, or (UTF-16 capture, text after the root) the
    UTF-8 bytes without the trailing line, which favours the bare side."""
    try:
        etree.fromstring(data, _BARE_PARSER)
        return data
    except etree.XMLSyntaxError:
        utf8, _ = decode_source(data, 1 << 30)
        return utf8[: utf8.rstrip().rfind(b">") + 1]


def measure(name: str, data: bytes, repeats: int) -> Row:
    utf8, text = decode_source(data, 1 << 30)
    fmt = detect_format(utf8)
    candidates: dict[str, Callable[[], object]] = {}
    if fmt == "wda-json":
        candidates["bare"] = lambda: json.loads(text)
    else:
        plain = _bare_input(data)
        candidates["bare"] = lambda: etree.fromstring(plain, _BARE_PARSER)
        candidates["floor"] = lambda: etree.fromstring(plain, _KEEP_PARSER)
    candidates["scene"] = lambda: parse_source(data)
    elements = len(parse_source(data))
    # Small inputs get more rounds so that each side runs for a similar wall time.
    rounds = max(repeats, min(2000, int(repeats * 2_000_000 / max(len(data), 1))))
    medians = _medians(candidates, rounds)
    return Row(name, fmt, elements, len(data), medians["bare"], medians.get("floor"), medians["scene"])


def inputs(quick: bool) -> list[tuple[str, bytes]]:
    out = [(p.name, p.read_bytes()) for p in sorted(FIXTURES.iterdir())]
    if REAL.is_dir():
        out += [(f"real: {p.name}", p.read_bytes()) for p in sorted(REAL.glob("*.xml"))]
    sizes = (2_000,) if quick else (2_000, 20_000)
    for n in sizes:
        out.append((f"synthetic Android {n:,}", synthetic_android(n)))
        out.append((f"synthetic iOS {n:,}", synthetic_ios(n)))
        out.append((f"synthetic iOS JSON {n:,}", synthetic_ios_json(n)))
    return out


def machine() -> str:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    import os

    lxml_version = ".".join(map(str, etree.LXML_VERSION[:3]))
    libxml_version = ".".join(map(str, etree.LIBXML_VERSION))
    return (
        f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, "
        f"lxml {lxml_version}, libxml2 {libxml_version}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=15, help="rounds for the largest inputs (default 15)")
    parser.add_argument("--quick", action="store_true", help="skip the 20,000-node trees")
    args = parser.parse_args(argv)
    print(f"Machine: {machine()}\n")
    _warm_up()
    rows = [measure(name, data, args.repeats) for name, data in inputs(args.quick)]
    print(
        "| input | format | elements | bytes | bare parse (ms) | attribute dicts only | Scene (ms) | ratio |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        floor = f"{r.floor * 1e3:.3f} ({r.floor / r.bare:.2f}x)" if r.floor is not None else "n/a"
        print(
            f"| {r.name} | {r.fmt} | {r.elements:,} | {r.size:,} | {r.bare * 1e3:.3f} | {floor} "
            f"| {r.scene * 1e3:.3f} | **{r.ratio:.2f}** |"
        )
    ratios = [r.ratio for r in rows]
    print(f"\nmedian ratio {statistics.median(ratios):.2f}, worst {max(ratios):.2f}, best {min(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
