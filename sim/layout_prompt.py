"""The system's runtime-permission prompt over an app, as each platform draws it.

Android: a window of Google's permission controller above the app's window (the app's window stays
in the dump, so the Scene's app is still the app). Modelled on real outputs in
``tests/fixtures/real/android``: the window's frame ``[28,746][1052,1718]`` on a 1080x2400 screen
(``fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt``), the buttons'
classes, package, resource ids (``com.android.permissioncontroller:id/permission_allow_button`` in
package ``com.google.android.permissioncontroller``), texts and bounds
(``fixture-uiautomator-dump-permission-allow-deny-a13plus.xml``,
``uiautomator-dump-permission-while-using-the-app-node.xml``). The message's id and wording
(``permission_message``, "Allow ⁨Notes⁩ to send you notifications?" with Unicode isolates) follow
the project's own fixture ``tests/fixtures/hierarchy/u2_notes_permission_dialog.xml``; no public
full dump of this prompt was collected.

iOS: SpringBoard's alert. While it is up WebDriverAgent reports SpringBoard as the active app
(its session has no app under test), so ``/source`` is SpringBoard's tree (``name=" "``) holding an
``XCUIElementTypeAlert`` named by its title; texts and geometry from appium/WebDriverAgent#889
(``wda-8.5.2-springboard-source-notification-alert-*.txt``: a 270-point-wide box at x=60, the
title "“App” Would Like to Send You Notifications" and Apple's message), the alert type and naming
from appium/appium#12957, the button row from appium/appium#9544 ("Don\u2019t Allow").
"""

from __future__ import annotations

from ..core.apps import SPRINGBOARD
from ..core.models import Bounds
from .nodes import SimNode
from .prompts import Prompt, ios_prompt_of

__all__ = ["ANDROID_PERMISSION_CONTROLLER", "android_prompt", "ios_prompt_screen"]

ANDROID_PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
_ID = "com.android.permissioncontroller:id/"


def _scaled(width: int, height: int, left: int, top: int, right: int, bottom: int) -> Bounds:
    """Bounds measured on a 1080x2400 screen, moved to this screen's size."""
    return Bounds(left * width // 1080, top * height // 2400, right * width // 1080, bottom * height // 2400)


def android_prompt(app_name: str, prompt: Prompt, window: Bounds) -> SimNode:
    """The window of ``prompt`` (:mod:`sim.prompts`) asked by ``app_name``, at the permission
    prompt's frame: the title, the message when it has one, then its buttons one under the other."""
    w, h = window.width, window.height
    pkg = prompt.package
    frame = _scaled(w, h, 28, 746, 1052, 1718)
    children: list[SimNode] = [
        SimNode(
            "android.widget.TextView",
            _scaled(w, h, 157, 800 if prompt.message else 1010, 922, 960 if prompt.message else 1250),
            text=prompt.title.format(app=app_name),
            ident=prompt.title_id,
            package=pkg,
        )
    ]
    if prompt.message:
        children.append(
            SimNode(
                "android.widget.TextView",
                _scaled(w, h, 157, 1010, 922, 1250),
                text=prompt.message.format(app=app_name),
                ident=prompt.message_id,
                package=pkg,
            )
        )
    for i, (ident, label, answer) in enumerate(prompt.buttons):
        top = 1341 + 182 * i
        children.append(
            SimNode(
                "android.widget.Button",
                _scaled(w, h, 157, top, 922, top + 156),
                text=label,
                ident=ident,
                package=pkg,
                clickable=True,
                focusable=True,
                ref=f"prompt:{answer}",
            )
        )
    grant = _ID + "grant_dialog" if prompt.title_id and prompt.title_id.startswith(_ID) else None
    dialog = SimNode("android.widget.LinearLayout", frame, ident=grant, package=pkg, children=tuple(children))
    return SimNode("android.widget.FrameLayout", frame, package=pkg, children=(dialog,))


def _ios_text(text: str, bounds: Bounds) -> SimNode:
    return SimNode("XCUIElementTypeStaticText", bounds, label=text, ident=text, value=text)


def _ios_button(label: str, bounds: Bounds, ref: str) -> SimNode:
    return SimNode("XCUIElementTypeButton", bounds, label=label, ident=label, clickable=True, ref=ref)


def ios_prompt_screen(app_name: str, permission: str, window: Bounds) -> SimNode:
    """SpringBoard's tree while its alert for ``permission`` (:data:`sim.prompts.IOS_PROMPTS`)
    asked by ``app_name`` is up."""
    title_text, detail, labels = ios_prompt_of(permission)
    title = title_text.format(app=app_name)
    left = (window.width - 270) // 2
    top = window.height // 2 - 83
    texts = SimNode(
        "XCUIElementTypeOther",
        Bounds(left, top, left + 270, top + 135),
        children=(
            _ios_text(title, Bounds(left + 16, top + 20, left + 254, top + 63)),
            _ios_text(detail, Bounds(left + 16, top + 66, left + 254, top + 114)),
        ),
    )
    row = top + 136
    width = 270 // len(labels)
    buttons = SimNode(
        "XCUIElementTypeOther",
        Bounds(left, row, left + 270, row + 44),
        children=tuple(
            _ios_button(
                label, Bounds(left + width * i, row, left + width * (i + 1), row + 44), f"prompt:{answer}"
            )
            for i, (label, answer) in enumerate(labels)
        ),
    )
    alert = SimNode(
        "XCUIElementTypeAlert",
        Bounds(left, top, left + 270, row + 44),
        label=title,
        ident=title,
        children=(
            SimNode(
                "XCUIElementTypeOther", Bounds(left, top, left + 270, row + 44), children=(texts, buttons)
            ),
        ),
    )
    return SimNode(
        "XCUIElementTypeApplication",
        window,
        label=" ",
        ident=" ",
        package=SPRINGBOARD,
        children=(SimNode("XCUIElementTypeWindow", window, children=(alert,)),),
    )
