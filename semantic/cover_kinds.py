"""Which kind of cover a system window or alert is: the catalogue of the system's and the OEMs' own
prompts, each known by its package, window and resource ids as real captures show them.

The kinds (:data:`amc.core.apps.COVER_KINDS`): ``anr`` ("X isn't responding"), ``crash`` ("X keeps
stopping", "X has stopped"), ``permission`` (a runtime-permission prompt, the platform's or an
OEM's), ``battery`` (the prompt to let an app run in the background / leave battery optimisation),
``autostart`` (an OEM's auto-start manager), ``chooser`` (the system's "Open with" / "Select a Home
app" resolver), and iOS's SpringBoard alerts: ``notifications``, ``paste``, ``tracking`` (App
Tracking Transparency) and ``permission`` (location, camera, photos …).

Where each fact comes from (captures: ``tests/fixtures/real``, its PROVENANCE.md, "OEM covers"):

- ANR and crash dialogs: AOSP's ``app_anr_dialog.xml`` / ``app_error_dialog.xml`` ids (``aerr_wait``
  only on the ANR dialog; ``aerr_restart``, ``aerr_reset``, ``aerr_mute`` only on the crash dialog)
  and its titles ("%1$s isn't responding", "%1$s keeps stopping", before Android 9 "%1$s has
  stopped"); real dumps where only ``aerr_close`` is kept are told apart by the title.
- Chooser: AOSP's ResolverActivity (``resolver_list``, ``button_once`` "Just once",
  ``button_always`` "Always"; "Select a Home app" on Android 6), Honor's copy of it in package
  ``com.hihonor.android.internal.app`` (a real dump: 仅此一次 / 始终); Huawei's is
  ``com.huawei.android.internal.app`` (chosen here by the same naming; not collected).
- Permission: the platform's and Google's permission controller and package installer
  (:data:`amc.core.apps.PERMISSION_DIALOG_PACKAGES`), MIUI / HyperOS's own prompt in
  ``com.lbe.security.miui`` (GrantPermissionsActivity there: gkd-kit subscription rules for
  com.lbe.security.miui; ids ``permission_allow_button``, ``permission_message``,
  ``permission_allow_onetime_button``, ``permission_group_icon``: watcher scripts written against
  Xiaomi phones, e.g. Haleymax/Android-automation-script config/watchers/webglhost.py), ColorOS /
  OxygenOS's ``grant_singleton`` and OriginOS / FuntouchOS's ``grant_scroll`` in the permission
  controller's namespace (the same file). One UI uses Google's controller.
- Battery: AOSP Settings' RequestIgnoreBatteryOptimizations dialog (package ``com.android.settings``,
  ``android:id/alertTitle`` "Let app always run in background?": a Fire OS capture) and EMUI's
  background-run confirmation (后台运行 / 后台活动: dialog rules written against Huawei phones).
- Autostart: MIUI's ``com.miui.securitycenter`` auto-start manager, EMUI's / MagicOS's
  ``com.huawei.systemmanager`` / ``com.hihonor.systemmanager`` StartupAppControlActivity, ColorOS's
  ``com.coloros.safecenter`` startup manager, OriginOS's ``com.vivo.permissionmanager``: known by
  package and their wording (auto-start, 自启动); no dump of these screens was collected.
- iOS: the alerts' titles as Apple writes them ("“App” Would Like to Send You Notifications":
  appium/WebDriverAgent#889; "Allow “App” to use your location?" / "… to access your location …":
  appium/appium#12957; "“App” would like to paste from “Other”" with "Allow Paste" / "Don\u2019t Allow
  Paste": appium/appium#19908 and the paste-consent threads it links; "Allow “App” to track your
  activity across other companies\u2019 apps and websites?" with "Ask App Not to Track": Apple's ATT
  prompt as apps' UI tests quote it). No real page source of the paste or tracking alert was found.

Pure functions over elements; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.apps import ANDROID_ANR_IDS, ANDROID_ERROR_DIALOG_IDS, PERMISSION_DIALOG_PACKAGES
from ..core.apps import says_not_responding as _anr_title
from ..core.lazy import Query, candidates, texts
from ..core.models import UIElement

__all__ = [
    "ANR_IDS",
    "AUTOSTART_PACKAGES",
    "CHOOSER_IDS",
    "CRASH_IDS",
    "OEM_PERMISSION_PACKAGES",
    "SYSTEM_DIALOG_IDS",
    "android_kind",
    "ios_alert_kind",
    "says_not_responding",
    "springboard_prompt",
]

ANR_IDS: frozenset[str] = ANDROID_ANR_IDS
CRASH_IDS: frozenset[str] = frozenset({"aerr_restart", "aerr_reset", "aerr_mute"})
SYSTEM_DIALOG_IDS: frozenset[str] = ANDROID_ERROR_DIALOG_IDS
CHOOSER_IDS: frozenset[str] = frozenset({"resolver_list", "button_once", "button_always"})
_PERMISSION_IDS: frozenset[str] = frozenset(
    {
        "permission_allow_button",
        "permission_deny_button",
        "permission_allow_foreground_only_button",
        "permission_allow_one_time_button",
        "permission_allow_onetime_button",
        "permission_message",
        "permission_group_icon",
        "grant_dialog",
        "grant_singleton",
        "grant_scroll",
    }
)
OEM_PERMISSION_PACKAGES: frozenset[str] = frozenset({"com.lbe.security.miui"})
_PERMISSION_PACKAGES = PERMISSION_DIALOG_PACKAGES | OEM_PERMISSION_PACKAGES
_CHOOSER_PACKAGES: frozenset[str] = frozenset(
    {"android", "com.hihonor.android.internal.app", "com.huawei.android.internal.app"}
)
AUTOSTART_PACKAGES: frozenset[str] = frozenset(
    {
        "com.miui.securitycenter",
        "com.huawei.systemmanager",
        "com.hihonor.systemmanager",
        "com.coloros.safecenter",
        "com.oplus.safecenter",
        "com.vivo.permissionmanager",
    }
)
_SETTINGS = "com.android.settings"
# Title words (case-folded), each rule's own.
_BATTERY_WORDS = ("run in background", "battery optimi", "后台运行", "后台活动")
_AUTOSTART_WORDS = ("auto-start", "autostart", "auto start", "自启动", "自动启动")
_CHOOSER_WORDS = ("select a home app", "open with", "使用以下方式打开")

_IDS_QUERY: Query = (
    tuple(
        ("identifier", "~", f":id/{i}")
        for i in sorted(SYSTEM_DIALOG_IDS | CHOOSER_IDS | _PERMISSION_IDS | {"alertTitle"})
    ),
)


def _local_ids(window: UIElement) -> dict[str, UIElement]:
    """The visible elements of ``window`` this catalogue knows, by their id's local name."""
    found: dict[str, UIElement] = {}
    for el in candidates(window, _IDS_QUERY):
        namespace, sep, local = (el.identifier or "").partition(":id/")
        if sep and el.visible:
            found.setdefault(local, el)
            if local in _PERMISSION_IDS and _is_permission_package(namespace):
                found.setdefault("permission:", el)
    return found


