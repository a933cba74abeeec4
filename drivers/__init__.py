"""Device drivers: the ``Driver`` protocol and its backends."""

from .base import KEYS, DeviceInfo, Driver

__all__ = ["KEYS", "DeviceInfo", "Driver"]
