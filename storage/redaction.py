"""Keep secrets out of everything a run writes or prints.

A :class:`Redactor` knows the run's secret values (typed or remembered with ``secret: true``)
and replaces every occurrence with ``***`` in strings, nested JSON-like values, page sources
and log lines. It also applies the step's own secret rule (:func:`amc.core.steps.hide_secrets`),
so a secret is hidden even when it was not registered.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.models import PlannedStep, jsonable
from ..core.steps import REDACTED, hide_secrets

__all__ = ["REDACTED", "RedactingFormatter", "Redactor"]


class Redactor:
    """Replaces known secret values with ``***``. Longer secrets are replaced first, so a secret
    that contains another is hidden whole."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        known = set(self._secrets)
        known.update(s for s in secrets if isinstance(s, str) and s)
        self._secrets = sorted(known, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, value: str) -> str:
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def value(self, data: Any) -> Any:
        """A JSON-ready copy of ``data`` with every string scrubbed (mapping keys included)."""
        data = jsonable(data)
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in data.items()}
        if isinstance(data, list):
            return [self.value(v) for v in data]
        return data

    def step(self, step: PlannedStep) -> dict[str, Any]:
        """``step.to_dict()`` with its secret arguments hidden and every known secret scrubbed."""
        out = step.to_dict()
        out["args"] = jsonable(hide_secrets(step.args))
        scrubbed: dict[str, Any] = self.value(out)
        return scrubbed


class RedactingFormatter(logging.Formatter):
    """A log formatter whose output (message, arguments and traceback) has the secrets scrubbed."""

    def __init__(self, redactor: Redactor, fmt: str | None = None) -> None:
        super().__init__(fmt or "%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor.text(super().format(record))
