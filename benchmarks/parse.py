"""How much a Scene costs next to a bare lxml parse of the same bytes, and what a step pays.

For every input (:mod:`benchmarks.parse_inputs`: the project's fixtures of every format, the real
captures, synthetic 2,000- and 20,000-node trees of Android, iOS XML and iOS JSON) it prints two
Markdown tables:

- **parse**: ``drivers.hierarchy.parse_source(data)`` against ``lxml.etree.fromstring(data)`` (for
  the WDA JSON source: ``json.loads``). "Least Scene" is the bare parse plus the Python objects
  every Scene is made of (its tree source, its root element, the Scene itself), built the
  cheapest way the code has, and nothing else: no format detection, no limits, no window or app.
  A parser handing back these objects cannot cost less; on a small input they are most of the
  ratio, and "Scene vs least" says what the parser adds on top of them.
- **step**: what one step of a task pays to find its target: the parse, the enricher
  (``DefaultEnricher``: title, keyboard, alert) and one selector resolved (``Selector(text=…)``,
  then ``Selector(id=…)`` of an element on the screen), against what a client used directly pays:
  the bare parse and one lxml XPath query finding the same element (for JSON: ``json.loads`` and a
  walk over the dicts). "Least step" is the client's step plus the least Scene and the Python
  objects a step hands back (the element found, a ``SemanticScene``), with no rule run.

Every contender starts from the same bytes and pays for reading them. Where lxml refuses a dump as
it is (``uiautomator dump /dev/tty`` redirected by a Windows shell: UTF-16 with a BOM and a line of
text after the root), the client's side parses what :func:`client_read` makes of it (decoded,
encoded as UTF-8, the trailing text cut), read again on every call as the harness decodes it on
every call; the JSON source goes to ``json.loads`` as bytes, as it comes off the wire.

    python benchmarks/parse.py [--repeats N] [--quick] [--seconds S] [--only TEXT ...]

Method: contenders run in the same process, interleaved in blocks whose order rotates from
round to round (no contender always runs after another). A sample is a batch of runs sized so that
the fastest contender's batch lasts about 2 ms (the same count for every contender of an input;
one run for the large trees), timed after ``gc.collect()`` and glibc's ``malloc_trim(0)`` (where
there is one) so that none inherits the allocator state another left; each run's result is dropped
as soon as it returns, so a sample pays for building and for freeing it, as a loop over screens does
(the cyclic garbage of a Scene included, when the collector runs). Every input gets at least
``--repeats`` rounds and as many more as fit in ``--seconds``; the tables give each contender's
minimum and median time per run, the ratio of the minimums and the paired ratio: the median over
rounds of one contender's block over the other's block of the same round (neighbours in time, so a
machine slow for a while weighs on both sides of each pair).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from amc.core.lazy import LazyElement  # noqa: E402
from amc.core.models import Scene, UIElement, parsed_scene  # noqa: E402
from amc.core.selectors import Selector  # noqa: E402
from amc.drivers.hierarchy import FORMATS, decode_source, detect_format, parse_source  # noqa: E402
from amc.drivers.hierarchy.json_source import JsonSource  # noqa: E402
from amc.drivers.hierarchy.schema import ANDROID, IOS  # noqa: E402
from amc.drivers.hierarchy.xml_source import XmlSource  # noqa: E402
from amc.semantic import SemanticScene  # noqa: E402
from amc.semantic.enricher import DefaultEnricher  # noqa: E402

from benchmarks.common import Stats  # noqa: E402
from benchmarks.parse_inputs import inputs  # noqa: E402

_BARE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
_ENRICHER = DefaultEnricher()


# --- timing ----------------------------------------------------------------------------------------


def _malloc_trim() -> Callable[[], object]:
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is None:
        return lambda: None
    return lambda: trim(0)


_TRIM = _malloc_trim()


def _settle() -> None:
    """Leave no garbage and no cached free memory for the next run to profit or suffer from."""
    gc.collect()
    _TRIM()


@dataclass(frozen=True)
class Timing:
    best: float
    median: float
    rounds: tuple[float, ...] = ()  # the mean time per run of each round's block, in round order


def paired(a: Timing, b: Timing) -> float:
    """The median over rounds of ``a``'s block over ``b``'s block of the same round
    (:meth:`benchmarks.common.Stats.paired` of the rounds)."""
    return Stats.of(a.rounds).paired(Stats.of(b.rounds))


def _batch(candidates: Mapping[str, Callable[[], object]], target: float) -> int:
    """How many runs one sample takes so that the fastest candidate's sample lasts ``target``
    seconds (timer jitter then weighs the same on every input)."""
    fastest = float("inf")
    for run in candidates.values():
        for _ in range(3):
            _settle()
            start = time.perf_counter()
            kept = run()
            fastest = min(fastest, time.perf_counter() - start)
            del kept
    return max(1, min(1000, round(target / max(fastest, 1e-9))))


def timings(
    candidates: Mapping[str, Callable[[], object]],
    rounds: int,
    seconds: float,
    block: int = 2,
    target: float = 0.002,
) -> dict[str, Timing]:
    """Each candidate's minimum and median time per run, over samples of a batch of runs (see
    :func:`_batch`), in blocks of ``block`` samples whose order rotates from round to round."""
    names = list(candidates)
    batch = _batch(candidates, target)
    samples: dict[str, list[float]] = {name: [] for name in names}
    per_round: dict[str, list[float]] = {name: [] for name in names}
    deadline = time.perf_counter() + seconds
    done = 0
    while done < rounds or (time.perf_counter() < deadline and done < 100 * rounds):
        shift = done % len(names)
        for name in names[shift:] + names[:shift]:
            run = candidates[name]
            took = []
            for _ in range(block):
                _settle()
                start = time.perf_counter()
                for _ in range(batch):
                    run()  # dropped at once: a sample pays for building and freeing, as a loop does
                took.append((time.perf_counter() - start) / batch)
            samples[name] += took
            per_round[name].append(statistics.fmean(took))
        done += 1
    return {name: Timing(min(s), statistics.median(s), tuple(per_round[name])) for name, s in samples.items()}


def _warm_up(seconds: float = 1.0) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(10_000))


# --- what each side runs -----------------------------------------------------------------------------


def client_read(data: bytes) -> bytes:
    """What a client does to a dump plain lxml cannot read as is before it parses it: a UTF-16
    file (``uiautomator dump /dev/tty`` redirected by a Windows shell) decoded and encoded as
    UTF-8, and the text after the last tag (``UI hierchary dumped to: /dev/tty``) cut off."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = data.decode("utf-16").encode("utf-8")
    return data[: data.rfind(b">") + 1]


