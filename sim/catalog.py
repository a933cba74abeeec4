"""The simulated device's apps: real IDs, screens, widgets and where a tap leads.

Pure data. The state machine (:mod:`sim.device`) runs it; the layout
(:mod:`sim.layout`) places it on screen; renderers turn the result into each
platform's real source format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.models import Platform

__all__ = [
    "ANDROID_LAUNCHER",
    "DEMO_APP",
    "DEMO_PASSWORD",
    "DEMO_SCHEME",
    "DEMO_USER",
    "NOTES_APP",
    "SIGNING_IN",
    "Alert",
    "AppSpec",
    "Screen",
    "Widget",
    "catalog",
]

ANDROID_LAUNCHER = "com.android.launcher3"
DEMO_APP = "com.example.amc.demo"
NOTES_APP = "com.example.amc.notes"  # asks to send notifications on its first launch
DEMO_USER = "qa"
DEMO_PASSWORD = "secret123"
DEMO_SCHEME = "amcdemo"
# What the demo app shows while it signs in (with the device's timing on, about a second).
SIGNING_IN = "signing_in"


@dataclass(frozen=True)
class Alert:
    """A dialog an app shows: its title, message and buttons (left to right; every button closes it)."""

    title: str
    message: str
    buttons: tuple[str, ...] = ("OK",)


@dataclass(frozen=True)
class Widget:
    """One thing on a screen.

        ``role`` is platform-neutral: ``row`` (a list item), ``switch_row``, ``text``, ``button``,
        ``field``, ``secure_field``. ``key`` becomes the Android resource-id / iOS accessibility id.
        ``goto`` names the screen a tap opens; ``action`` names a behaviour of the state machine
        (``login``, ``logout``, ``toggle``, ``alert``: show ``alert``; ``toast``: show the toast
        ``toast``; ``clear``: empty the field ``target``; ``sum``: write into the field ``target`` the sum
        of the whole numbers in the fields ``sums``, a field without one counting 0; ``increment``: add
        one to the whole number the text ``target`` shows; ``copy``: write into the field ``target`` the
    text of the field ``sums[0]``, as a search box is prefilled with a query). ``role`` ``image``
        is a picture (``label`` its accessibility label).
        ``on_long_press`` / ``on_double_tap``: the alert a long press / a double tap shows (other
        widgets take either as a tap). ``hidden``: drawn with opacity 0 (in the tree, not visible, not
        an accessibility element); ``selected``: shown selected.
    """

    role: str
    key: str
    text: str = ""
    summary: str | None = None
    label: str | None = None
    hint: str | None = None
    goto: str | None = None
    action: str | None = None
    on: bool = False
    enabled: bool = True
    alert: Alert | None = None
    toast: str | None = None
    target: str | None = None
    sums: tuple[str, ...] = ()
    on_long_press: Alert | None = None
    on_double_tap: Alert | None = None
    hidden: bool = False
    selected: bool = False


@dataclass(frozen=True)
class Screen:
    """One screen of an app. ``loads_late``: its rows come after a delay (a list fetched from
    somewhere), with a progress indicator until then, when the device's timing is on."""

    name: str
    title: str
    widgets: tuple[Widget, ...]
    activity: str | None = None  # Android only: the activity class shown for this screen
    toolbar: bool = True
    loads_late: bool = False


@dataclass(frozen=True)
class AppSpec:
    """An installed app. ``schemes`` are the URL schemes it opens (``amcdemo://login`` opens the
    demo app on its ``login`` screen). With ``signed_in_screen``, a signed-in user survives the app being
    stopped (as a real app keeps its session on disk) until its data is cleared or the user signs
    out; a signed-in user starts on ``signed_in_screen``."""

    app_id: str
    name: str
    start: str
    screens: Mapping[str, Screen] = field(default_factory=dict)
    # A runtime permission the app asks for on its first launch ("notifications"): the system
    # shows its prompt over the app (Android's permission controller, an iOS SpringBoard alert).
    asks: str | None = None
    # Android: the launcher categories its main activity declares (TV apps: LEANBACK_LAUNCHER only).
    categories: tuple[str, ...] = ("android.intent.category.LAUNCHER",)
    schemes: tuple[str, ...] = ()
    signed_in_screen: str | None = None
    # Launch arguments the app reads (iOS ``-name value``, as UserDefaults reads them): argument
    # name -> the field of its first screen the value fills (the demo app: ``-user qa``).
    reads_arguments: tuple[tuple[str, str], ...] = ()

    def screen(self, name: str) -> Screen:
        return self.screens[name]


def _screens(*screens: Screen) -> dict[str, Screen]:
    return {s.name: s for s in screens}


def _row(key: str, text: str, summary: str | None = None, goto: str | None = None) -> Widget:
    return Widget("row", key, text, summary=summary, goto=goto)