def _is_permission_package(package: str) -> bool:
    """A runtime-permission prompt's package (or id namespace): the platform's, Google's, an OEM's."""
    return (
        package in _PERMISSION_PACKAGES or "permissioncontroller" in package or "packageinstaller" in package
    )


def _said(words: Iterable[str], said: str) -> bool:
    return any(w in said for w in words)


def says_not_responding(window: UIElement) -> bool:
    """Whether ``window``'s texts are an ANR dialog's title ("X isn't responding")."""
    return _anr_title(" ".join(texts(window)))


def android_kind(window: UIElement, package: str) -> str | None:
    """The kind of cover ``window`` (a top-level window of ``package``) is, or None when it is
    none of this catalogue's. A window's texts are read only when its ids or package already make
    it a candidate (a system dialog, a settings dialog, an OEM manager)."""
    ids = _local_ids(window)
    if ids.keys() & SYSTEM_DIALOG_IDS:
        if ids.keys() & ANR_IDS or says_not_responding(window):
            return "anr"
        return "crash"
    if ids.keys() & CHOOSER_IDS:
        return "chooser"
    if _is_permission_package(package) or "permission:" in ids:
        return "permission"
    if package in AUTOSTART_PACKAGES or package == _SETTINGS or "alertTitle" in ids:
        said = " ".join(texts(window)).casefold()
        if _said(_BATTERY_WORDS, said):
            return "battery"
        if _said(_AUTOSTART_WORDS, said):
            return "autostart"
        if package in _CHOOSER_PACKAGES and _said(_CHOOSER_WORDS, said):
            return "chooser"
    return None


# iOS: what an alert's title or buttons say (case-folded).
_IOS_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("paste", ("would like to paste from", "allow paste")),
    ("tracking", ("to track your activity", "ask app not to track")),
    ("notifications", ("would like to send you notifications",)),
    (
        "permission",
        (
            "would like to access",
            "would like to use",
            "to use your location",
            "access your location",
            "allow while using app",
            "allow once",
        ),
    ),
)


def ios_alert_kind(alert: UIElement) -> str:
    """The kind of an iOS alert (``XCUIElementTypeAlert`` / ``Sheet``) from its title and buttons:
    ``paste``, ``tracking``, ``notifications``, ``permission``, else ``alert`` (an app's own)."""
    said = " ".join([alert.label or "", alert.identifier or "", *texts(alert)]).casefold()
    said = said.replace("\u2019", "'")
    for kind, words in _IOS_KINDS:
        if _said(words, said):
            return kind
    return "alert"


# The titles of SpringBoard's prompts as Apple writes them (case kept: a query needle), for the
# sources where the prompt is no XCUIElementTypeAlert: WebDriverAgent 8.5.2 shows the notification
# prompt as SpringBoard's static texts in plain containers (appium/WebDriverAgent#889).
_SPRINGBOARD_TITLES = (
    "Would Like to Send You Notifications",
    "would like to paste from",
    "to track your activity",
    "Would Like to Access",
    "to use your location",
    "access your location",
)
_TITLE_QUERY: Query = (
    (("type", "=", "XCUIElementTypeStaticText"),),
    tuple(("label", "~", title) for title in _SPRINGBOARD_TITLES),
)


def springboard_prompt(root: UIElement) -> UIElement | None:
    """The title of a SpringBoard prompt in SpringBoard's own source (its application element is
    named " ") that holds no alert element, or None."""
    if root.type != "XCUIElementTypeApplication" or root.label != " ":
        return None
    for el in candidates(root, _TITLE_QUERY):
        if el.visible and el.type == "XCUIElementTypeStaticText" and ios_alert_kind(el) != "alert":
            return el
    return None
