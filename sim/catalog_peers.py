"""Stand-ins for the apps other projects' test suites drive, so those suites run against the faces.

:func:`wda_e2e_app` plays ``com.test.cert.TestCert``, the SwiftUI app facebook-wda's
``e2e_benchmarks`` are written for (its source ships with them in ``e2e_benchmarks/app``,
``ContentView.swift``, ``ListView.swift``, ``DragView.swift``): the same accessibility identifiers
and labels, the same dialogs, and what its controls do. What the real app showed a real
WebDriverAgent is taken from the suite's reports (``reports/WDA_V611.md``, ``WDA_V711.md``: WDA 6.1.1
and 7.1.1 on an iPhone 13 Pro with iOS 16.3.1, every test below passed):

- ``ACCEPT_OR_REJECT_ALERT`` opens the alert "Confirmation" / "Do you accept?" with the buttons
  ``Reject`` (cancel, left) and ``Accept``; ``/alert/text`` is ``Confirmation\\nDo you accept?`` and
  ``/wda/alert/buttons`` ``['Reject', 'Accept']`` (``test_alert_commands.py``).
- ``ENABLED_BTN``; ``DISABLED_BTN`` is disabled; ``IMG_BTN`` is the image ``applogo`` (its text is
  ``applogo``, its type ``XCUIElementTypeImage``); ``HIDDEN_BTN`` has opacity 0: found, not
  displayed, not accessible.
- ``CHECKED_BTN`` answers ``selected`` true and ``UNCHECKED_BTN`` false (``test_btn_selected``).
- ``INPUT_FIELD`` takes text; ``CLEAR_INPUT_BTN`` (shown "CLEAR INPUT") empties it.
- ``LONG_TAP_ALERT`` opens "Long Tap Alert" on a press of a second or more (button
  ``LONG_TAP_ALERT_OK``), ``DOUBLE_TAP_ALERT`` "DOUBLE Tap Alert" on a double tap (button
  ``DOUBLE_TAP_ALERT_OK``).
- ``ListView`` opens "Numbers List", the rows ``Row1`` to ``Row100``; ``DragView`` the drag screen.

The drag screen's long-press-and-drag gesture is not played (no test of the suite uses it).

:func:`maestro_demo_app` plays ``com.example.example``, the Flutter app Maestro's own end-to-end
workspace (``e2e/demo_app/.maestro/``) is written for; its docstring says from which source.
"""

from __future__ import annotations

from ..core.models import Platform
from .catalog import Alert, AppSpec, Screen, Widget

__all__ = [
    "API_DEMOS",
    "MAESTRO_DEMO",
    "U2_DEMO",
    "WDA_E2E_APP",
    "api_demos_app",
    "maestro_demo_app",
    "stand_ins",
    "u2_demo_app",
    "wda_e2e_app",
]

WDA_E2E_APP = "com.test.cert.TestCert"
API_DEMOS = "io.appium.android.apis"
U2_DEMO = "com.example.u2testdemo"
MAESTRO_DEMO = "com.example.example"

# The buttons of the demo app's home page, in its grid's order (e2e/demo_app/lib/main.dart,
# _MyHomePageState.build); "Health Access" only on iOS (`if (!kIsWeb && Platform.isIOS)`).
_DEMO_BUTTONS = (
    "Sensors",
    "Location Test",
    "Defects Test",
    "Nesting Test",
    "Gesture Tester",
    "Carousel Test",
    "Form Test",
    "Input/Keyboard",
    "Password autofill Test",
    "issue 1677 repro",
    "issue 1619 repro",
    "Webview Test",
    "Webview Devtools Test",
    "Webview Deep DOM Test",
    "Cropped Screenshot Test",
    "Notifications Permission",
    "Health Access",
    "Permission Check",
    "Connectivity Test",
    "Scrollable List",
    "Animation Test",
    "Orientation Test",
    "assertScreenshot Threshold",
    "Trigger Local Notification",
)


def _button(key: str, text: str | None = None, **extra: object) -> Widget:
    return Widget("button", key, text if text is not None else key, label=key, **extra)  # type: ignore[arg-type]