def _switch(key: str, text: str, on: bool = False, summary: str | None = None) -> Widget:
    return Widget("switch_row", key, text, summary=summary, action="toggle", on=on)


def _demo_app(platform: Platform) -> AppSpec:
    login_activity = f"{DEMO_APP}.LoginActivity" if platform == "android" else None
    home_activity = f"{DEMO_APP}.HomeActivity" if platform == "android" else None
    return AppSpec(
        DEMO_APP,
        "Demo Login",
        "login",
        _screens(
            Screen(
                "login",
                "Demo Login",
                (
                    Widget("text", "heading", "Sign in to continue"),
                    Widget("field", "username", hint="Username", label="Username"),
                    Widget("secure_field", "password", hint="Password", label="Password"),
                    Widget("button", "sign_in", "Sign in", action="login"),
                    Widget("text", "status", ""),
                ),
                activity=login_activity,
            ),
            Screen(
                SIGNING_IN,
                "Demo Login",
                (
                    Widget("progress", "progress", label="Signing in"),
                    Widget("text", "status", "Signing in…"),
                ),
                activity=login_activity,
            ),
            Screen(
                "welcome",
                "Welcome",
                (
                    Widget("text", "greeting", "Signed in as {user}"),
                    Widget("button", "sign_out", "Sign out", action="logout"),
                ),
                activity=home_activity,
            ),
        ),
        schemes=(DEMO_SCHEME,),
        signed_in_screen="welcome",
        reads_arguments=(("user", "username"),),
    )


def _notes_app(platform: Platform) -> AppSpec:
    activity = f"{NOTES_APP}.NotesActivity" if platform == "android" else None
    return AppSpec(
        NOTES_APP,
        "Notes",
        "notes",
        _screens(
            Screen(
                "notes",
                "Notes",
                (
                    _row("note_trip", "Trip", "Lisbon, then Porto"),
                    _row("note_shopping", "Shopping", "Milk, bread, coffee"),
                    Widget("button", "new_note", "New note"),
                ),
                activity=activity,
            ),
        ),
        asks="notifications",
    )


def _android_apps(release: str) -> dict[str, AppSpec]:
    settings = "com.android.settings"
    apps = [
        AppSpec(
            settings,
            "Settings",
            "main",
            _screens(
                Screen(
                    "main",
                    "Settings",
                    (
                        _row("network", "Network & internet", "Mobile, Wi\u2011Fi, hotspot", "network"),
                        _row("connected", "Connected devices", "Bluetooth, pairing", "connected"),
                        _row("apps", "Apps", "Assistant, recent apps, default apps"),
                        _row("notifications", "Notifications", "Notification history, conversations"),
                        _row("battery", "Battery", "100%"),
                        _row("storage", "Storage", "34% used - 42.1 GB free"),
                        _row("sound", "Sound & vibration", "Volume, haptics, Do Not Disturb"),
                        _row("display", "Display", "Dark theme, font size, brightness", "display"),
                        _row("wallpaper", "Wallpaper & style", "Colors, themed icons, app grid"),
                        _row("accessibility", "Accessibility", "Display, interaction, audio"),
                        _row("security", "Security & privacy", "App security, device lock, permissions"),
                        _row("location", "Location", "On - 3 apps have access to location"),
                        _row("system", "System", "Languages, gestures, time, backup"),
                        _row("about", "About emulated device", "sdk_gphone64_x86_64", "about"),
                    ),
                    activity=f"{settings}.Settings",
                ),
                Screen(
                    "network",
                    "Network & internet",
                    (
                        _row("internet", "Internet", "AndroidWifi"),
                        _row("calls_sms", "Calls & SMS", "T-Mobile"),
                        _row("sims", "SIMs", "T-Mobile"),
                        _switch("airplane", "Airplane mode"),
                        _row("hotspot", "Hotspot & tethering", "Off"),
                        _row("data_saver", "Data Saver", "Off"),
                    ),
                    activity=f"{settings}.Settings$NetworkDashboardActivity",
                    loads_late=True,
                ),
                Screen(
                    "connected",
                    "Connected devices",
                    (
                        _row("pair", "Pair new device"),
                        _row("prefs", "Connection preferences", "Bluetooth, NFC"),
                    ),
                    activity=f"{settings}.Settings$ConnectedDeviceDashboardActivity",
                ),
                Screen(
                    "display",
                    "Display",
                    (
                        _row("brightness", "Brightness level", "74%"),
                        _switch("adaptive", "Adaptive brightness", on=True),
                        _switch("dark_theme", "Dark theme"),
                        _row("timeout", "Screen timeout", "After 30 seconds of inactivity"),
                    ),
                    activity=f"{settings}.Settings$DisplaySettingsActivity",
                ),
                Screen(
                    "about",
                    "About emulated device",
                    (
                        _row("device_name", "Device name", "sdk_gphone64_x86_64"),
                        _row("model", "Model", "sdk_gphone64_x86_64"),
                        _row("android_version", "Android version", release),
                        _row("build", "Build number", "UE1A.230829.036.A1"),
                    ),
                    activity=f"{settings}.Settings$MyDeviceInfoActivity",
                ),
            ),
        ),
        AppSpec(
            "com.android.deskclock",
            "Clock",
            "alarms",
            _screens(
                Screen(
                    "alarms",
                    "Alarm",
                    (
                        _switch("alarm_0730", "7:30 AM", summary="Mon, Tue, Wed, Thu, Fri"),
                        _switch("alarm_0900", "9:00 AM", summary="Sat, Sun"),
                        Widget("button", "fab", label="Add alarm", goto="new_alarm"),
                    ),
                    activity="com.android.deskclock.DeskClock",
                ),
                Screen(
                    "new_alarm",
                    "Select time",
                    (
                        Widget("text", "time", "6:00 AM"),
                        Widget("button", "ok", "OK", goto="alarms"),
                    ),
                    activity="com.android.deskclock.DeskClock",
                ),
            ),
        ),
        _demo_app("android"),
        _notes_app("android"),
    ]
    return {app.app_id: app for app in apps}


