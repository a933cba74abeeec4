"""What covers the screen: the on-screen keyboard and alerts or dialogs over the app.

Platform heuristics over a Scene's tree, used by the enricher (``SemanticScene.keyboard_visible``
and ``.alert``, both from one :func:`cover_of`) and by whoever needs the element itself
(``alert_of`` returns it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.apps import ANDROID_SYSTEMUI, PERMISSION_DIALOG_PACKAGES, is_ime_package
from ..core.lazy import Query, candidates, first_attribute
from ..core.models import Scene, UIElement

__all__ = ["Cover", "alert_of", "cover_of", "keyboard_visible"]

_IOS_KEYBOARD_TYPES = frozenset({"XCUIElementTypeKeyboard"})
_IOS_ALERT_TYPES = frozenset({"XCUIElementTypeAlert", "XCUIElementTypeSheet"})
# Resource-id local names of Android's AlertDialog layout and the runtime-permission dialog.
_ANDROID_DIALOG_IDS = frozenset({"alertTitle", "parentPanel", "grant_dialog"})
_ANDROID_DIALOG_PACKAGES = ("permissioncontroller", "packageinstaller")
# The runtime-permission prompt's ids keep the platform's namespace even in Google's package
# (``com.android.permissioncontroller:id/permission_allow_button`` in package
# ``com.google.android.permissioncontroller``: tests/fixtures/real/android, uiautomator dumps).
_PERMISSION_ID_PREFIXES = tuple(f"{package}:id/" for package in PERMISSION_DIALOG_PACKAGES)
# What the elements the rules below look for must contain (see core.lazy).
_IOS_COVER_QUERY: Query = (tuple(("type", "=", t) for t in sorted(_IOS_KEYBOARD_TYPES | _IOS_ALERT_TYPES)),)
_ANDROID_DIALOG_QUERY: Query = (
    tuple(("identifier", "~", i) for i in (*sorted(_ANDROID_DIALOG_IDS), *_PERMISSION_ID_PREFIXES)),
)


@dataclass(frozen=True, slots=True)
class Cover:
    """What covers the app: whether a keyboard is up, and the alert or dialog element (or None)."""

    keyboard: bool
    alert: UIElement | None


def _android_windows(root: UIElement) -> list[tuple[UIElement, str]]:
    """The top-level windows with the package each belongs to: its own, else its first
    descendant's (read from the document: no element is built for it)."""
    windows = root.children if root.type == "hierarchy" else (root,)
    return [(w, first_attribute(w, "package") or "") for w in windows]


def _android_keyboard(windows: list[tuple[UIElement, str]]) -> bool:
    return any(w.visible and not w.bounds.is_empty() and is_ime_package(pkg) for w, pkg in windows)


def keyboard_visible(scene: Scene) -> bool:
    """True when an on-screen keyboard is shown (so part of the screen is covered).

    iOS: a visible ``XCUIElementTypeKeyboard``. Android: a visible top-level window of an
    input-method package (see :func:`amc.core.apps.is_ime_package`).
    """
    if scene.platform == "ios":
        return _ios_cover(scene.root).keyboard
    return _android_keyboard(_android_windows(scene.root))


def _ios_cover(root: UIElement) -> Cover:
    """A visible, non-empty keyboard and the first visible alert or sheet, in one walk."""
    keyboard, alert = False, None
    for el in candidates(root, _IOS_COVER_QUERY):
        if not el.visible:
            continue
        if el.type in _IOS_KEYBOARD_TYPES:
            keyboard = keyboard or not el.bounds.is_empty()
        elif alert is None and el.type in _IOS_ALERT_TYPES:
            alert = el
        if keyboard and alert is not None:
            break
    return Cover(keyboard, alert)


def _android_alert(all_windows: list[tuple[UIElement, str]]) -> UIElement | None:
    windows = [(w, pkg) for w, pkg in all_windows if w.visible and not is_ime_package(pkg)]
    apps = [w for w, pkg in windows if pkg != ANDROID_SYSTEMUI]
    largest = max(apps, key=lambda w: w.bounds.area, default=None)
    for w, pkg in windows:
        if any(marker in pkg for marker in _ANDROID_DIALOG_PACKAGES):
            return w
        floating = w.bounds.left > 0 and w.bounds.top > 0 and not w.bounds.is_empty()
        if floating and pkg != ANDROID_SYSTEMUI and (w is not largest or len(apps) == 1):
            return w
    for w, _ in windows:
        for el in candidates(w, _ANDROID_DIALOG_QUERY):
            ident = el.identifier
            if (
                ident
                and el.visible
                and (
                    ident.rsplit("/", 1)[-1] in _ANDROID_DIALOG_IDS
                    or ident.startswith(_PERMISSION_ID_PREFIXES)
                )
            ):
                return w
    return None


def alert_of(scene: Scene) -> UIElement | None:
    """The alert or dialog covering the app, or None.

    iOS: the first visible ``XCUIElementTypeAlert`` / ``XCUIElementTypeSheet`` (SpringBoard's
    permission alerts are one, in SpringBoard's own tree while they are up: appium/appium#12957,
    appium/WebDriverAgent#889). Android: the top-level window that is a permission / installer
    dialog (by its package, or by the permission controller's ids, which dumps without a package
    attribute still carry), floats (touches neither the left nor the top edge) above the app's
    main window, or holds an AlertDialog panel (``…:id/alertTitle``, ``…:id/parentPanel``).
    """
    if scene.platform == "ios":
        return _ios_cover(scene.root).alert
    return _android_alert(_android_windows(scene.root))


def cover_of(scene: Scene) -> Cover:
    """:func:`keyboard_visible` and :func:`alert_of` together, the windows read once."""
    if scene.platform == "ios":
        return _ios_cover(scene.root)
    windows = _android_windows(scene.root)
    return Cover(_android_keyboard(windows), _android_alert(windows))