def _needs_reading(data: bytes) -> bool:
    """Whether lxml refuses ``data`` as it is, so that every contender but the harness parses what
    :func:`client_read` makes of it, read again on every call: the client pays for reading the
    bytes it was given as the harness pays for its own decoding."""
    try:
        etree.fromstring(data, _BARE_PARSER)
    except etree.XMLSyntaxError:
        etree.fromstring(client_read(data), _BARE_PARSER)  # a read that does not parse fails here
        return True
    return False


def _bare_parse(data: bytes) -> Callable[[], object]:
    if _needs_reading(data):
        return lambda: etree.fromstring(client_read(data), _BARE_PARSER)
    return lambda: etree.fromstring(data, _BARE_PARSER)


# The raw attribute a client queries for each selector field, per format.
_CLIENT_ATTRIBUTE: dict[str, dict[str, str]] = {
    "uiautomator": {"text": "text", "id": "resource-id"},
    "appium-uiautomator2": {"text": "text", "id": "resource-id"},
    "wda-xml": {"text": "label", "id": "name"},
    "appium-xcuitest": {"text": "label", "id": "name"},
    "wda-json": {"text": "label", "id": "name"},
}


@dataclass(frozen=True)
class Target:
    """An element a step looks for: the selector the harness resolves, the raw value a client queries."""

    field: str  # "text" or "id"
    value: str
    selector: Selector


def _targets(data: bytes, fmt: str) -> list[Target]:
    """A text and an id of the last visible elements that have one; the step looks for the first
    element each selects (the client's XPath query selects it too: the first in document order)."""
    scene = parse_source(data)
    attribute = _CLIENT_ATTRIBUTE[fmt]
    out: list[Target] = []
    elements = scene.elements()
    for field in ("text", "id"):
        for el in reversed(elements):
            value = el.attributes.get(attribute[field])
            if value and el.visible:
                selector = Selector(text=value) if field == "text" else Selector(id=value)
                out.append(Target(field, value, selector))
                break
    return out


def _json_nodes(node: Any) -> Iterator[Mapping[str, Any]]:
    stack = [node]
    while stack:
        el = stack.pop()
        yield el
        stack.extend(reversed(el.get("children") or ()))


