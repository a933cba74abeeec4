"""World-model settings, read from the environment in exactly one place."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.config import parse_bool
from ..core.errors import ConfigError
from .models import DEFAULT_HISTORY_SIZE

__all__ = ["ENV_ENABLED", "ENV_HISTORY_SIZE", "WorldConfig"]

ENV_ENABLED = "AMC_WORLD_ENABLED"
ENV_HISTORY_SIZE = "AMC_WORLD_HISTORY_SIZE"

_MAX_HISTORY = 100_000


@dataclass(frozen=True)
class WorldConfig:
    """``enabled`` turns the per-task world model on (the default); ``history_size`` bounds its history."""

    enabled: bool = True
    history_size: int = DEFAULT_HISTORY_SIZE

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"WorldConfig.enabled must be a bool, got {self.enabled!r}")
        if isinstance(self.history_size, bool) or not isinstance(self.history_size, int):
            raise ConfigError(f"WorldConfig.history_size must be an integer, got {self.history_size!r}")
        if not 1 <= self.history_size <= _MAX_HISTORY:
            raise ConfigError(
                f"WorldConfig.history_size must be between 1 and {_MAX_HISTORY}, got {self.history_size}"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorldConfig:
        """Read ``AMC_WORLD_ENABLED`` and ``AMC_WORLD_HISTORY_SIZE``; unset means the default."""
        env = os.environ if environ is None else environ
        enabled = cls.enabled
        history_size = cls.history_size
        raw = env.get(ENV_ENABLED)
        if raw is not None and raw.strip() != "":
            enabled = parse_bool(ENV_ENABLED, raw)
        raw = env.get(ENV_HISTORY_SIZE)
        if raw is not None and raw.strip() != "":
            try:
                history_size = int(raw.strip(), 10)
            except ValueError:
                raise ConfigError(
                    f"{ENV_HISTORY_SIZE}={raw!r} is not an integer",
                    hint=f"set a whole number of steps between 1 and {_MAX_HISTORY}",
                ) from None
            if not 1 <= history_size <= _MAX_HISTORY:
                raise ConfigError(
                    f"{ENV_HISTORY_SIZE}={raw!r} is out of range",
                    hint=f"the history keeps between 1 and {_MAX_HISTORY} steps",
                )
        return cls(enabled=enabled, history_size=history_size)