def wda_e2e_app() -> AppSpec:
    """The stand-in for facebook-wda's e2e app (see the module docstring)."""
    confirmation = Alert("Confirmation", "Do you accept?", ("Reject", "Accept"))
    long_tap = Alert("Long Tap Alert", "Long Tap Alert", ("LONG_TAP_ALERT_OK",))
    double_tap = Alert("DOUBLE Tap Alert", "DOUBLE Tap Alert", ("DOUBLE_TAP_ALERT_OK",))
    home = (
        _button("ACCEPT_OR_REJECT_ALERT", action="alert", alert=confirmation),
        _button("INPUT_ALERT"),
        _button("ENABLED_BTN"),
        _button("DISABLED_BTN", enabled=False),
        Widget("image", "IMG_BTN", label="applogo"),
        _button("HIDDEN_BTN", hidden=True),
        _button("CHECKED_BTN", selected=True),
        _button("UNCHECKED_BTN"),
        Widget("field", "INPUT_FIELD", label="INPUT_FIELD", hint="INPUT_FIELD"),
        _button("CLEAR_INPUT_BTN", "CLEAR INPUT", action="clear", target="INPUT_FIELD"),
        Widget("text", "LONG_TAP_ALERT", "LONG_TAP_ALERT", on_long_press=long_tap),
        Widget("text", "DOUBLE_TAP_ALERT", "DOUBLE_TAP_ALERT", on_double_tap=double_tap),
        Widget("text", "ORIGATATION_TEXT", "PORTRAIT"),
        Widget("button", "ListView", "ListView", goto="list"),
        Widget("button", "DragView", "DragView", goto="drag"),
    )
    rows = tuple(Widget("row", f"Row{n}", f"Row{n}") for n in range(1, 101))
    drag = (
        Widget("button", "button_a", "按钮 A (长按并拖到B)"),
        Widget("button", "button_b", "按钮 B"),
    )
    return AppSpec(
        WDA_E2E_APP,
        "facebookwdae2e",
        "home",
        {
            "home": Screen("home", "Home", home),
            "list": Screen("list", "Numbers List", rows),
            "drag": Screen("drag", "", drag),
        },
    )


# ApiDemos' top-level list and its "App" list: the first part of each sample activity's label in
# its AndroidManifest.xml (labels such as "App/Alert Dialogs" from res/values/strings.xml), sorted
# as ApiDemos.java sorts them (appium/android-apidemos at 3518d187).
_API_GROUPS: tuple[str, ...] = (
    "Accessibility",
    "Animation",
    "App",
    "Content",
    "Graphics",
    "Media",
    "NFC",
    "OS",
)
_API_GROUPS += ("Preference", "Text", "Views")
_API_APP_GROUPS: tuple[str, ...] = (
    "Action Bar",
    "Activity",
    "Alarm",
    "Alert Dialogs",
    "Device Admin",
    "Fragment",
)
_API_APP_GROUPS += ("Instrumentation", "Launcher Shortcuts", "Loader", "Notification", "Search", "Service")
_API_APP_GROUPS += ("Text-To-Speech", "Voice Recognition")
# res/layout/alert_dialog.xml: each button's id and text (its content description is the same string).
_ALERT_BUTTONS = (
    ("two_buttons", "OK Cancel dialog with a message"),
    ("two_buttons2", "OK Cancel dialog with a long message"),
    ("two_buttons2ultra", "OK Cancel dialog with ultra long message"),
    ("select_button", "List dialog"),
    ("progress_button", "Progress dialog"),
    ("radio_button", "Single choice list"),
    ("checkbox_button", "Repeat alarm"),
    ("checkbox_button2", "Send Call to VoiceMail"),
    ("text_entry_button", "Text Entry dialog"),
    ("two_buttons_old_school", "OK Cancel dialog with traditional theme"),
    ("two_buttons_holo_light", "OK Cancel dialog with Holo Light theme"),
)
# strings.xml's alert_dialog_two_buttons_title, its whitespace folded as aapt folds it; the dialog
# (AlertDialogSamples.java, DIALOG_YES_NO_MESSAGE) has this title, no message, Cancel and OK.
_LOREM = "Lorem ipsum dolor sit aie consectetur adipiscing\nPlloaso mako nuto siwuf cakso dodtos anr koop."


def _list_item(text: str, goto: str | None = None) -> Widget:
    """An item of ApiDemos' lists: its text is its content description too (the Appium fork's
    lists set both), so it is found by accessibility id. Drawn as a button here; the real item is
    a TextView (``android:id/text1``)."""
    return Widget("button", _demo_key(text), text, label=text, goto=goto)