def _ios_apps(version: str) -> dict[str, AppSpec]:
    apps = [
        AppSpec(
            "com.apple.Preferences",
            "Settings",
            "main",
            _screens(
                Screen(
                    "main",
                    "Settings",
                    (
                        _switch("airplane", "Airplane Mode"),
                        _row("com.apple.settings.wifi", "Wi-Fi", "Home", "wifi"),
                        _row("com.apple.settings.bluetooth", "Bluetooth", "On", "bluetooth"),
                        _row("com.apple.settings.cellular", "Cellular"),
                        _row("com.apple.settings.notifications", "Notifications"),
                        _row("com.apple.settings.sounds", "Sounds & Haptics"),
                        _row("com.apple.settings.focus", "Focus"),
                        _row("com.apple.settings.screenTime", "Screen Time"),
                        _row("com.apple.settings.general", "General", goto="general"),
                        _row("com.apple.settings.controlCenter", "Control Center"),
                        _row(
                            "com.apple.settings.displayAndBrightness", "Display & Brightness", goto="display"
                        ),
                        _row("com.apple.settings.homeScreen", "Home Screen & App Library"),
                        _row("com.apple.settings.accessibility", "Accessibility"),
                        _row("com.apple.settings.wallpaper", "Wallpaper"),
                        _row("com.apple.settings.siri", "Siri & Search"),
                        _row("com.apple.settings.privacy", "Privacy & Security"),
                        _row("com.apple.settings.appStore", "App Store"),
                        _row("com.apple.settings.wallet", "Wallet & Apple Pay"),
                        _row("com.apple.settings.passwords", "Passwords"),
                        _row("com.apple.settings.mail", "Mail"),
                        _row("com.apple.settings.contacts", "Contacts"),
                        _row("com.apple.settings.calendar", "Calendar"),
                    ),
                ),
                Screen("wifi", "Wi-Fi", (_switch("Wi-Fi", "Wi-Fi", on=True), _row("Home", "Home", "Secure"))),
                Screen("bluetooth", "Bluetooth", (_switch("Bluetooth", "Bluetooth", on=True),)),
                Screen(
                    "general",
                    "General",
                    (
                        _row("About", "About", goto="about"),
                        _row("Software Update", "Software Update"),
                        _row("iPhone Storage", "iPhone Storage"),
                    ),
                    loads_late=True,
                ),
                Screen(
                    "display",
                    "Display & Brightness",
                    (_switch("Dark", "Dark Mode"), _switch("Automatic", "Automatic", on=True)),
                ),
                Screen(
                    "about",
                    "About",
                    (
                        _row("Name", "Name", "iPhone"),
                        _row("iOS Version", "iOS Version", version),
                        _row("Model Name", "Model Name", "iPhone 15"),
                    ),
                ),
            ),
        ),
        AppSpec(
            "com.apple.mobilesafari",
            "Safari",
            "start",
            _screens(
                Screen(
                    "start",
                    "Start Page",
                    (
                        Widget("field", "URL", hint="Search or enter website name", label="Address"),
                        Widget("text", "favorites", "Favorites"),
                        _row("Apple", "Apple"),
                        _row("Bing", "Bing"),
                    ),
                ),
            ),
            schemes=("http", "https"),
        ),
        _demo_app("ios"),
        _notes_app("ios"),
    ]
    return {app.app_id: app for app in apps}


def catalog(platform: Platform, os_version: str | None = None) -> dict[str, AppSpec]:
    """The apps installed on a fresh simulated device of ``platform``; Settings > About shows
    ``os_version`` (by default the default profile's: Android 14, iOS 18.5)."""
    if platform == "android":
        return _android_apps(os_version or "14")
    return _ios_apps(os_version or "18.5")
