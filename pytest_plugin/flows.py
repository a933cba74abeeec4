"""``amc_flows``: flow files run on the test's device through the one flow runner (:mod:`amc.flows.run`),
as ``amc run --device`` runs them: the same checks, run folders, reports and outcomes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..core.errors import ConfigError
from ..core.models import Platform
from ..drivers.base import Driver
from ..flows.run import Device, RunListener, RunResult, plan_run, run_plan
from ..flows.run.selection import parse_env, parse_tags
from ..runtime.recording import ScreenshotPolicy

__all__ = ["FlowsOnDevice"]


def _no_simulated(platform: Platform) -> Device:  # the test's device is always given
    raise ConfigError(f"amc_flows runs on the test's device, not a fresh simulated {platform} one")


class FlowsOnDevice:
    """``amc_flows("flows/login.yaml", env={...})`` -> a :class:`~amc.flows.run.RunResult`: the flows
    run on the test's (leased) device, their run folders under ``out``."""

    def __init__(self, driver: Driver, spec: str, out: Path) -> None:
        self.driver = driver
        self.spec = spec
        self.out = out

    def __call__(
        self,
        *paths: str | os.PathLike[str],
        env: Mapping[str, str] | None = None,
        include_tags: Iterable[str] = (),
        exclude_tags: Iterable[str] = (),
        force_platform: bool = False,
        screenshots: ScreenshotPolicy = "failure",
        listeners: Sequence[RunListener] = (),
    ) -> RunResult:
        include, exclude = list(include_tags), list(exclude_tags)
        plan = plan_run(
            [os.fspath(p) for p in paths],
            environ=os.environ,
            params=parse_env([f"{k}={v}" for k, v in (env or {}).items()]),
            include=parse_tags([",".join(include)] if include else [], "--include-tags"),
            exclude=parse_tags([",".join(exclude)] if exclude else [], "--exclude-tags"),
            out=os.fspath(self.out),
        )
        device = Device(self.spec, "the test's device (--amc-device)", self.driver)
        return run_plan(
            plan,
            [device],
            simulated=_no_simulated,
            listeners=listeners,
            force_platform=force_platform,
            screenshots=screenshots,
        )
