"""Turn any UI tree a phone answers with into a :class:`~core.models.Scene`.

:func:`parse_source` accepts, and tells apart on its own:

============================  =======================================================================
format                        what it looks like
============================  =======================================================================
``uiautomator``               ``uiautomator dump`` and uiautomator2 ``dump_hierarchy()``:
                              ``<hierarchy rotation><node … bounds="[l,t][r,b]">``
``appium-uiautomator2``       Appium UiAutomator2 page source: ``<hierarchy>`` holding elements named
                              by class (``<android.widget.FrameLayout …>``)
``wda-xml``                   WebDriverAgent ``/source``: ``<XCUIElementTypeApplication …>``
``appium-xcuitest``           Appium XCUITest page source: the same inside ``<AppiumAUT>``
``wda-json``                  WebDriverAgent ``/source?format=json``, bare or as ``{"value": …}``
============================  =======================================================================

Input may be ``str`` or ``bytes``: UTF-8, or UTF-16 LE/BE with or without a byte-order mark, with
text after the closing root tag (Android's ``UI hierchary dumped to: /dev/tty``). Anything else,
and anything hostile (DOCTYPE or ENTITY declarations, entity references, nesting past
``max_depth``, more than ``max_elements`` elements, more than ``max_bytes``, truncated or binary
input), raises :class:`~core.errors.SceneParseError` naming the format tried and where reading
stopped. Parsing reads nothing but the given text: no file, no URL.
"""

from __future__ import annotations

import re
import time
from typing import Final

from ...core.errors import ConfigError, SceneParseError
from ...core.models import Platform, Scene, parsed_scene
from .android import parse_android
from .common import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ELEMENTS,
    Limits,
    ParsedTree,
    SourceFormat,
)
from .ios import parse_ios
from .ios_json import from_json_tree, load_json, unwrap

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ELEMENTS",
    "FORMATS",
    "SourceFormat",
    "decode_source",
    "detect_format",
    "parse_source",
    "parse_tree",
]

FORMATS: Final[dict[SourceFormat, Platform]] = {
    "uiautomator": "android",
    "appium-uiautomator2": "android",
    "wda-xml": "ios",
    "appium-xcuitest": "ios",
    "wda-json": "ios",
}

_WS: Final = b" \t\r\n"
_NAME: Final = re.compile(rb"<([A-Za-z_][\w.\-:$]*)")
_XML_FAMILY: Final = "xml"
_DEFAULT_LIMITS: Final = Limits()
_DEFAULTS: Final = (DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_ELEMENTS)


def _fail(message: str, *, fmt: str | None = None, position: str | None = None) -> SceneParseError:
    return SceneParseError(message, format=fmt, position=position)


def decode_source(source: str | bytes | bytearray | memoryview, max_bytes: int) -> tuple[bytes, str]:
    """The source as UTF-8 bytes (for the parser) and as text (for ``Scene.source``).

    Bytes are read as UTF-8 unless a byte-order mark or the NUL pattern of ``<`` says UTF-16 (or
    a BOM says UTF-32); a leading BOM is dropped either way. The size limit applies to the input
    as given and to its UTF-8 form.
    """
    data, text, skip = _utf8_source(source, max_bytes)
    return data, _decoded(data, skip) if text is None else text


