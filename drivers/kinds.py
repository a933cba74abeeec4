"""Which kind of device a spec names, an iOS Simulator or a device, decided from the spec alone.

What a step can do on an iPhone depends on it (:data:`amc.actions.KINDS`): on a Simulator ``xcrun
simctl`` clears an app's data, sets its permissions and resets the keychain; on a physical iPhone
nothing can. ``amc check --device SPEC`` must foresee what ``amc run --device SPEC`` refuses without
touching a device, so the run reads the kind by the same rule (:func:`amc.connect.kinds.spec_kind`,
which stands above the adapters because a simulated spec's query says it):

- ``sim:ios``, ``sim+wda:ios``, ``sim+appium:ios``: ``kind=simulator|device`` in the query; the
  simulated iPhone plays a Simulator unless told ``kind=device`` (:mod:`amc.sim.profiles`).
- ``ios:UDID``: a device (usbmuxd reaches only iPhones on USB).
- ``ios:http://HOST:PORT``: ``?kind=simulator|device`` when given; else a Simulator when HOST is
  this machine's loopback and ``xcrun`` is on ``PATH`` (a Simulator's WebDriverAgent listens on the
  Mac that runs it, whose ``simctl`` reaches it), else a device (a Simulator on another Mac too:
  this machine's simctl cannot reach it). A USB iPhone forwarded to the
  loopback (``iproxy 8100 8100``) on a Mac is the one case the spec cannot tell: its
  WebDriverAgent's ``/status`` has no ``ios.simulatorVersion``, the driver then refuses the
  Simulator's steps with a hint to write ``?kind=device``, so that the check foresees them.
- ``appium:…?platform=ios``: ``kind=simulator|device`` in the query, else a Simulator (where the
  XCUITest driver clears apps and sets permissions; on an iPhone it refuses them itself).
- Android (every spec): a device; adb reaches an emulator and a phone alike.
"""

from __future__ import annotations

import ipaddress
import shutil
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..core.errors import ConfigError

__all__ = ["DEVICE", "SIMULATOR", "device_kind", "local_host", "split_kind", "wda_url_kind"]

SIMULATOR, DEVICE = "simulator", "device"
_KINDS = (SIMULATOR, DEVICE)


def local_host(url: str) -> bool:
    """Whether ``url``'s host is this machine's loopback (``localhost``, 127.0.0.0/8, ``::1``)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:  # not a URL (an unclosed IPv6 bracket): the URL's own check says so
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def split_kind(url: str) -> tuple[str, str | None]:
    """``url`` without its ``kind=`` query parameter, and that kind (None when not given);
    ``ConfigError`` for a kind that is not one."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL: the URL's own check says so
        return url, None
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kinds = [v.strip().lower() for k, v in pairs if k == "kind"]
    if not kinds:
        return url, None
    if len(kinds) > 1 or kinds[0] not in _KINDS:
        raise ConfigError(
            f"bad device spec {url!r}: kind={','.join(kinds)[:40]!r} is not one kind of "
            f"{', '.join(_KINDS)} given once",
            hint="write kind=simulator (an iOS Simulator) or kind=device (a physical iPhone)",
        )
    rest = urlencode([(k, v) for k, v in pairs if k != "kind"])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment)), kinds[0]


def wda_url_kind(url: str) -> str:
    """The kind of the iPhone behind a WebDriverAgent URL (see the module's docstring)."""
    _, given = split_kind(url)
    if given is not None:
        return given
    return SIMULATOR if local_host(url) and shutil.which("xcrun") is not None else DEVICE


def device_kind(driver: object) -> str:
    """A connected driver's kind (its ``kind``; a driver that does not say is a device)."""
    kind = getattr(driver, "kind", DEVICE)
    return kind if kind in _KINDS else DEVICE