def _client_step(data: bytes, fmt: str, target: Target) -> Callable[[], object]:
    attribute = _CLIENT_ATTRIBUTE[fmt][target.field]
    if fmt == "wda-json":

        def json_step() -> object:
            doc = json.loads(data)
            tree = doc.get("value", doc)
            return next(n for n in _json_nodes(tree) if n.get(attribute) == target.value)

        return json_step
    query, value = etree.XPath(f"//*[@{attribute} = $v]"), target.value
    if _needs_reading(data):

        def read_step() -> object:
            return query(etree.fromstring(client_read(data), _BARE_PARSER), v=value)[0]  # type: ignore[index]

        return read_step

    def xml_step() -> object:
        return query(etree.fromstring(data, _BARE_PARSER), v=value)[0]  # type: ignore[index]

    return xml_step


def _least_scene(root: LazyElement, fmt: str, utf8: bytes | None) -> Scene:
    """The Scene around ``root``, its slots filled directly (as the parsers do), with nothing read
    from the tree: no window size, no app in front."""
    return parsed_scene(
        device_id="unknown",
        platform=FORMATS[fmt],
        root=root,
        foreground_app=None,
        window_size=(0, 0),
        backend="unknown",
        capture_duration=0.0,
        source=None,
        utf8=utf8,
    )


def _xml_schema(fmt: str) -> Any:
    return ANDROID if FORMATS[fmt] == "android" else IOS


def _least_parse(data: bytes, fmt: str) -> Callable[[], object]:
    """The bare parse and the objects every Scene is made of: its tree source, its root element
    (the document's root, built by the format's own element builder) and the Scene."""
    if fmt == "wda-json":

        def json_least() -> object:
            doc = json.loads(data)
            tree = doc.get("value", doc)
            return _least_scene(JsonSource([tree]).view(tree), fmt, None)

        return json_least
    schema, read = _xml_schema(fmt), _needs_reading(data)

    def xml_least() -> object:
        plain = client_read(data) if read else data
        node = etree.fromstring(plain, _BARE_PARSER)
        return _least_scene(XmlSource(schema).view(node), fmt, plain)

    return xml_least


def _least_step(data: bytes, fmt: str, target: Target) -> Callable[[], object]:
    """The client's step, plus the least Scene and what a step hands back: the element found (built
    by the format's element builder) and a ``SemanticScene``; no rule is run."""
    attribute = _CLIENT_ATTRIBUTE[fmt][target.field]
    if fmt == "wda-json":

        def json_least() -> object:
            doc = json.loads(data)
            tree = doc.get("value", doc)
            found = next(n for n in _json_nodes(tree) if n.get(attribute) == target.value)
            source = JsonSource([tree])
            scene = _least_scene(source.view(tree), fmt, None)
            return scene, source.view(found), SemanticScene(page=target.value)

        return json_least
    schema, query, value = _xml_schema(fmt), etree.XPath(f"//*[@{attribute} = $v]"), target.value
    read = _needs_reading(data)

    def xml_least() -> object:
        plain = client_read(data) if read else data
        node = etree.fromstring(plain, _BARE_PARSER)
        found = query(node, v=value)[0]  # type: ignore[index]
        source = XmlSource(schema)
        scene = _least_scene(source.view(node), fmt, plain)
        return scene, source.view(found), SemanticScene(page=value)

    return xml_least


def _harness_step(data: bytes, target: Target) -> Callable[[], object]:
    def step() -> object:
        scene = parse_source(data)
        return _ENRICHER.enrich(scene), target.selector.resolve(scene)

    return step


# --- tables -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    fmt: str
    elements: int
    size: int
    bare: Timing
    least: Timing
    scene: Timing


@dataclass(frozen=True)
class StepRow:
    name: str
    fmt: str
    elements: int
    target: Target
    client: Timing
    least: Timing
    harness: Timing


def _rounds(data: bytes, repeats: int) -> int:
    # Small inputs get more rounds, so that each contender runs for a similar wall time.
    return max(repeats, min(20, int(repeats * 100_000 / max(len(data), 1))))


def measure(name: str, data: bytes, repeats: int, seconds: float) -> tuple[Row, list[StepRow]]:
    utf8, _ = decode_source(data, 1 << 30)
    fmt = detect_format(utf8)
    candidates: dict[str, Callable[[], object]] = {}
    if fmt == "wda-json":
        candidates["bare"] = lambda: json.loads(data)
    else:
        candidates["bare"] = _bare_parse(data)
    candidates["least"] = _least_parse(data, fmt)
    candidates["scene"] = lambda: parse_source(data)
    elements = len(parse_source(data))
    rounds = _rounds(data, repeats)
    t = timings(candidates, rounds, seconds)
    row = Row(name, fmt, elements, len(data), t["bare"], t["least"], t["scene"])
    steps: list[StepRow] = []
    for target in _targets(data, fmt):
        contenders = {
            "client": _client_step(data, fmt, target),
            "least": _least_step(data, fmt, target),
            "harness": _harness_step(data, target),
        }
        found = contenders["harness"]()[1]  # type: ignore[index]
        assert isinstance(found, UIElement)
        s = timings(contenders, rounds, seconds)
        steps.append(StepRow(name, fmt, elements, target, s["client"], s["least"], s["harness"]))
    return row, steps


