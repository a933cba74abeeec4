"""The system's own prompts an app brings up on the simulated phone, as each platform and Android skin
draws them: the runtime-permission prompt, the prompt to let an app run in the background (battery
optimisation), an OEM's auto-start prompt, the system's app chooser, and iOS's SpringBoard alerts for
notifications, location, pasting and tracking.

An app asks with :meth:`sim.covers.CoverControls.ask` (or on its first launch, ``AppSpec.asks``);
the prompt is an activity in the asking app's task (the window manager focuses it: ``dumpsys`` names
:attr:`Prompt.package` / :attr:`Prompt.activity`), drawn over the app's window; its buttons answer it
(``prompt:allow``, ``prompt:deny``), back denies it.

Each prompt's package, activity, ids and words, from the sources :mod:`amc.semantic.cover_kinds`
cites for recognising them (real captures in ``tests/fixtures/real``):

- ``notifications`` (Android): Google's permission controller and its ids (``sim.layout_prompt``);
  MIUI / HyperOS: ``com.lbe.security.miui``'s GrantPermissionsActivity with its own ids
  (``permission_message``, ``permission_allow_button``; gkd-kit's rules for com.lbe.security.miui,
  Xiaomi watcher scripts); ColorOS / OxygenOS: ``grant_singleton`` "使用时允许"-style single button in
  the controller's namespace; OriginOS: ``grant_scroll``. No full dump of these was collected: the
  frame is AOSP's, the ids and the package are the skins'.
- ``battery``: Settings' RequestIgnoreBatteryOptimizations dialog (AOSP
  packages/apps/Settings fuelgauge/RequestIgnoreBatteryOptimizations.java), "Let app always run in
  background?" with Deny / Allow as ``android:id/button2`` / ``button1`` (a Fire OS capture).
- ``chooser``: AOSP's ResolverActivity in package ``android`` ("Open with", "Just once" / "Always":
  ``android:id/button_once`` / ``button_always``; the focused window
  ``android/com.android.internal.app.ResolverActivity`` as a test of a real emulator quotes it);
  EMUI / MagicOS: the same ids in ``com.hihonor.android.internal.app`` (a real Honor dump; its
  activity's name was not collected and is chosen here).
- ``autostart``: MIUI's ``com.miui.securitycenter`` and EMUI's ``com.huawei.systemmanager`` managers
  (packages from scripts written against those phones; the activity names and the dialog's words are
  chosen here: no dump was collected). Other skins draw none (a ``StepArgumentError``).
- iOS: SpringBoard's alert (:func:`sim.layout_prompt.ios_prompt_screen`) with Apple's titles:
  notifications (appium/WebDriverAgent#889), location (appium/appium#12957), paste ("Allow Paste" /
  "Don\u2019t Allow Paste": appium/appium#19908), tracking ("Ask App Not to Track" / "Allow": Apple's ATT
  prompt as apps' UI tests quote it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import StepArgumentError

__all__ = [
    "ANDROID_PROMPTS",
    "GRANT_ACTIVITY",
    "IOS_PROMPTS",
    "Prompt",
    "android_prompt_of",
    "check_prompt",
    "ios_prompt_of",
]

_GOOGLE_CONTROLLER = "com.google.android.permissioncontroller"
_CONTROLLER_IDS = "com.android.permissioncontroller:id/"
GRANT_ACTIVITY = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"


@dataclass(frozen=True)
class Prompt:
    """One prompt as a skin draws it: its package and activity, the id namespace of its views, the
    title (``{app}``: the asking app's name), the title's and the message's ids, and its buttons
    (id, text, ``allow`` or ``deny``)."""

    package: str
    activity: str
    title: str
    buttons: tuple[tuple[str, str, str], ...]
    title_id: str | None = None
    message: str | None = None
    message_id: str | None = None


_AOSP_PERMISSION = Prompt(
    _GOOGLE_CONTROLLER,
    GRANT_ACTIVITY,
    "Allow \u2068{app}\u2069 to send you notifications?",
    (
        (f"{_CONTROLLER_IDS}permission_allow_button", "Allow", "allow"),
        (f"{_CONTROLLER_IDS}permission_deny_button", "Don't allow", "deny"),
    ),
    title_id=f"{_CONTROLLER_IDS}permission_message",
)
_BATTERY = Prompt(
    "com.android.settings",
    "com.android.settings.fuelgauge.RequestIgnoreBatteryOptimizations",
    "Let app always run in background?",
    (("android:id/button2", "Deny", "deny"), ("android:id/button1", "Allow", "allow")),
    title_id="android:id/alertTitle",
    message="Allowing {app} to always run in the background may reduce battery life.",
    message_id="android:id/message",
)
_CHOOSER = Prompt(
    "android",
    "com.android.internal.app.ResolverActivity",
    "Open with",
    (("android:id/button_once", "Just once", "allow"), ("android:id/button_always", "Always", "allow")),
    title_id="android:id/title",
    message="{app}",
    message_id="android:id/text1",
)

# skin -> prompt kind -> how it is drawn (a kind a skin lacks falls back to AOSP's, if AOSP has it).
ANDROID_PROMPTS: dict[str, dict[str, Prompt]] = {
    "aosp": {"notifications": _AOSP_PERMISSION, "battery": _BATTERY, "chooser": _CHOOSER},
    "miui": {
        "notifications": Prompt(
            "com.lbe.security.miui",
            "com.android.packageinstaller.permission.ui.GrantPermissionsActivity",
            "Allow {app} to send you notifications?",
            (
                ("com.lbe.security.miui:id/permission_allow_button", "Allow", "allow"),
                ("com.lbe.security.miui:id/permission_deny_button", "Deny", "deny"),
            ),
            title_id="com.lbe.security.miui:id/permission_message",
        ),
        "autostart": Prompt(
            "com.miui.securitycenter",
            "com.miui.permcenter.autostart.AutoStartManagementActivity",
            "Allow {app} to autostart?",
            (("android:id/button2", "Cancel", "deny"), ("android:id/button1", "Allow", "allow")),
            title_id="android:id/alertTitle",
        ),
    },
    "coloros": {
        "notifications": Prompt(
            _GOOGLE_CONTROLLER,
            GRANT_ACTIVITY,
            "Allow {app} to send you notifications?",
            ((f"{_CONTROLLER_IDS}grant_singleton", "Allow", "allow"),),
            title_id=f"{_CONTROLLER_IDS}permission_message",
        ),
    },
    "originos": {
        "notifications": Prompt(
            _GOOGLE_CONTROLLER,
            GRANT_ACTIVITY,
            "Allow {app} to send you notifications?",
            (
                (f"{_CONTROLLER_IDS}grant_scroll", "Allow", "allow"),
                (f"{_CONTROLLER_IDS}permission_deny_button", "Don't allow", "deny"),
            ),
            title_id=f"{_CONTROLLER_IDS}permission_message",
        ),
    },
    "emui": {
        "chooser": Prompt(
            "com.huawei.android.internal.app",
            "com.huawei.android.internal.app.HwResolverActivity",
            "Open with",
            _CHOOSER.buttons,
            title_id="android:id/alertTitle",
        ),
        "autostart": Prompt(
            "com.huawei.systemmanager",
            "com.huawei.systemmanager.startupmgr.ui.StartupAppControlActivity",
            "Allow {app} to auto-start?",
            (("android:id/button2", "Cancel", "deny"), ("android:id/button1", "Allow", "allow")),
            title_id="android:id/alertTitle",
        ),
    },
    "magicos": {
        "chooser": Prompt(
            "com.hihonor.android.internal.app",
            "com.hihonor.android.internal.app.HwResolverActivity",
            "使用以下方式打开",
            (("android:id/button_once", "仅此一次", "allow"), ("android:id/button_always", "始终", "allow")),
            title_id="android:id/alertTitle",
        ),
    },
}
ANDROID_PROMPTS["oxygenos"] = ANDROID_PROMPTS["coloros"]

# iOS: kind -> (the title, the message, the buttons (label, allow or deny)).
IOS_PROMPTS: dict[str, tuple[str, str, tuple[tuple[str, str], ...]]] = {
    "notifications": (
        "\u201c{app}\u201d Would Like to Send You Notifications",
        "Notifications may include alerts, sounds, and icon badges. These can be configured in Settings.",
        (("Don\u2019t Allow", "deny"), ("Allow", "allow")),
    ),
    "location": (
        "Allow \u201c{app}\u201d to use your location?",
        "Your location is used to show nearby places.",
        (("Allow Once", "allow"), ("Allow While Using App", "allow"), ("Don\u2019t Allow", "deny")),
    ),
    "paste": (
        "\u201c{app}\u201d would like to paste from \u201cNotes\u201d",
        "Do you want to allow this?",
        (("Don\u2019t Allow Paste", "deny"), ("Allow Paste", "allow")),
    ),
    "tracking": (
        "Allow \u201c{app}\u201d to track your activity across other companies\u2019 apps and websites?",
        "Your data will be used to deliver personalized ads to you.",
        (("Ask App Not to Track", "deny"), ("Allow", "allow")),
    ),
}


def android_prompt_of(oem: str, kind: str) -> Prompt | None:
    """How skin ``oem`` draws prompt ``kind`` (AOSP's when the skin draws it the same), or None."""
    return ANDROID_PROMPTS.get(oem, {}).get(kind) or ANDROID_PROMPTS["aosp"].get(kind)


def ios_prompt_of(kind: str) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    return IOS_PROMPTS.get(kind, IOS_PROMPTS["notifications"])


def check_prompt(platform: str, oem: str, kind: str) -> None:
    """``StepArgumentError`` unless the phone (its platform and skin) has prompt ``kind``."""
    if platform == "ios":
        if kind not in IOS_PROMPTS:
            raise StepArgumentError(f"iOS shows no {kind!r} prompt; it shows: {', '.join(IOS_PROMPTS)}")
        return
    if android_prompt_of(oem, kind) is None:
        kinds = sorted({*ANDROID_PROMPTS["aosp"], *ANDROID_PROMPTS.get(oem, {})})
        raise StepArgumentError(f"a {oem} phone shows no {kind!r} prompt; it shows: {', '.join(kinds)}")
