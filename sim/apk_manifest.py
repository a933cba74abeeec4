"""What a phone's package manager reads from an APK it installs: the package, its version, and the
instrumentations it declares, from the compiled (binary XML) ``AndroidManifest.xml`` in the zip.

The format is Android's resource XML (``frameworks/base/libs/androidfw/include/androidfw/
ResourceTypes.h``): a ``RES_XML_TYPE`` chunk holding a string pool (UTF-8 or UTF-16), a resource
map (the ``android:`` attribute ids, by string index) and the tree's start-element nodes, each
with its attributes as typed values. An attribute is known by its name or, where a build tool
left the name empty, by its resource id in the map (``versionCode`` 0x0101021b ``versionName``
0x0101021c, ``name`` 0x01010003, ``targetPackage`` 0x01010021: ``public.xml`` of the framework).

Anything that is not such a manifest raises :class:`ApkError`, which the installer turns into the
``Failure [INSTALL_PARSE_FAILED_…]`` line a phone prints. Bounded: the manifest is read only up to
:data:`MAX_MANIFEST` bytes, and every offset is checked against the data.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass

__all__ = ["MAX_MANIFEST", "ApkError", "ApkInfo", "read_apk"]

MAX_MANIFEST = 4 * 1024 * 1024
_XML, _STRINGS, _RESOURCE_MAP, _START_ELEMENT = 0x0003, 0x0001, 0x0180, 0x0102
_UTF8 = 1 << 8
_TYPE_STRING, _TYPE_INT_DEC, _TYPE_INT_HEX = 0x03, 0x10, 0x11
_IDS = {0x0101021B: "versionCode", 0x0101021C: "versionName", 0x01010003: "name", 0x01010021: "targetPackage"}


class ApkError(ValueError):
    """The bytes are not an APK whose manifest a package manager can read."""


@dataclass(frozen=True)
class ApkInfo:
    """What the package manager keeps of an installed APK."""

    package: str
    version_code: int
    version_name: str
    # (instrumentation class, target package) for each <instrumentation> the manifest declares
    instrumentations: tuple[tuple[str, str], ...] = ()


def read_apk(data: bytes) -> ApkInfo:
    """The manifest's facts of the APK in ``data`` (see the module docstring)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entry = archive.getinfo("AndroidManifest.xml")
            if entry.file_size > MAX_MANIFEST:
                raise ApkError("AndroidManifest.xml is too large")
            manifest = archive.read(entry)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, NotImplementedError, ValueError) as exc:
        raise ApkError(f"not an APK: {exc}") from exc
    try:
        return _parse(manifest)
    except (struct.error, IndexError) as exc:  # an offset past the end: a cut or corrupt manifest
        raise ApkError(f"AndroidManifest.xml is malformed: {exc}") from exc


def _u16(data: bytes, at: int) -> int:
    if at < 0 or at + 2 > len(data):
        raise ApkError("manifest truncated")
    return int(struct.unpack_from("<H", data, at)[0])


def _u32(data: bytes, at: int) -> int:
    if at < 0 or at + 4 > len(data):
        raise ApkError("manifest truncated")
    return int(struct.unpack_from("<I", data, at)[0])


def _string(data: bytes, pool: int, index: int) -> str:
    count, flags, start = _u32(data, pool + 8), _u32(data, pool + 16), _u32(data, pool + 20)
    if index >= count:
        return ""
    header = _u16(data, pool + 2)
    at = pool + start + _u32(data, pool + header + 4 * index)
    if flags & _UTF8:
        at += 2 if data[at] & 0x80 else 1  # the length in UTF-16 units, then in bytes
        if at + 1 >= len(data):
            raise ApkError("manifest truncated")
        length = data[at]
        if length & 0x80:
            length, at = ((length & 0x7F) << 8) | data[at + 1], at + 2
        else:
            at += 1
        return data[at : at + length].decode("utf-8", errors="replace")
    length = _u16(data, at)
    if length & 0x8000:
        length, at = ((length & 0x7FFF) << 16) | _u16(data, at + 2), at + 4
    else:
        at += 2
    return data[at : at + 2 * length].decode("utf-16-le", errors="replace")


def _parse(data: bytes) -> ApkInfo:
    if _u16(data, 0) != _XML:
        raise ApkError("AndroidManifest.xml is not binary XML")
    end = min(len(data), _u32(data, 4))
    at = _u16(data, 2)
    pool, ids = -1, ()
    package, code, name = "", 0, ""
    instrumentations: list[tuple[str, str]] = []
    while at + 8 <= end:
        kind, size = _u16(data, at), _u32(data, at + 4)
        if size < 8 or at + size > end:
            raise ApkError("manifest chunk of no size, or past the end")
        if kind == _STRINGS:
            pool = at
        elif kind == _RESOURCE_MAP:
            ids = struct.unpack_from(f"<{(size - 8) // 4}I", data, at + 8)
        elif kind == _START_ELEMENT:
            if pool < 0:
                raise ApkError("manifest element before its string pool")
            element, attrs = _element(data, at, pool, ids)
            if element == "manifest":
                package = str(attrs.get("package", ""))
                code = int(attrs.get("versionCode", 0) or 0)
                name = str(attrs.get("versionName", ""))
            elif element == "instrumentation":
                instrumentations.append((str(attrs.get("name", "")), str(attrs.get("targetPackage", ""))))
        at += size
    if not package:
        raise ApkError("the manifest names no package")
    return ApkInfo(package, code, name, tuple(instrumentations))


def _element(data: bytes, at: int, pool: int, ids: tuple[int, ...]) -> tuple[str, dict[str, str | int]]:
    ext = at + _u16(data, at + 2)
    name = _string(data, pool, _u32(data, ext + 4))
    start, size, count = _u16(data, ext + 8), _u16(data, ext + 10), _u16(data, ext + 12)
    attrs: dict[str, str | int] = {}
    for k in range(count):
        a = ext + start + k * size
        index = _u32(data, a + 4)
        key = _string(data, pool, index) or (_IDS.get(ids[index], "") if index < len(ids) else "")
        kind, value = data[a + 15] if a + 15 < len(data) else 0, _u32(data, a + 16)
        if kind == _TYPE_STRING:
            attrs[key] = _string(data, pool, value)
        elif kind in (_TYPE_INT_DEC, _TYPE_INT_HEX):
            attrs[key] = value
        else:
            raw = _u32(data, a + 8)
            if raw != 0xFFFFFFFF:
                attrs[key] = _string(data, pool, raw)
    return name, attrs
