"""An error the simulated Appium server answers in W3C shape: :class:`W3CError`.

Its own module, under the face's commands (:mod:`sim.appium_input`, :mod:`sim.appium_state`,
:mod:`sim.appium_permissions`, :mod:`sim.wda_extra_routes`), so each can refuse a request without
importing the module that lists it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["W3CError", "invalid_argument"]


class W3CError(Exception):
    """An error answered in W3C shape, with the HTTP status Appium uses for it."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status, self.error, self.message = status, error, message

    def body(self) -> dict[str, Any]:
        return {"value": {"error": self.error, "message": self.message, "stacktrace": ""}}


def invalid_argument(message: str) -> W3CError:
    return W3CError(400, "invalid argument", message)
