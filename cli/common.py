"""What the ``amc`` subcommands share: exit codes, output streams and choosing a device."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from .. import connect as connect_module
from ..core.errors import ConfigError
from ..drivers.base import Driver
from ..runtime.task import TaskStatus
from ..storage.redaction import Redactor

__all__ = [
    "EXIT_DEVICE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "DeviceChoice",
    "Handler",
    "Setup",
    "Streams",
    "add_device_options",
    "choose_device",
    "connect_device",
    "exit_code",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_DEVICE = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by SIGINT (128 + 2)


@dataclass(frozen=True)
class Streams:
    """Where a command writes: ``out`` for its results, ``err`` for notes and errors. ``redactor``
    holds the secrets the command learns (URL credentials, an API key, a flow's secret values): the
    streams `amc` builds hide them in every line, and the command's files use the same one."""

    out: TextIO
    err: TextIO
    redactor: Redactor = field(default_factory=Redactor)


Setup = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace, Streams], int]


def exit_code(status: TaskStatus | str) -> int:
    """0 for a task that succeeded, 3 for a device or infrastructure error, 130 for one a stop
    request (Ctrl-C) ended, 1 for any other ending."""
    value = status.value if isinstance(status, TaskStatus) else status
    if value == TaskStatus.SUCCEEDED.value:
        return EXIT_OK
    if value in (TaskStatus.DEVICE_ERROR.value, TaskStatus.INFRASTRUCTURE_ERROR.value):
        return EXIT_DEVICE
    if value == TaskStatus.INTERRUPTED.value:
        return EXIT_INTERRUPTED
    return EXIT_FAILED


def add_device_options(parser: argparse.ArgumentParser, *, many: bool = False) -> None:
    parser.add_argument(
        "--device",
        metavar="SPEC",
        action="append" if many else "store",
        help="device spec, e.g. sim:ios, android:SERIAL, ios:http://HOST:8100, "
        "appium:http://HOST:4723?platform=android (default: the one attached device, else the simulated one)"
        + ("; repeat it to share the flows out across several devices" if many else ""),
    )
    parser.add_argument(
        "--platform",
        choices=("android", "ios"),
        help="platform of the simulated device used when no --device is given and not exactly one "
        "device is attached (default: the flow's platform, else android)",
    )


@dataclass(frozen=True)
class DeviceChoice:
    """The device a command will use and why, in words the command prints."""

    spec: str | None
    reason: str

    @property
    def simulated(self) -> bool:
        return self.spec is None


def choose_device(spec: str | None) -> DeviceChoice:
    """``--device`` when given; else the one attached device; else (``spec`` None) the simulated one.

    The simulated device's platform is chosen per flow by the caller.
    """
    if spec is not None:
        if not spec.strip():
            raise ConfigError("--device is empty", hint="e.g. --device sim:android")
        connect_module.check_spec(spec)  # a malformed spec is a usage error before anything runs
        return DeviceChoice(spec.strip(), "as given with --device")
    found = connect_module.discover()
    attached = [d for d in found if d.usable]
    if len(attached) == 1:
        one = attached[0]
        about = f": {one.description}" if one.description else ""
        return DeviceChoice(one.spec, f"the one attached device ({one.platform} via {one.backend}{about})")
    unusable = "".join(f"; {d.spec} is {d.state} (see `amc doctor`)" for d in found if not d.usable)
    if attached:
        listed = ", ".join(d.spec for d in attached)
        return DeviceChoice(
            None,
            f"{len(attached)} devices are attached ({listed}); pass --device to use one of them{unusable}",
        )
    return DeviceChoice(None, f"no device is attached{unusable}")


def connect_device(spec: str, *, sim_latency: float = 0.0, sim_id: str | None = None) -> Driver:
    """``drivers.connect.connect(spec)``; ``sim_latency`` only for the simulated device, ``sim_id``
    (its device id) for any simulated one."""
    options: dict[str, object] = {}
    if sim_latency:
        if not spec.startswith("sim:"):
            raise ConfigError("--sim-latency only applies to the simulated device (sim:android, sim:ios)")
        options["latency"] = sim_latency
    if sim_id is not None:
        options["device_id"] = sim_id
    return connect_module.connect(spec, **options)
