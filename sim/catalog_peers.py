"""Stand-ins for other projects' test apps, so their suites can run against the faces."""
from __future__ import annotations
from .catalog import AppSpec, Screen, Widget
__all__ = ["WDA_E2E_APP", "wda_e2e_app"]
WDA_E2E_APP = "com.test.cert.TestCert"
def wda_e2e_app() -> AppSpec:
    rows = tuple(Widget("row", f"Row{n}", f"Row{n}") for n in range(1, 101))
    return AppSpec(WDA_E2E_APP, "facebookwdae2e", "home", {
        "home": Screen("home", "Home", (
            Widget("button", "ACCEPT_OR_REJECT_ALERT", "ACCEPT_OR_REJECT_ALERT"),
            Widget("button", "INPUT_ALERT", "INPUT_ALERT"),
            Widget("button", "ENABLED_BTN", "ENABLED_BTN"),
            Widget("button", "DISABLED_BTN", "DISABLED_BTN", enabled=False),
            Widget("button", "IMG_BTN", "applogo"),
            Widget("button", "HIDDEN_BTN", "HIDDEN_BTN"),
            Widget("button", "CHECKED_BTN", "CHECKED_BTN"),
            Widget("button", "UNCHECKED_BTN", "UNCHECKED_BTN"),
            Widget("field", "INPUT_FIELD", label="INPUT_FIELD", hint="INPUT_FIELD"),
            Widget("button", "CLEAR_INPUT_BTN", "CLEAR INPUT", label="CLEAR_INPUT_BTN"),
            Widget("text", "LONG_TAP_ALERT", "LONG_TAP_ALERT"),
            Widget("text", "DOUBLE_TAP_ALERT", "DOUBLE_TAP_ALERT"),
            Widget("button", "ListView", "ListView", goto="list"),
        )),
        "list": Screen("list", "Numbers List", rows),
    })