def _decoded(data: bytes, skip: int = 0) -> str:
    """UTF-8 ``data`` as text; ``SceneParseError`` naming the first byte that is not UTF-8
    (counted from the start of the input, ``skip`` bytes of BOM before ``data``)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail(
            f"the source is not valid UTF-8: {exc.reason}", position=f"byte {exc.start + skip}"
        ) from exc


def _utf8_source(
    source: str | bytes | bytearray | memoryview, max_bytes: int
) -> tuple[bytes, str | None, int]:
    """Like :func:`decode_source`, but UTF-8 bytes come back undecoded (text None) with the
    length of the BOM they lost: the XML parser checks them itself, and :func:`_decoded` says
    where they break when it refuses them."""
    if isinstance(source, str):
        if len(source) > max_bytes:
            raise _fail(f"the source is over the {max_bytes}-byte limit", position=f"char {max_bytes}")
        text = source[1:] if source.startswith("\ufeff") else source
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _fail(f"the text cannot be encoded: {exc.reason}", position=f"char {exc.start}") from exc
    elif isinstance(source, bytes | bytearray | memoryview):
        raw = bytes(source)
        if len(raw) > max_bytes:
            raise _fail(
                f"the source is {len(raw)} bytes, over the {max_bytes}-byte limit",
                position=f"byte {max_bytes}",
            )
        encoding, skip = _sniff(raw)
        if encoding == "utf-8":
            return (raw[skip:] if skip else raw), None, skip
        try:
            text = raw[skip:].decode(encoding) if skip else raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise _fail(
                f"the source is not valid {encoding.upper()}: {exc.reason}",
                position=f"byte {exc.start + skip}",
            ) from exc
        text = text[1:] if text.startswith("\ufeff") else text
        data = text.encode("utf-8")
    else:
        raise _fail(f"a UI tree must be str or bytes, not {type(source).__name__}")
    if len(data) > max_bytes:
        raise _fail(f"the source is over the {max_bytes}-byte limit as UTF-8", position=f"byte {max_bytes}")
    return data, text, 0


def _sniff(raw: bytes) -> tuple[str, int]:
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8", 3
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32", 0
    if raw.startswith(b"\xff\xfe"):
        return "utf-16-le", 2
    if raw.startswith(b"\xfe\xff"):
        return "utf-16-be", 2
    if len(raw) >= 2:
        if raw[0] == 0 and raw[1] != 0:
            return "utf-16-be", 0
        if raw[1] == 0 and raw[0] != 0:
            return "utf-16-le", 0
    return "utf-8", 0


def _skip_ws(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _WS:
        i += 1
    return i


def detect_format(data: bytes) -> SourceFormat:
    """Which format UTF-8 ``data`` is in, from its prolog and first tags only.

    Refuses (``SceneParseError``) empty input, DOCTYPE / ENTITY declarations, unterminated
    prolog items and anything that is neither XML nor a JSON object.
    """
    i = _skip_ws(data, 0)
    if i >= len(data):
        raise _fail("the source is empty", position="byte 0")
    first = data[i : i + 1]
    if first == b"{":
        return "wda-json"
    if first != b"<":
        raise _fail(
            f"the source starts with {data[i : i + 16]!r}, not an XML tag or a JSON object",
            position=f"byte {i}",
        )
    while True:
        if data.startswith(b"<?", i):
            end = data.find(b"?>", i + 2)
            if end < 0:
                raise _fail("unterminated XML declaration", fmt=_XML_FAMILY, position=f"byte {i}")
            i = _skip_ws(data, end + 2)
        elif data.startswith(b"<!--", i):
            end = data.find(b"-->", i + 4)
            if end < 0:
                raise _fail(
                    "unterminated comment before the root element", fmt=_XML_FAMILY, position=f"byte {i}"
                )
            i = _skip_ws(data, end + 3)
        elif data.startswith(b"<!", i):
            raise _fail(
                "DOCTYPE / ENTITY declarations are refused: a UI tree never needs one",
                fmt=_XML_FAMILY,
                position=f"byte {i}",
            )
        else:
            break
    match = _NAME.match(data, i)
    if match is None:
        raise _fail("no root element where one should start", fmt=_XML_FAMILY, position=f"byte {i}")
    root = match.group(1)
    if root == b"hierarchy":
        child = _NAME.search(data, match.end())
        if child is None or child.group(1) == b"node":
            return "uiautomator"
        return "appium-uiautomator2"
    if root == b"AppiumAUT":
        return "appium-xcuitest"
    if root.startswith(b"XCUIElementType"):
        return "wda-xml"
    raise _fail(
        f"unrecognised UI tree: root element <{root[:60].decode('utf-8', 'replace')}>",
        fmt=_XML_FAMILY,
        position=f"byte {i}",
    )


def _strip_trailer(data: bytes) -> bytes:
    """Drop plain text after the last tag (``UI hierchary dumped to: /dev/tty``); keep all else."""
    end = len(data)
    while end and data[end - 1] in _WS:
        end -= 1
    if end == 0 or data[end - 1] == 0x3E:  # ends with ">"
        return data
    last = data.rfind(b">", 0, end)
    if last < 0 or data.find(b"<", last, end) >= 0:
        return data  # a tag is cut off: let the parser say where
    return data[: last + 1]


def _too_many(data: bytes, fmt: SourceFormat, limits: Limits) -> None:
    """Refuse wide bombs before any per-element work: counting markers runs at memory speed.

    An element takes at least four bytes (``<a/>``, ``{"type":…}`` more), so small inputs skip
    the count; the parsers count exactly as they go in any case.
    """
    limit = limits.max_elements + 64
    if len(data) < 4 * limit:
        return
    if fmt == "wda-json":
        count = data.count(b'"type"')
    else:
        count = data.count(b"<")
        if count > limit:
            count -= data.count(b"</")
    if count > limit:
        raise _fail(f"the tree has more than {limits.max_elements} elements", fmt=fmt)


def parse_tree(
    data: bytes, text: str | None, limits: Limits, *, platform: Platform | None = None
) -> ParsedTree:
    """Detect the format of decoded input and parse it; see :func:`parse_source`. ``text`` may be
    None for UTF-8 ``data`` (JSON is decoded here; XML is checked by the XML parser)."""
    fmt = detect_format(data)
    if platform is not None and FORMATS[fmt] != platform:
        raise _fail(f"expected an {platform} UI tree, got {FORMATS[fmt]} ({fmt})", fmt=fmt)
    _too_many(data, fmt, limits)
    if fmt == "wda-json":
        tree = unwrap(load_json(_decoded(data) if text is None else text))
        if isinstance(tree, str):  # a /source reply carrying the XML itself
            inner, inner_text = decode_source(tree, limits.max_bytes)
            if detect_format(inner) == "wda-json":
                raise _fail("the JSON reply wraps more JSON, not a UI tree", fmt=fmt, position="$.value")
            return parse_tree(inner, inner_text, limits, platform=platform)
        return from_json_tree(tree, limits)
    data = _strip_trailer(data)
    if FORMATS[fmt] == "android":
        return parse_android(data, fmt, limits)
    return parse_ios(data, fmt, limits)


def parse_source(
    source: str | bytes,
    *,
    platform: Platform | None = None,
    device_id: str = "unknown",
    backend: str = "unknown",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> Scene:
    """A Scene built from a UI-tree dump in any supported format (see the module docstring).

    ``platform``, when given, must match the source's (``SceneParseError`` otherwise).
    ``Scene.source`` keeps the decoded text as received (UTF-8 bytes are decoded when it is first
    read); ``capture_duration`` is the parse time.
    ``max_depth`` above 256 has no effect on XML: libxml2 stops there without ``huge_tree``.
    """
    started = time.perf_counter()
    limits = _DEFAULT_LIMITS
    if (max_bytes, max_depth, max_elements) != _DEFAULTS or not (
        type(max_bytes) is type(max_depth) is type(max_elements) is int  # 256.0 is refused too
    ):
        try:
            limits = Limits(max_bytes=max_bytes, max_depth=max_depth, max_elements=max_elements)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
    data, text, skip = _utf8_source(source, limits.max_bytes)
    try:
        tree = parse_tree(data, text, limits, platform=platform)
    except SceneParseError:
        if text is None:
            _decoded(data, skip)  # a byte that is not UTF-8 is the first thing wrong, as it was
        raise
    # UTF-8 bytes the XML parser read are valid: the text is decoded only if someone reads it.
    return parsed_scene(
        device_id=device_id,
        platform=tree.platform,
        root=tree.root,
        foreground_app=tree.foreground_app,
        window_size=tree.window_size,
        backend=backend,
        capture_duration=time.perf_counter() - started,
        source=text,
        utf8=data,
    )
