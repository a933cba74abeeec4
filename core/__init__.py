"""Core values and errors shared by every layer of the harness."""

from .errors import (
    AppError,
    AppLaunchFailed,
    AppNotInstalled,
    ConfigError,
    DeviceError,
    DeviceOffline,
    DeviceTimeout,
    DriverUnavailable,
    FlowError,
    HarnessError,
    LeaseTimeout,
    PoolExhausted,
    SceneParseError,
    SessionLost,
    StepArgumentError,
    TargetNotFound,
    is_transient,
)
from .models import Bounds, PlannedStep, Platform, Scene, StepResult, UIElement, jsonable
from .selectors import Selector, tap_point
from .steps import StepRecord

__all__ = [
    "AppError",
    "AppLaunchFailed",
    "AppNotInstalled",
    "Bounds",
    "ConfigError",
    "DeviceError",
    "DeviceOffline",
    "DeviceTimeout",
    "DriverUnavailable",
    "FlowError",
    "HarnessError",
    "LeaseTimeout",
    "PlannedStep",
    "Platform",
    "PoolExhausted",
    "Scene",
    "SceneParseError",
    "Selector",
    "SessionLost",
    "StepArgumentError",
    "StepRecord",
    "StepResult",
    "TargetNotFound",
    "UIElement",
    "is_transient",
    "jsonable",
    "tap_point",
]