def api_demos_app() -> AppSpec:
    """The stand-in for Appium's ApiDemos (``io.appium.android.apis``), from its source
    (github:appium/android-apidemos at ``3518d187``: ``AndroidManifest.xml``, ``res/values/strings.xml``,
    ``res/layout/alert_dialog.xml``, ``res/layout/search_invoke.xml``, ``app/AlertDialogSamples.java``).

    adbutils' e2e test ``test_app_start_stop`` starts and stops it (its launcher activity
    ``.ApiDemos``); Appium's own Python sample tests (``sample-code/python/test`` in appium/appium)
    drive it, ported to the pytest plugin in ``examples/appium-pytest/``. Played: the top-level list
    and the "App" list (each item's text and content description); ``App/Alert Dialogs`` with its
    eleven buttons, of which "OK Cancel dialog with a message" (``two_buttons``) opens its dialog
    (title ``android:id/alertTitle``, buttons Cancel and OK, ``android:id/button1`` the OK);
    ``App/Search/Invoke Search`` (``.app.SearchInvoke``) with its texts, the fields
    ``txt_query_prefill`` and ``txt_query_appdata`` and the button ``btn_start_search``
    ("onSearchRequested()"), which opens the search box (``android:id/search_src_text``, hint
    "Search Demo Hint") prefilled with the prefill field's text.

    Not played: the other samples behind the lists (an item opens nothing), the other dialogs, the
    spinner ``spinner_menu_mode``, the search box drawn as a dialog over the activity (here a screen
    of its own), the search itself; the bar is the simulated device's toolbar, not
    ``android:id/action_bar_container``."""
    apps = f"{API_DEMOS}.app"
    top = tuple(_list_item(g, goto="app" if g == "App" else None) for g in _API_GROUPS)
    app_list = tuple(
        _list_item(g, goto={"Alert Dialogs": "alert_dialogs", "Search": "search"}.get(g))
        for g in _API_APP_GROUPS
    )
    two_buttons = Alert(_LOREM, "", ("Cancel", "OK"))
    alert_buttons = tuple(
        Widget(
            "button",
            key,
            text,
            label=text,
            action="alert" if key == "two_buttons" else None,
            alert=two_buttons if key == "two_buttons" else None,
        )
        for key, text in _ALERT_BUTTONS
    )
    invoke = (
        Widget(
            "text",
            "msg_search",
            "This activity shows a few different ways to invoke search, and inserts "
            "context-specific data for use by the search activity.",
        ),
        Widget("text", "sect_invocation", "Ways to invoke search"),
        Widget(
            "button",
            "btn_start_search",
            "onSearchRequested()",
            label="onSearchRequested()",
            action="copy",
            target="android:id/search_src_text",
            sums=("txt_query_prefill",),
            goto="search_box",
        ),
        Widget("text", "sect_options", "Optional search parameters"),
        Widget("text", "label_prefill", "Prefill query: "),
        Widget("field", "txt_query_prefill"),
        Widget("text", "label_appdata", "App Data: "),
        Widget("field", "txt_query_appdata"),
    )
    search_box = (Widget("field", "android:id/search_src_text", hint="Search Demo Hint"),)
    return AppSpec(
        API_DEMOS,
        "API Demos",
        "main",
        {
            "main": Screen("main", "API Demos", top, activity=f"{API_DEMOS}.ApiDemos"),
            "app": Screen("app", "API Demos", app_list, activity=f"{API_DEMOS}.ApiDemos"),
            "alert_dialogs": Screen(
                "alert_dialogs", "App/Alert Dialogs", alert_buttons, activity=f"{apps}.AlertDialogSamples"
            ),
            "search": Screen(
                "search",
                "API Demos",
                (_list_item("Invoke Search", goto="search_invoke"), _list_item("Query Search Results")),
                activity=f"{API_DEMOS}.ApiDemos",
            ),
            "search_invoke": Screen(
                "search_invoke", "App/Search/Invoke Search", invoke, activity=f"{apps}.SearchInvoke"
            ),
            "search_box": Screen(
                "search_box", "App/Search/Invoke Search", search_box, activity=f"{apps}.SearchInvoke"
            ),
        },
    )


def stand_ins(platform: Platform) -> dict[str, AppSpec]:
    """Every stand-in a simulated ``platform`` device can have installed, by app id (what the device
    spec's ``install=`` names: ``sim:android?install=io.appium.android.apis``)."""
    apps = [maestro_demo_app(platform)]
    apps += [api_demos_app(), u2_demo_app()] if platform == "android" else [wda_e2e_app()]
    return {app.app_id: app for app in apps}


