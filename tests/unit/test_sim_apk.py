"""The simulated package manager's reading of an APK's binary manifest (``sim/apk_manifest.py``),
and its install, uninstall and instrumentation over the adb face's own wire."""

from __future__ import annotations

import contextlib
import io
import socket
import struct
import time
import zipfile

import pytest
from amc.sim.adb_face import AdbFace
from amc.sim.apk_manifest import ApkError, ApkInfo, read_apk
from amc.sim.device import SimDevice
from hypothesis import given, settings
from hypothesis import strategies as st

ANDROID_NS = "http://schemas.android.com/apk/res/android"
VERSION_CODE, VERSION_NAME, NAME, TARGET = 0x0101021B, 0x0101021C, 0x01010003, 0x01010021


def _pool(strings: list[str]) -> bytes:
    """A UTF-16 string pool chunk (ResStringPool_header, offsets, strings)."""
    body, offsets = b"", []
    for text in strings:
        offsets.append(len(body))
        body += struct.pack("<H", len(text)) + text.encode("utf-16-le") + b"\0\0"
    body += b"\0" * (-len(body) % 4)
    header = 28
    start = header + 4 * len(strings)
    chunk = struct.pack("<HHIIIIII", 0x0001, header, start + len(body), len(strings), 0, 0, start, 0)
    return chunk + b"".join(struct.pack("<I", o) for o in offsets) + body


def _element(strings: list[str], tag: str, attrs: list[tuple[int, int, int]]) -> bytes:
    """A start-element chunk; attrs are (name's string index, Res_value type, data)."""
    rows = b""
    for index, kind, data in attrs:
        ns = 0xFFFFFFFF if strings[index] == "package" else strings.index(ANDROID_NS)
        raw = data if kind == 0x03 else 0xFFFFFFFF
        rows += struct.pack("<IIIHBBI", ns, index, raw, 8, 0, kind, data)
    ext = struct.pack("<IIHHHHHH", 0xFFFFFFFF, strings.index(tag), 20, 20, len(attrs), 0, 0, 0)
    size = 16 + len(ext) + len(rows)
    return struct.pack("<HHIII", 0x0102, 16, size, 1, 0xFFFFFFFF) + ext + rows


def manifest(package: str, code: int, name: str, instrumentation: tuple[str, str] | None = None) -> bytes:
    """A compiled AndroidManifest.xml as aapt2 writes one, with the names of its android:
    attributes left empty and known by the resource map (as shrunk builds leave them)."""
    strings = ["", "", "", "", ANDROID_NS, "manifest", "package", "instrumentation", package, name]
    if instrumentation:
        strings += list(instrumentation)
    ids = struct.pack("<4I", VERSION_CODE, VERSION_NAME, NAME, TARGET)  # string indexes 0-3
    resource_map = struct.pack("<HHI", 0x0180, 8, 8 + len(ids)) + ids
    body = _pool(strings) + resource_map
    body += _element(strings, "manifest", [(6, 0x03, 8), (0, 0x10, code), (1, 0x03, 9)])
    if instrumentation:
        body += _element(strings, "instrumentation", [(2, 0x03, 10), (3, 0x03, 11)])
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def apk(manifest_bytes: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("AndroidManifest.xml", manifest_bytes)
        archive.writestr("classes.dex", b"dex\n035\0")
    return out.getvalue()


def test_the_package_its_version_and_its_instrumentation_are_read_from_the_manifest() -> None:
    plain = read_apk(apk(manifest("com.example.shop", 278, "10.6.6")))
    assert plain == ApkInfo("com.example.shop", 278, "10.6.6", ())
    runner = ("androidx.test.runner.AndroidJUnitRunner", "com.example.shop")
    test = read_apk(apk(manifest("com.example.shop.test", 1, "1.0", runner)))
    assert test.instrumentations == (runner,)


@pytest.mark.parametrize(
    "data",
    [b"", b"not a zip", apk(b"\x03\x00\x08\x00\x10\x00\x00\x00"), apk(b"<manifest/>"), b"PK\x03\x04oops"],
)
def test_what_is_not_an_apk_is_refused_as_one_error(data: bytes) -> None:
    with pytest.raises(ApkError):
        read_apk(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=600))
def test_any_manifest_bytes_are_read_or_refused_never_crash(noise: bytes, cut: int) -> None:
    real = manifest("com.example.shop", 3, "1.2", ("a.Runner", "com.example.shop"))
    for candidate in (
        noise,
        real[:cut],
        real[:cut] + noise,
        bytes(b ^ 0x5A for b in real[:cut]) + real[cut:],
    ):
        with contextlib.suppress(ApkError):
            read_apk(apk(candidate))


def _service(face: AdbFace, request: str) -> socket.socket:
    sock = socket.create_connection((face.host, face.port), timeout=5)
    for line in ("host:transport:emulator-5554", request):
        data = line.encode()
        sock.sendall(f"{len(data):04x}".encode() + data)
        assert sock.recv(4) == b"OKAY"
    return sock


def _read_all(sock: socket.socket) -> bytes:
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def test_a_streamed_install_an_uninstall_and_an_instrumentation_over_the_adb_wire() -> None:
    runner = ("androidx.test.runner.AndroidJUnitRunner", "io.appium.uiautomator2.server")
    test_apk = apk(manifest("io.appium.uiautomator2.server.test", 0, "", runner))
    server_apk = apk(manifest("io.appium.uiautomator2.server", 278, "10.6.6"))
    with AdbFace([SimDevice("android")]) as face:
        answers = []
        for data in (server_apk, test_apk, b"garbage"):
            with _service(face, f"abb_exec:package\0install\0-r\0-S\0{len(data)}") as sock:
                sock.sendall(data)
                answers.append(_read_all(sock))
        assert answers[:2] == [b"Success\n", b"Success\n"]
        assert answers[2].startswith(b"Failure [INSTALL_PARSE_FAILED_NOT_APK: ")
        shell = face.phone("emulator-5554").shell
        assert shell.run("pm list instrumentation").output == (
            b"instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner "
            b"(target=io.appium.uiautomator2.server)\n"
        )
        assert b"versionCode=278" in shell.run("dumpsys package io.appium.uiautomator2.server").output
        assert b"versionName=10.6.6" in shell.run("dumpsys package io.appium.uiautomator2.server").output
        component = "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner"
        with _service(face, f"shell:am instrument -w -e disableAnalytics true {component}") as sock:
            port = face.phone("emulator-5554").servers["tcp:6790"]
            for _ in range(50):
                if port() is not None and b"io.appium.uiautomator2.server\n" in shell.run("ps").output:
                    break
                time.sleep(0.05)
            with socket.create_connection(("127.0.0.1", port() or 1), timeout=5) as http:
                http.sendall(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                status = _read_all(http)
            assert b'"message": "UiAutomator2 Server is ready to accept commands"' in status
            assert b'"version": "10.6.6"' in status
            shell.run("am force-stop io.appium.uiautomator2.server")
            printed = _read_all(sock)
        assert printed.endswith(b"INSTRUMENTATION_CODE: -1\n")
        assert port() is None and b"io.appium.uiautomator2.server\n" not in shell.run("ps").output
        assert shell.run("pm uninstall io.appium.uiautomator2.server").output == b"Success\n"
        missing = shell.run("pm uninstall io.appium.uiautomator2.server")
        assert (missing.output, missing.code) == (b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1)
