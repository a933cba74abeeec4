"""``appium:`` device specs into typed options, and the client-exception table into core.errors."""

from __future__ import annotations

import pytest
import urllib3.exceptions as u3
from amc.core.errors import (
    ConfigError,
    DeviceError,
    DeviceTimeout,
    DriverUnavailable,
    SessionLost,
    StepArgumentError,
    TargetNotFound,
)
from amc.drivers.appium import AppiumDriver, options_for
from amc.drivers.appium.errors import (
    ERROR_TABLE,
    AppiumCall,
    StrictErrorHandler,
    map_error,
    server_refused,
    unsupported,
)
from amc.drivers.connect import connect
from amc.sim.appium_face import AppiumFace
from amc.sim.device import SimDevice
from appium.options.android import UiAutomator2Options
from appium.options.ios import XCUITestOptions
from selenium.common import exceptions as se

# --- specs ---------------------------------------------------------------------------------------


def test_query_parameters_become_typed_options(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[AppiumDriver] = []

    def connect_later(self: AppiumDriver) -> AppiumDriver:
        made.append(self)
        return self

    monkeypatch.setattr(AppiumDriver, "connect", connect_later)
    driver = connect(
        "appium:http://127.0.0.1:4723/wd/hub?platform=android&udid=emulator-5554&appPackage=com.x"
        "&noReset=true&newCommandTimeout=120&timeout=7.5&launchTimeout=3",
        device_id="lab-phone-1",
    )
    assert made == [driver] and isinstance(driver, AppiumDriver)
    assert isinstance(driver.options, UiAutomator2Options)
    caps = driver.options.to_w3c()["capabilities"]["alwaysMatch"]
    assert caps["platformName"] == "Android" and caps["appium:automationName"] == "UIAutomator2"
    assert (caps["appium:udid"], caps["appium:appPackage"]) == ("emulator-5554", "com.x")
    assert (caps["appium:noReset"], caps["appium:newCommandTimeout"]) == (True, 120)
    assert (driver.server_url, driver.timeout, driver.launch_timeout) == (
        "http://127.0.0.1:4723/wd/hub",
        7.5,
        3.0,
    )
    assert driver.device_id == "lab-phone-1"


def test_ios_query_with_page_source_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AppiumDriver, "connect", lambda self: self)
    driver = connect(
        "appium:http://hub.local:4444?platform=ios&bundleId=com.apple.Preferences&snapshotMaxDepth=30"
        "&pageSourceExcludedAttributes=visible,accessible&automationName=XCUITest"
    )
    assert isinstance(driver, AppiumDriver) and isinstance(driver.options, XCUITestOptions)
    assert (
        driver.options.to_w3c()["capabilities"]["alwaysMatch"]["appium:bundleId"] == "com.apple.Preferences"
    )
    assert driver.settings == {"snapshotMaxDepth": 30, "pageSourceExcludedAttributes": "visible,accessible"}
    assert driver.platform == "ios" and driver.device_id == "appium@hub.local:4444"


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("appium:http://127.0.0.1:4723", "platform=android"),
        ("appium:http://127.0.0.1:4723?platform=windows", "platform=android"),
        ("appium:http://127.0.0.1:4723?platform=android&colour=red", "'colour'"),
        ("appium:http://127.0.0.1:4723?platform=android&bundleId=x", "'bundleId'"),
        ("appium:http://127.0.0.1:4723?platform=ios&noReset=maybe", "'noReset'"),
        ("appium:http://127.0.0.1:4723?platform=ios&timeout=-1", "'timeout'"),
        ("appium:http://127.0.0.1:4723?platform=ios&udid=a&udid=b", "'udid'"),
        ("appium:http://127.0.0.1:4723?platform=ios&udid=", "'udid'"),
        ("appium:ftp://127.0.0.1:4723?platform=ios", "http(s)"),
        ("appium:http://127.0.0.1:99999?platform=ios", "port"),
    ],
)
def test_a_bad_spec_is_a_config_error_naming_what_is_wrong(spec: str, named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        connect(spec)
    assert named in str(caught.value)


def test_unknown_connect_options_and_bad_numbers_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="retries"):
        connect("appium:http://127.0.0.1:4723?platform=ios", retries=3)
    with pytest.raises(ConfigError, match="timeout"):
        AppiumDriver("http://127.0.0.1:4723", options_for("ios"), timeout=0)
    with pytest.raises(ConfigError, match="no option"):
        options_for("android", bundle_id="com.x")
    with pytest.raises(ConfigError, match="contradicts"):
        AppiumDriver("http://127.0.0.1:4723", options_for("ios"), platform="android")


