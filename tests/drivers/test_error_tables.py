"""The three backends map their clients' errors the same way (see ``amc.drivers.error_table``):
``CLIENT_ERRORS``, a frozen call description, an ordered ``ERROR_TABLE`` of ``ErrorRule`` rows and
``map_error(exc, call) -> HarnessError`` with a ``DeviceError`` fallback."""

from __future__ import annotations

import dataclasses
import inspect
from types import ModuleType

import pytest
import uiautomator2.exceptions as u2e
from amc.core.errors import DeviceError
from amc.drivers.appium import errors as appium_errors
from amc.drivers.error_table import ErrorRule
from amc.drivers.u2 import errors as u2_errors
from amc.drivers.wda import errors as wda_errors

BACKENDS: dict[str, tuple[ModuleType, object, BaseException]] = {
    # module, a call that failed, a client error no row knows
    "wda": (wda_errors, wda_errors.WdaCall("GET /source", "http://127.0.0.1:8100", 2.0), LookupError("odd")),
    "u2": (
        u2_errors,
        u2_errors.U2Call("emulator-5554", "127.0.0.1:5037", "observe", 2.0),
        u2e.AdbShellError(LookupError("odd")),
    ),
    "appium": (
        appium_errors,
        appium_errors.AppiumCall("reading", "http://127.0.0.1:4723", 2.0),
        LookupError("odd"),
    ),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_each_backend_has_the_same_parts(backend: str) -> None:
    module, call, _ = BACKENDS[backend]
    assert {"CLIENT_ERRORS", "ERROR_TABLE", "map_error"} <= set(module.__all__)
    assert dataclasses.is_dataclass(call) and type(call).__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert list(inspect.signature(module.map_error).parameters) == ["exc", "call"]
    table = module.ERROR_TABLE
    assert isinstance(table, tuple) and all(isinstance(rule, ErrorRule) for rule in table)
    assert len({rule.name for rule in table}) == len(table)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_every_row_can_be_reached(backend: str) -> None:
    module, _, _ = BACKENDS[backend]
    table: tuple[ErrorRule[object], ...] = module.ERROR_TABLE
    for index, rule in enumerate(table):
        for kind in rule.types:
            assert issubclass(kind, module.CLIENT_ERRORS), f"{rule.name}: the adapter never catches {kind}"
        hidden_by = [
            earlier.name
            for earlier in table[:index]
            if earlier.test is None and all(issubclass(kind, earlier.types) for kind in rule.types)
        ]
        assert hidden_by == [], f"row {rule.name!r} is hidden by {hidden_by}"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_client_error_no_row_knows_is_a_plain_device_error(backend: str) -> None:
    module, call, unknown = BACKENDS[backend]
    mapped = module.map_error(unknown, call)
    assert type(mapped) is DeviceError and "odd" in str(mapped)
