"""The simulated phone's storage, as far as adb reaches it: files with their bytes, and folders.

:class:`PhoneFiles` keeps each file's bytes (bounded: :data:`MAX_BYTES` in all, a push past that
fails as a full disk does) or, for the uiautomator2 server jar the phone starts with, only its md5
and size (:class:`FileEntry`). Folders are explicit; a file's parents are created with it, as
adb's ``file_sync_service`` does for SEND (``secure_mkdirs``). It is what the ``sync:`` service
(:mod:`sim.adb_sync`) and the shell's ``ls``, ``mkdir``, ``rm``, ``touch``, ``cat`` and ``md5sum``
read and change. Thread-safe.
"""

from __future__ import annotations

import hashlib
import posixpath
import threading
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["DIR_MODE", "FILE_MODE", "MAX_BYTES", "FileEntry", "PhoneFiles"]

DIR_MODE = 0o40771
FILE_MODE = 0o100644
MAX_BYTES = 256 * 1024 * 1024
MTIME = 1700000000
_FOLDERS = ("/", "/data", "/data/local", "/data/local/tmp", "/sdcard", "/system", "/system/bin", "/storage")


@dataclass(frozen=True)
class FileEntry:
    """A file: its md5 and size, its mode, and its bytes when the phone keeps them."""

    md5: str
    size: int
    mode: int = FILE_MODE
    data: bytes | None = None
    mtime: int = MTIME


def entry_for(data: bytes, mode: int = FILE_MODE, mtime: int = MTIME) -> FileEntry:
    return FileEntry(hashlib.md5(data).hexdigest(), len(data), mode, data, mtime)


def _norm(path: str) -> str:
    return posixpath.normpath("/" + path.strip()) if path.strip() else "/"


class PhoneFiles:
    """Files and folders on the phone (see the module docstring)."""

    def __init__(self, files: dict[str, FileEntry] | None = None) -> None:
        self._lock = threading.Lock()
        self._files: dict[str, FileEntry] = {_norm(p): e for p, e in (files or {}).items()}
        self._dirs: set[str] = set(_FOLDERS)
        for path in self._files:
            self._parents(path)

    def _parents(self, path: str) -> None:
        parent = posixpath.dirname(path)
        while parent not in self._dirs:
            self._dirs.add(parent)
            parent = posixpath.dirname(parent)

    # --- mapping-like access (md5sum, tests) ----------------------------------------------

    def __getitem__(self, path: str) -> FileEntry:
        with self._lock:
            return self._files[_norm(path)]

    def __setitem__(self, path: str, entry: FileEntry) -> None:
        self.write_entry(path, entry)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.get(path) is not None

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            return iter(list(self._files))

    def get(self, path: str) -> FileEntry | None:
        with self._lock:
            return self._files.get(_norm(path))

    # --- queries ----------------------------------------------------------------------------

    def is_dir(self, path: str) -> bool:
        with self._lock:
            return _norm(path) in self._dirs

    def stat(self, path: str) -> tuple[int, int, int]:
        """(mode, size, mtime) as sync STAT answers; all zero when nothing is there."""
        path = _norm(path)
        with self._lock:
            if path in self._dirs:
                return DIR_MODE, 4096, MTIME
            entry = self._files.get(path)
            return (entry.mode, entry.size, entry.mtime) if entry is not None else (0, 0, 0)

    def listdir(self, path: str) -> list[tuple[str, int, int, int]] | None:
        """(name, mode, size, mtime) of each entry of a folder; None when it is not one."""
        path = _norm(path)
        with self._lock:
            if path not in self._dirs:
                return None
            rows = [
                (posixpath.basename(d), DIR_MODE, 4096, MTIME)
                for d in self._dirs
                if d != path and posixpath.dirname(d) == path
            ]
            rows += [
                (posixpath.basename(f), e.mode, e.size, e.mtime)
                for f, e in self._files.items()
                if posixpath.dirname(f) == path
            ]
        return sorted(rows)

    # --- changes ----------------------------------------------------------------------------

    def write_entry(self, path: str, entry: FileEntry) -> str | None:
        """Store a file; an error message (as adb's sync service words it) when it cannot."""
        path = _norm(path)
        with self._lock:
            if path in self._dirs:
                return f"couldn't create file: Is a directory: {path}"
            if posixpath.dirname(path) in self._files:
                return f"secure_mkdirs() failed: Not a directory: {path}"
            kept = sum(len(e.data or b"") for p, e in self._files.items() if p != path)
            if kept + len(entry.data or b"") > MAX_BYTES:
                return f"couldn't write file: No space left on device: {path}"
            self._files[path] = entry
            self._parents(path)
        return None

    def mkdir(self, path: str, *, parents: bool) -> str | None:
        path = _norm(path)
        with self._lock:
            if path in self._files:
                return f"mkdir: '{path}': File exists"
            if path in self._dirs:
                return None if parents else f"mkdir: '{path}': File exists"
            if not parents and posixpath.dirname(path) not in self._dirs:
                return f"mkdir: '{path}': No such file or directory"
            self._dirs.add(path)
            self._parents(path)
        return None

    def touch(self, path: str) -> str | None:
        if self.get(path) is not None or self.is_dir(path):
            return None
        if not self.is_dir(posixpath.dirname(_norm(path))):
            return f"touch: '{path}': No such file or directory"
        return self.write_entry(path, entry_for(b""))

    def remove(self, path: str, *, recursive: bool, force: bool) -> str | None:
        path = _norm(path)
        with self._lock:
            if path in self._files:
                del self._files[path]
                return None
            if path in self._dirs and path not in _FOLDERS:
                if not recursive:
                    return f"rm: {path}: is a directory"
                prefix = path + "/"
                self._dirs = {d for d in self._dirs if d != path and not d.startswith(prefix)}
                self._files = {f: e for f, e in self._files.items() if not f.startswith(prefix)}
                return None
        return None if force else f"rm: {path}: No such file or directory"