def _ratio(a: Timing, b: Timing) -> tuple[float, float]:
    """(the ratio of minimums, the paired ratio)."""
    return a.best / b.best, paired(a, b)


def _ms(t: Timing) -> str:
    return f"{t.best * 1e3:.3f} / {t.median * 1e3:.3f}"


def machine() -> str:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    lxml_version = ".".join(map(str, etree.LXML_VERSION[:3]))
    libxml_version = ".".join(map(str, etree.LIBXML_VERSION))
    return (
        f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, "
        f"lxml {lxml_version}, libxml2 {libxml_version}"
    )


def _summary(label: str, ratios: list[tuple[float, float]]) -> str:
    best = [r[0] for r in ratios]
    med = [r[1] for r in ratios]
    return (
        f"{label}: ratio of minimums median {statistics.median(best):.2f} (best {min(best):.2f}, worst "
        f"{max(best):.2f}); paired ratio median {statistics.median(med):.2f} (best {min(med):.2f}, "
        f"worst {max(med):.2f})"
    )


def print_tables(rows: list[Row], steps: list[StepRow]) -> None:
    print(
        "| input | format | elements | bytes | bare parse (ms, min / median) "
        "| least Scene (ms, min / median) | Scene (ms, min / median) | ratio (min) | ratio (paired) "
        "| least vs bare (paired) | Scene vs least (paired) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    parse_ratios, least_ratios, over_least = [], [], []
    for r in rows:
        best, med = _ratio(r.scene, r.bare)
        parse_ratios.append((best, med))
        least_ratios.append(_ratio(r.least, r.bare))
        over_least.append(_ratio(r.scene, r.least))
        print(
            f"| {r.name} | {r.fmt} | {r.elements:,} | {r.size:,} | {_ms(r.bare)} | {_ms(r.least)} "
            f"| {_ms(r.scene)} | **{best:.2f}** | **{med:.2f}** | {least_ratios[-1][1]:.2f} "
            f"| {over_least[-1][1]:.2f} |"
        )
    print(f"\n{_summary('Scene / bare parse', parse_ratios)}")
    print(f"\n{_summary('least Scene / bare parse', least_ratios)}")
    print(f"\n{_summary('Scene / least Scene', over_least)}\n")
    print(
        "| input | format | elements | selector | client: parse + XPath (ms, min / median) "
        "| least step (ms, min / median) | harness: Scene + enrich + resolve (ms, min / median) "
        "| ratio (min) | ratio (paired) | least vs client (paired) | harness vs least (paired) |"
    )
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    step_ratios, least_steps, over_least_steps = [], [], []
    for s in steps:
        best, med = _ratio(s.harness, s.client)
        step_ratios.append((best, med))
        least_steps.append(_ratio(s.least, s.client))
        over_least_steps.append(_ratio(s.harness, s.least))
        shown = s.target.value if len(s.target.value) <= 24 else s.target.value[:21] + "…"
        shown = shown.replace("|", "\\|")
        print(
            f"| {s.name} | {s.fmt} | {s.elements:,} | {s.target.field}={shown!r} | {_ms(s.client)} "
            f"| {_ms(s.least)} | {_ms(s.harness)} | **{best:.2f}** | **{med:.2f}** "
            f"| {least_steps[-1][1]:.2f} | {over_least_steps[-1][1]:.2f} |"
        )
    print(f"\n{_summary('step / client step', step_ratios)}")
    print(f"\n{_summary('least step / client step', least_steps)}")
    print(f"\n{_summary('step / least step', over_least_steps)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=15, help="least rounds for the largest inputs")
    parser.add_argument("--quick", action="store_true", help="skip the 20,000-node trees")
    parser.add_argument("--seconds", type=float, default=0.5, help="time per table per input (default 0.5)")
    parser.add_argument(
        "--only", action="append", default=[], metavar="TEXT", help="just the inputs whose name holds TEXT"
    )
    args = parser.parse_args(argv)
    print(f"Machine: {machine()}\n")
    _warm_up()
    rows: list[Row] = []
    steps: list[StepRow] = []
    for name, data in inputs(args.quick):
        if args.only and not any(part in name for part in args.only):
            continue
        row, step_rows = measure(name, data, max(args.repeats, 5), args.seconds)
        rows.append(row)
        steps.extend(step_rows)
    print_tables(rows, steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