def test_an_appium_spec_drives_the_face_end_to_end() -> None:
    device = SimDevice("android")
    with AppiumFace(device) as face:
        driver = connect(
            f"appium:{face.url}?platform=android&udid={device.device_id}&appPackage=com.android.settings"
        )
        try:
            assert device.foreground() == "com.android.settings"  # the session started the app
            assert driver.observe().foreground_app == "com.android.settings"
        finally:
            driver.close()
        # a udid the server has not attached: the spec (or the cable) is to fix, not the server
        with pytest.raises(ConfigError, match="no device with that udid attached") as caught:
            connect(f"appium:{face.url}?platform=android&udid=someone-else")
        assert caught.value.hint is not None and "attach the phone" in caught.value.hint


def test_credentials_in_the_url_are_kept_out_of_it() -> None:
    driver = AppiumDriver("https://user:secret@grid.example:443/wd/hub/", options_for("android"))
    assert driver.server_url == "https://grid.example:443/wd/hub"
    assert "secret" not in repr(driver)


# --- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (se.InvalidSessionIdException("gone"), SessionLost),
        (se.NoSuchElementException("none"), TargetNotFound),
        (se.StaleElementReferenceException("stale"), TargetNotFound),
        (se.UnknownMethodException("Unsupported execute method 'mobile: x'"), DeviceError),
        (se.TimeoutException("slow"), DeviceTimeout),
        (se.SessionNotCreatedException("no device"), DriverUnavailable),
        (se.InvalidArgumentException("bad"), StepArgumentError),
        (se.WebDriverException("boom"), DeviceError),
        (u3.NewConnectionError(None, "refused"), DriverUnavailable),  # type: ignore[arg-type]
        (u3.ReadTimeoutError(None, "/source", "read timed out"), DeviceTimeout),  # type: ignore[arg-type]
        (u3.ProtocolError("Connection aborted."), DriverUnavailable),
        (ConnectionResetError("reset"), DriverUnavailable),
    ],
)
def test_the_table_maps_client_exceptions(exc: BaseException, expected: type[Exception]) -> None:
    error = map_error(exc, AppiumCall("doing it", "http://127.0.0.1:4723", timeout=2.0))
    assert type(error) is expected
    assert str(error).startswith("doing it: ") and "http://127.0.0.1:4723" in str(error)


def test_max_retry_errors_are_unwrapped_and_session_errors_are_config() -> None:
    wrapped = u3.MaxRetryError(None, "/source", u3.ReadTimeoutError(None, "/source", "timed out"))  # type: ignore[arg-type]
    error = map_error(wrapped, AppiumCall("reading", "s", timeout=2.0))
    assert isinstance(error, DeviceTimeout) and error.timeout == 2.0
    starting = AppiumCall("starting", "s", creating_session=True)
    rejected = map_error(se.InvalidArgumentException("caps"), starting)
    assert type(rejected) is ConfigError
    assert unsupported(se.UnknownMethodException("x")) and not unsupported(se.WebDriverException("x"))
    assert server_refused(se.WebDriverException("x")) and not server_refused(
        se.InvalidSessionIdException("x")
    )
    assert {se.WebDriverException, OSError} <= {kind for rule in ERROR_TABLE for kind in rule.types}


def test_http_errors_without_a_w3c_body_are_not_taken_for_values() -> None:
    handler = StrictErrorHandler()
    handler.check_response({"value": "fine"})
    with pytest.raises(se.WebDriverException, match="HTTP 502"):
        handler.check_response({"status": 502, "value": "<html>Bad Gateway</html>"})
    with pytest.raises(se.NoSuchElementException):
        handler.check_response(
            {"status": 404, "value": '{"value": {"error": "no such element", "message": "x"}}'}
        )


def test_each_new_session_request_gets_its_own_idempotency_key() -> None:
    from urllib.parse import urlsplit

    from amc.drivers.appium.driver import _CountingConnection
    from appium.webdriver.appium_connection import HEADER_IDEMOTENCY_KEY, AppiumConnection
    from appium.webdriver.client_config import AppiumClientConfig

    shared_before = dict(AppiumConnection.extra_headers)
    config = AppiumClientConfig(remote_server_addr="http://127.0.0.1:4723")
    one, two = (_CountingConnection(config, lambda command: None) for _ in range(2))
    new_session = urlsplit("http://127.0.0.1:4723/session")
    keys = {one.get_remote_connection_headers(new_session)[HEADER_IDEMOTENCY_KEY] for _ in range(3)}
    keys.add(two.get_remote_connection_headers(new_session)[HEADER_IDEMOTENCY_KEY])
    assert len(keys) == 4  # never shared between requests or connections
    source = one.get_remote_connection_headers(urlsplit("http://127.0.0.1:4723/session/abc/source"))
    assert HEADER_IDEMOTENCY_KEY not in source and source["Connection"] == "keep-alive"
    assert dict(AppiumConnection.extra_headers) == shared_before  # the client's class-wide dict is untouched
