"""Simulated phones in a process of their own, for ``benchmarks/devices.py``.

A real phone does not share the harness's interpreter: its servers (adb's daemon, the uiautomator2
server, WebDriverAgent) run elsewhere and only their answers cross a socket. So the benchmark starts
the phones here, a few per child process (:func:`start`), and drives them from its own process
through the real protocols. Each group is one process: over adb one adb face in front of the
group's Android phones (an adb server, as on a computer with phones plugged in), over WebDriverAgent
one WDA face per iPhone. Every request that reaches a phone waits ``latency`` seconds.

The parent talks to a group over a pipe: ``reset`` puts every phone's app on its first screen
(straight on the phone, as a person would), ``counts`` answers the connections the faces accepted
and the requests that reached a phone, ``stop`` ends the process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["Group", "start"]


@dataclass(frozen=True)
class Group:
    """One child process serving a few phones, and where to reach them."""

    platform: str
    serials: tuple[str, ...]
    addresses: tuple[str, ...]  # WDA: one URL per phone; adb: "host:port" of the group's adb face
    process: multiprocessing.process.BaseProcess
    pipe: Connection

    def ask(self, *command: Any) -> Any:
        self.pipe.send(command)
        answer = self.pipe.recv()
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def stop(self) -> None:
        with suppress(EOFError, OSError):  # the process already ended
            self.ask("stop")
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)


def start(platform: str, serials: list[str], latency: float, app: str) -> Group:
    """Start one child process serving ``serials`` (see the module docstring)."""
    context = multiprocessing.get_context("spawn")  # a fresh interpreter, nothing inherited
    parent, child = context.Pipe()
    process = context.Process(
        target=_serve, args=(platform, serials, latency, app, child), name=f"phones-{serials[0]}", daemon=True
    )
    process.start()
    child.close()
    answer = parent.recv()
    if isinstance(answer, BaseException):
        process.join(timeout=5)
        raise answer
    return Group(platform, tuple(serials), tuple(answer), process, parent)


def _serve(platform: str, serials: list[str], latency: float, app: str, pipe: Connection) -> None:
    from amc.sim.adb_face import AdbFace
    from amc.sim.device import SimDevice
    from amc.sim.wda_face import WdaFace

    from benchmarks.common import RouteLatency

    with ExitStack() as stack:
        try:
            devices = [SimDevice("android" if platform == "android" else "ios", s) for s in serials]
            counts: Callable[[], tuple[int, int]]
            if platform == "android":
                faults = RouteLatency(latency, ("rpc:", "adb:shell", "adb:sync"))
                face = stack.enter_context(AdbFace(devices, faults=faults))
                addresses = [f"{face.host}:{face.port}"]

                def counts() -> tuple[int, int]:
                    return face.connections, face.requests("rpc:") + face.requests("adb:shell")

            else:
                faces = [
                    stack.enter_context(WdaFace(d, faults=RouteLatency(latency, ("",)))) for d in devices
                ]
                addresses = [f.url for f in faces]

                def counts() -> tuple[int, int]:
                    return sum(f.connections for f in faces), sum(f.faults.count() for f in faces)

        except Exception as exc:  # noqa: BLE001  # whatever failed goes back to the parent, which raises it
            pipe.send(exc)
            return
        pipe.send(addresses)
        while True:
            try:
                command = pipe.recv()
            except EOFError:
                return
            try:
                if command[0] == "stop":
                    pipe.send(None)
                    return
                if command[0] == "reset":
                    for device in devices:
                        device.terminate(app)
                        device.launch(app)
                    pipe.send(None)
                elif command[0] == "counts":
                    pipe.send(counts())
                else:
                    pipe.send(ValueError(f"unknown command {command!r}"))
            except Exception as exc:  # noqa: BLE001  # as above: the parent raises it
                pipe.send(exc)
