"""A stand-in for the ``adb`` program in peer suites: ``adb [-s SERIAL] push LOCAL... REMOTE``.

adbutils' ``AdbDevice.adb_output`` runs the ``adb`` program; the real one starts an adb server of
its own when it does not like the one it finds, which no test here may do. This stand-in does what
``adb push`` does on the wire (the sync protocol's SEND for each file, directories walked, as adb's
``do_sync_push`` in ``client/file_sync_client.cpp`` does) through adbutils against the server named
by ``ANDROID_ADB_SERVER_HOST``/``ANDROID_ADB_SERVER_PORT``, and refuses every other command (exit 1,
saying so). It prints adb's summary line (``N files pushed``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import adbutils

__all__ = ["main"]


def _push(device: adbutils.AdbDevice, sources: list[str], remote: str) -> int:
    count = 0
    for source in map(Path, sources):
        if source.is_dir():
            target = remote.rstrip("/")
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    relative = path.relative_to(source).as_posix()
                    device.sync.push(path, f"{target}/{relative}")
                    count += 1
        else:
            device.sync.push(source, remote)
            count += 1
    print(f"{count} files pushed.")
    return 0


def main(argv: list[str]) -> int:
    serial = os.environ.get("ANDROID_SERIAL")
    if argv[:1] == ["-s"] and len(argv) > 1:
        serial, argv = argv[1], argv[2:]
    if len(argv) < 3 or argv[0] != "push":
        print(f"adb stand-in: only 'push LOCAL... REMOTE' is played, not {' '.join(argv)!r}", file=sys.stderr)
        return 1
    client = adbutils.AdbClient(
        host=os.environ.get("ANDROID_ADB_SERVER_HOST", "127.0.0.1"),
        port=int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")),
    )
    return _push(client.device(serial=serial), argv[1:-1], argv[-1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
