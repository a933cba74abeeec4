"""Other projects' test suites, run unchanged against the simulated device's protocol faces.

Two client libraries ship end-to-end suites written for real phones in their source distributions:
facebook-wda's ``e2e_benchmarks`` (JSON-Schema and behaviour checks of a real WebDriverAgent on an
iPhone, run by its authors against WDA 6.1.1 and 7.1.1: ``reports/WDA_V611.md``) and adbutils'
``e2etests`` (a real adb server with one phone attached). :func:`fetch` downloads each at the
version pinned here (the version this project installs, checked by :func:`check_installed`) with
``pip download --no-binary :all:`` into a cache folder and unpacks it there; nothing of theirs is
committed. :func:`run` starts the face the suite needs on 127.0.0.1, points the suite at it the way
the suite finds a device (``DEVICE_URL`` for facebook-wda; ``ANDROID_ADB_SERVER_PORT`` and
``ANDROID_SERIAL`` for adbutils, whose ``test_adb.py`` names 127.0.0.1:5037 itself, so the adb face
listens there) and runs the suite with pytest in a subprocess, bounded in time, counting results
from its JUnit XML.

What each suite needs beyond a face:

- facebook-wda's tests drive their own app, ``com.test.cert.TestCert`` (its SwiftUI source ships in
  ``e2e_benchmarks/app``); the simulated iPhone gets its stand-in, :func:`amc.sim.catalog_peers.wda_e2e_app`.
- adbutils' ``test_app_start_stop`` starts Appium's ApiDemos; the phone gets its stand-in,
  :func:`amc.sim.catalog_peers.api_demos_app`.
- adbutils' ``test_pull_push_dirs`` runs the ``adb`` program (``adb push``) through
  ``ADBUTILS_ADB_PATH``. The real program may start an adb server of its own, which no test here
  may do, so that path names :mod:`tests.peers.adb_standin`, which pushes over the face's sync
  protocol and does nothing else.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SUITES", "Outcome", "Suite", "check_installed", "fetch", "run"]

ROOT = Path(__file__).resolve().parents[2]
ADB_PORT = 5037  # adbutils' e2etests/test_adb.py connects to 127.0.0.1:5037 by name
DOWNLOAD_SECONDS = 120
SUITE_SECONDS = 600
# The WebDriverAgent the wda suite was checked against (its reports/WDA_V611.md: 6.1.1, iOS 16.3.1,
# on a physical iPhone).
WDA_PROFILE_SPEC = ("16", "6", "device")


@dataclass(frozen=True)
class Suite:
    """A foreign test suite: the distribution that ships it, its pinned version, and its folder."""

    name: str
    distribution: str
    version: str
    folder: str  # inside the unpacked source distribution

    @property
    def sdist_dir(self) -> str:
        return f"{self.distribution}-{self.version}"


SUITES: dict[str, Suite] = {
    "wda": Suite("wda", "facebook-wda", "1.5.4", "e2e_benchmarks"),
    "adbutils": Suite("adbutils", "adbutils", "2.12.0", "e2etests"),
}


@dataclass(frozen=True)
class Outcome:
    """One suite's results, counted from its JUnit XML."""

    suite: str
    passed: int
    failed: int
    skipped: int
    failures: tuple[str, ...]
    seconds: float

    @property
    def line(self) -> str:
        return f"{self.suite}: {self.passed} passed, {self.failed} failed, {self.skipped} skipped"


def check_installed(suite: Suite) -> None:
    """The suite is pinned to the client version this project installs; a mismatch is an error."""
    installed = importlib.metadata.version(suite.distribution)
    if installed != suite.version:
        raise SystemExit(
            f"{suite.distribution} {installed} is installed, the peer suite is pinned to {suite.version}: "
            "update SUITES in tests/peers/suites.py with the dependency"
        )


