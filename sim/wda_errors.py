"""An error the simulated WebDriverAgent answers: :class:`WdaError` (its ``error`` name, message
and HTTP status).

Its own module, under the route table (:mod:`sim.wda_routes`) and the routes it lists
(:mod:`sim.wda_device_routes`, :mod:`sim.wda_extra_routes`, :mod:`sim.wda_gesture_routes`), so a
route can refuse a request without importing the table that imports it.
"""

from __future__ import annotations

__all__ = ["WdaError", "invalid_argument"]


class WdaError(Exception):
    """An error answer: WDA's ``error`` name, its ``message`` and the HTTP status code."""

    def __init__(self, error: str, message: str, status: int) -> None:
        super().__init__(message)
        self.error, self.message, self.status = error, message, status


def invalid_argument(message: str) -> WdaError:
    return WdaError("invalid argument", message, 400)