def u2_demo_app() -> AppSpec:
    """The stand-in for ``com.example.u2testdemo``, the app uiautomator2's own device tests drive
    (``demo_tests`` at uiautomator2 3.7.0; openatx/u2testdemo's ``MainActivity.kt``): a menu with
    ``Addition``, ``Toast`` and ``Pinch``; the addition screen (``.AdditionActivity``) with two
    number fields, ``Add`` and the result field (``Enter first number``, ``Enter second number``,
    ``Result``; the sum of the two whole numbers); the toast screen, whose ``Show Toast`` shows the
    toast "Button Clicked!"; the pinch screen's image (content description "pinch image"); every
    screen's bar shows the app's label, as a Compose activity without a title of its own. Not
    played: the pinch screen's zoom (its "Scale" text stays at 1.00)."""
    activity = f"{U2_DEMO}.MainActivity"
    addition = (
        Widget("field", "num1", hint="Enter first number", label="First Number Input"),
        Widget("field", "num2", hint="Enter second number", label="Second Number Input"),
        Widget(
            "button", "add", "Add", label="Add Button", action="sum", target="result", sums=("num1", "num2")
        ),
        Widget("field", "result", hint="Result", label="Result Output"),
    )
    return AppSpec(
        U2_DEMO,
        "u2testdemo",
        "main",
        {
            "main": Screen(
                "main",
                "u2testdemo",
                (
                    Widget("button", "addition", "Addition", goto="addition"),
                    Widget("button", "toast", "Toast", goto="toast"),
                    Widget("button", "pinch", "Pinch", goto="pinch"),
                ),
                activity=activity,
            ),
            "addition": Screen("addition", "u2testdemo", addition, activity=f"{U2_DEMO}.AdditionActivity"),
            "toast": Screen(
                "toast",
                "u2testdemo",
                (Widget("button", "show_toast", "Show Toast", action="toast", toast="Button Clicked!"),),
                activity=activity,
            ),
            "pinch": Screen(
                "pinch",
                "u2testdemo",
                (Widget("image", "pinch_image", label="pinch image"), Widget("text", "scale", "Scale: 1.00")),
                activity=activity,
            ),
        },
    )


def maestro_demo_app(platform: Platform) -> AppSpec:
    """The stand-in for ``com.example.example``, Maestro's own demo app (``e2e/demo_app`` in
    github:mobile-dev-inc/maestro: a Flutter app), from its home page's source,
    ``e2e/demo_app/lib/main.dart`` (the version stored at commit ``e04beedf``), with the id its
    ``android/app/build.gradle.kts`` gives (``applicationId``; the activity is Flutter's
    ``MainActivity`` in that namespace) and the flows use on both platforms: the app bar's title
    "Flutter Demo Home Page"; the grid of buttons, each named by its text ("Form Test",
    "Input/Keyboard" …, "Health Access" on iOS only); the text "You have pushed the button this
    many times" beside the counter (``$_counter``, 0 at launch without the ``initialCounter``
    launch argument); the floating button, ``Semantics(identifier: 'fabAddIcon')`` with the tooltip
    "Increment", which adds one to the counter.

    Not played: the screens the buttons open (``form_screen.dart``, ``input_screen.dart`` … are not
    in the fetched snapshot of Maestro nor in any stored version of its repository), so here a
    button opens nothing; the launch arguments ``initialCounter`` and ``delay``; the deep link
    ``example://form``; the local notification."""
    buttons = tuple(
        Widget("button", _demo_key(text), text)
        for text in _DEMO_BUTTONS
        if text != "Health Access" or platform == "ios"
    )
    # The app shows all of its home page at once (a grid of three columns, the floating button
    # over it); the simulated screens draw one widget a row, so here the grid's last rows are
    # below the fold, and the counter and the floating button, always in view in the app, come
    # first.
    home = (
        Widget("button", "fabAddIcon", "", label="Increment", action="increment", target="counter"),
        Widget("text", "counter_caption", "You have pushed the button this many times"),
        Widget("text", "counter", "0"),
        *buttons,
    )
    activity = f"{MAESTRO_DEMO}.MainActivity" if platform == "android" else None
    return AppSpec(
        MAESTRO_DEMO,
        "demo_app",
        "home",
        {"home": Screen("home", "Flutter Demo Home Page", home, activity=activity)},
    )


def _demo_key(text: str) -> str:
    """A widget key for a button Flutter gives no identifier (its text is what a flow names)."""
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")