def fetch(suite: Suite, cache: Path) -> Path:
    """The unpacked source distribution of ``suite`` under ``cache`` (downloaded once)."""
    unpacked = cache / suite.sdist_dir
    if (unpacked / suite.folder).is_dir():
        return unpacked
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"{suite.sdist_dir}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-binary",
                ":all:",
                "--no-deps",
                f"{suite.distribution}=={suite.version}",
                "-d",
                str(cache),
            ],
            check=True,
            timeout=DOWNLOAD_SECONDS,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    return unpacked


@contextlib.contextmanager
def _adb_standin() -> Iterator[Path]:
    """An executable ``adb`` that runs :mod:`tests.peers.adb_standin` with this interpreter."""
    with tempfile.TemporaryDirectory(prefix="amc-peer-adb-") as folder:
        path = Path(folder) / "adb"
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tests.peers.adb_standin "$@"\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        yield path


@contextlib.contextmanager
def _serving(suite: Suite) -> Iterator[dict[str, str]]:
    """Start the face ``suite`` needs; yields the environment that points the suite at it."""
    if suite.name == "wda":
        from amc.sim.profiles import IosProfile

        WDA_PROFILE = IosProfile(*WDA_PROFILE_SPEC)
        from amc.sim.catalog import catalog
        from amc.sim.catalog_peers import wda_e2e_app
        from amc.sim.device import REALISTIC, SimDevice
        from amc.sim.wda_face import WdaFace

        app = wda_e2e_app()
        device = SimDevice(
            "ios",
            apps={**catalog("ios", WDA_PROFILE.os_version), app.app_id: app},
            profile=WDA_PROFILE,
            timing=REALISTIC,
        )
        with WdaFace(device) as face:
            yield {"DEVICE_URL": face.url}
        return
    from amc.sim.adb_face import AdbFace
    from amc.sim.catalog import catalog
    from amc.sim.catalog_peers import api_demos_app
    from amc.sim.device import REALISTIC, SimDevice

    demos = api_demos_app()
    device = SimDevice("android", apps={**catalog("android"), demos.app_id: demos}, timing=REALISTIC)
    with AdbFace([device], port=ADB_PORT) as adb, _adb_standin() as standin:
        yield {
            "ANDROID_ADB_SERVER_HOST": "127.0.0.1",
            "ANDROID_ADB_SERVER_PORT": str(adb.port),
            "ANDROID_SERIAL": device.device_id,
            "ADBUTILS_ADB_PATH": str(standin),
        }


def _count(junit: Path, suite: str, seconds: float) -> Outcome:
    root = ET.parse(junit).getroot()
    passed = failed = skipped = 0
    failures: list[str] = []
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("skipped") is not None:
            skipped += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            failures.append(name)
        else:
            passed += 1
    return Outcome(suite, passed, failed, skipped, tuple(failures), seconds)


def run(suite: Suite, cache: Path, *, verbose: bool = False) -> Outcome:
    """Run ``suite`` (fetched into ``cache``) against its face; its results."""
    import time

    check_installed(suite)
    unpacked = fetch(suite, cache)
    work = Path(tempfile.mkdtemp(prefix=f"amc-peer-{suite.name}-"))
    try:
        shutil.copytree(unpacked / suite.folder, work / suite.folder)
        junit = work / "junit.xml"
        started = time.monotonic()
        with _serving(suite) as extra:
            env = {**os.environ, **extra, "PYTHONPATH": str(ROOT)}
            command = [sys.executable, "-m", "pytest", suite.folder, "-p", "no:cacheprovider"]
            command += ["-o", "addopts=", "--rootdir", str(work), "-c", os.devnull, f"--junitxml={junit}"]
            command += ["-p", "tests.peers.guard", "--timeout", "20", "-q"]
            result = subprocess.run(
                command,
                cwd=work,
                env=env,
                timeout=SUITE_SECONDS,
                capture_output=not verbose,
                text=True,
                check=False,
            )
        seconds = time.monotonic() - started
        if not junit.exists():
            raise SystemExit(
                f"{suite.name}: pytest wrote no results (exit {result.returncode})\n{result.stdout}"
            )
        return _count(junit, suite.name, seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
