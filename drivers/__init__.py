"""Device drivers: the ``Driver`` protocol and its backends."""

from .base import KEYS, Driver

__all__ = ["KEYS", "Driver"]
