"""The catalogue of every error a backend can send, read from ``tests/fixtures/backend_errors``.

Each YAML file there lists one backend's answers, enumerated from that backend's own source (the
file's ``about`` says which repositories; every entry names its ``source``: repository, path and the
commit or tag read). An entry holds the answer as it crosses the wire (``wire``), what the harness
does when it meets it (``step``) and what a user must then see (``expect``): the class in
:mod:`core.errors`, whether it is transient, words its hint must hold (the fix to print) and words
its message must hold. ``held_out`` marks the third of the entries that was set aside before the
classifiers were adjusted (every third entry of a file, counted from its first).

This module only reads and checks the files (a malformed entry fails the collection with the file
and the entry named); :mod:`tests.backend_errors.replay` plays them over the wire.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["BACKENDS", "CATALOGUE", "Entry", "Expect", "Source", "load"]

CATALOGUE = Path(__file__).resolve().parents[1] / "fixtures" / "backend_errors"
BACKENDS: tuple[str, ...] = ("adb", "u2", "wda", "appium", "grid", "intermediary")
STEPS: frozenset[str] = frozenset(
    {"connect", "tap", "type", "swipe", "press", "launch", "observe", "screenshot", "hide_keyboard"}
)
ERRORS: frozenset[str] = frozenset(
    {
        "AppLaunchFailed",
        "AppNotInstalled",
        "ConfigError",
        "DeviceError",
        "DeviceOffline",
        "DeviceTimeout",
        "DriverUnavailable",
        "SessionLost",
        "StepArgumentError",
        "TargetNotFound",
        "Unsupported",
    }
)
_WIRE_KEYS: dict[str, frozenset[str]] = {
    "adb": frozenset({"state", "fail", "route", "transport", "answer"}),
    "u2": frozenset({"rpc", "status", "json", "text", "content_type", "server_output"}),
    "wda": frozenset({"route", "status", "json", "text", "content_type", "transport", "ios", "wda"}),
    "appium": frozenset({"route", "status", "json", "text", "content_type", "platform"}),
    "grid": frozenset({"route", "status", "json", "text", "content_type", "platform"}),
    "intermediary": frozenset({"status", "text", "content_type", "transport", "faces", "route"}),
}


@dataclass(frozen=True)
class Source:
    """Where an entry was read: a repository, a path in it, and the commit or tag."""

    repo: str
    path: str
    ref: str


@dataclass(frozen=True)
class Expect:
    """What a user sees: the error class, its transient flag, words of the hint and the message."""

    error: str
    transient: bool
    hint: tuple[str, ...] = ()
    says: tuple[str, ...] = ()
    quoted: bool = True  # the server's reason must be in the message whole (False: the client drops it)


@dataclass(frozen=True)
class Entry:
    backend: str
    id: str
    source: Source
    wire: dict[str, Any] = field(hash=False)
    step: str
    expect: Expect
    held_out: bool
    note: str = ""

    @property
    def name(self) -> str:
        return f"{self.backend}/{self.id}"

    def body(self) -> bytes:
        """The HTTP body the wire entry gives (``json`` encoded as JSON, or ``text`` as it is)."""
        if "json" in self.wire:
            return json.dumps(self.wire["json"], ensure_ascii=False).encode("utf-8")
        return str(self.wire.get("text", "")).encode("utf-8")


class CatalogueError(ValueError):
    """A catalogue file or entry is malformed (its file and entry named)."""


def _words(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise CatalogueError(f"{where}: expected a string or a list of strings, got {value!r}")


def _quoted(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise CatalogueError(f"{where}: expect.quoted must be true or false")
    return value


def _entry(backend: str, raw: Any, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: an entry is a mapping")
    unknown = set(raw) - {"id", "source", "wire", "step", "expect", "held_out", "note"}
    if unknown:
        raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
    entry_id = raw.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        raise CatalogueError(f"{where}: every entry needs an id")
    where = f"{where} ({entry_id})"
    source = raw.get("source")
    if not isinstance(source, dict) or set(source) != {"repo", "path", "ref"}:
        raise CatalogueError(f"{where}: source needs repo, path and ref")
    wire = raw.get("wire")
    if not isinstance(wire, dict) or not wire or set(wire) - _WIRE_KEYS[backend]:
        raise CatalogueError(f"{where}: wire keys must be among {sorted(_WIRE_KEYS[backend])}")
    step = raw.get("step", "connect")
    if step not in STEPS:
        raise CatalogueError(f"{where}: step {step!r} is not one of {sorted(STEPS)}")
    expect = raw.get("expect")
    if not isinstance(expect, dict) or expect.get("error") not in ERRORS:
        raise CatalogueError(f"{where}: expect.error must be one of {sorted(ERRORS)}")
    if not isinstance(expect.get("transient"), bool):
        raise CatalogueError(f"{where}: expect.transient must be true or false")
    held_out = raw.get("held_out", False)
    if not isinstance(held_out, bool):
        raise CatalogueError(f"{where}: held_out must be true or false")
    return Entry(
        backend=backend,
        id=entry_id,
        source=Source(str(source["repo"]), str(source["path"]), str(source["ref"])),
        wire=dict(wire),
        step=step,
        expect=Expect(
            str(expect["error"]),
            bool(expect["transient"]),
            _words(expect.get("hint"), f"{where} expect.hint"),
            _words(expect.get("says"), f"{where} expect.says"),
            _quoted(expect.get("quoted", True), where),
        ),
        held_out=held_out,
        note=str(raw.get("note", "")),
    )


def load(backend: str, folder: Path = CATALOGUE) -> tuple[Entry, ...]:
    """The entries of ``folder/<backend>.yaml`` (ids unique within the file)."""
    path = folder / f"{backend}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    entries_raw = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("backend") != backend or not isinstance(entries_raw, list):
        raise CatalogueError(f"{path.name}: needs 'backend: {backend}' and a list of 'entries'")
    entries = tuple(
        _entry(backend, raw, f"{path.name} entry {index}") for index, raw in enumerate(data["entries"])
    )
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise CatalogueError(f"{path.name}: ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    return entries
