"""``xcrun simctl`` for the simulated iPhone when it plays a Simulator: what the WebDriverAgent face's
driver runs on the Mac beside it (``sim+wda:ios``), answering as simctl does.

:class:`SimSimctl` takes the arguments after ``simctl`` and returns what simctl prints, raising
:class:`SimctlError` (exit status and stderr) where simctl fails:

- ``list devices booted -j``: the JSON of ``simctl list -j`` cut to the booted device
  (``{"devices": {"com.apple.CoreSimulator.SimRuntime.iOS-18-5": [{"udid", "name", "state":
  "Booted", "isAvailable": true, …}]}}``, the shape Maestro's SimctlList reads);
- ``privacy <udid> grant|revoke|reset <service> [<bundle>]``: the services simctl's help lists
  (all, calendar, contacts-limited, contacts, location, location-always, photos-add, photos,
  media-library, microphone, motion, reminders, siri); any other (``notifications`` too) exits 1
  with "Operation not permitted", as a live run on Xcode 26.3 recorded; it prints nothing on
  success, and "Some permission changes will terminate the application if running." (simctl help);
- ``keychain <udid> reset``: the device's one keychain, nothing printed;
- ``get_app_container <udid> <bundle> data``: the path of the app's data container,
  ``…/Devices/<udid>/data/Containers/Data/Application/<UUID>``, a real folder here (in a temporary
  folder of this process) whose ``Library/Preferences/<bundle>.plist`` stands for what the app keeps:
  once someone empties the folder, the app's data is gone on the device (checked at the next
  command); an app that is not installed exits 2 with ``No such file or directory`` (not collected:
  the message simctl prints for it was not found, so ours is said here).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
import weakref
from collections.abc import Sequence
from pathlib import Path

from .device import SimDevice

__all__ = ["SERVICES", "SimSimctl", "SimctlError"]

SERVICES = (
    "all",
    "calendar",
    "contacts-limited",
    "contacts",
    "location",
    "location-always",
    "photos-add",
    "photos",
    "media-library",
    "microphone",
    "motion",
    "reminders",
    "siri",
)


class SimctlError(Exception):
    """simctl's failure: its exit status and what it printed on stderr."""

    def __init__(self, code: int, stderr: str) -> None:
        super().__init__(stderr)
        self.code, self.stderr = code, stderr


class SimSimctl:
    """simctl for one simulated iPhone (see the module docstring). No I/O until a command runs."""

    def __init__(self, device: SimDevice, udid: str | None = None) -> None:
        self.device = device
        self._udid = udid or str(uuid.uuid5(uuid.NAMESPACE_DNS, device.device_id)).upper()
        self._root: Path | None = None
        self._containers: dict[str, Path] = {}
        self.calls: list[tuple[str, ...]] = []  # every command run, for tests

    @property
    def udid(self) -> str:
        return self._udid

    def run(self, args: Sequence[str]) -> str:
        argv = tuple(str(a) for a in args)
        self.calls.append(argv)
        self._sync()
        verb = argv[0] if argv else ""
        if verb == "list":
            return self._list()
        if len(argv) < 2 or argv[1] not in (self._udid, "booted"):
            raise SimctlError(148, f"Invalid device: {argv[1] if len(argv) > 1 else ''}")
        if verb == "privacy" and len(argv) >= 4:
            return self._privacy(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
        if verb == "keychain" and argv[2:] == ("reset",):
            self.device.clear_keychain()
            return ""
        if verb == "get_app_container" and len(argv) >= 3:
            return self._container(argv[2])
        raise SimctlError(64, f"Unrecognized subcommand: {verb}")

    def _list(self) -> str:
        runtime = "com.apple.CoreSimulator.SimRuntime.iOS-" + self.device.os_version.replace(".", "-")
        entry = {
            "lastBootedAt": "2025-01-01T00:00:00Z",
            "dataPath": f"/Users/ci/Library/Developer/CoreSimulator/Devices/{self._udid}/data",
            "udid": self._udid,
            "isAvailable": True,
            "deviceTypeIdentifier": "com.apple.CoreSimulator.SimDeviceType.iPhone-15",
            "state": "Booted",
            "name": self.device.model,
        }
        return json.dumps({"devices": {runtime: [entry]}}, indent=2) + "\n"

    def _privacy(self, action: str, service: str, bundle: str | None) -> str:
        if action not in ("grant", "revoke", "reset") or service not in SERVICES:
            raise SimctlError(1, "Operation not permitted")
        if bundle is None:
            if action != "reset":
                raise SimctlError(64, f"A bundle identifier is required to {action} access.")
            return ""
        if bundle not in self.device.apps:
            return ""  # simctl records a decision for any bundle id, installed or not (exit 0)
        services = [s for s in self.device.runtime_permissions(bundle) if s != "notifications"]
        for name in services if service == "all" else [service]:
            {"grant": self.device.grant, "revoke": self.device.revoke}.get(
                action, self.device.reset_permission
            )(bundle, name)
        return ""

    def _container(self, bundle: str) -> str:
        if bundle not in self.device.apps:
            raise SimctlError(2, "No such file or directory")
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="amc-simctl-"))
            weakref.finalize(self, shutil.rmtree, self._root, True)  # gone with this simctl
        folder = self._containers.get(bundle)
        if folder is None:
            folder = (
                self._root
                / "Devices"
                / self._udid
                / "data/Containers/Data/Application"
                / str(uuid.uuid4()).upper()
            )
            prefs = folder / "Library" / "Preferences"
            prefs.mkdir(parents=True)
            (prefs / f"{bundle}.plist").write_text('<plist version="1.0"><dict/></plist>\n')
            self._containers[bundle] = folder
        return f"{folder}\n"

    def _sync(self) -> None:
        """An emptied data container: the app's data is gone on the device."""
        for bundle, folder in list(self._containers.items()):
            if not (folder / "Library" / "Preferences" / f"{bundle}.plist").exists():
                self.device.clear_state(bundle)
                del self._containers[bundle]
