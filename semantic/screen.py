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


def keyboard_visible(scene: Scene) -> bool:
    """True when an on-screen keyboard is shown (so part of the screen is covered).

    iOS: a visible ``XCUIElementTypeKeyboard``. Android: a visible top-level window of an
    input-method package (see :func:`amc.core.apps.is_ime_package`).
    """
    return cover_of(scene).keyboard


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


def _is_dialog_package(package: str) -> bool:
    """A runtime-permission or package-installer package, Google's or the platform's."""
    return "permissioncontroller" in package or "packageinstaller" in package


def _android_cover(root: UIElement) -> Cover:
    """The keyboard and the alert from the top-level windows, read once each. A window belongs
    to its own package, else its first descendant's (read from the document: no element is
    built for it); invisible windows count for neither."""
    keyboard = False
    shown: list[tuple[UIElement, str]] = []  # the visible windows but the keyboard's
    apps: list[UIElement] = []  # those of them that are not SystemUI's
    for w in root.children if root.type == "hierarchy" else (root,):
        pkg = first_attribute(w, "package") or ""
        if not w.visible:
            continue
        if is_ime_package(pkg):
            keyboard = keyboard or not w.bounds.is_empty()
            continue
        shown.append((w, pkg))
        if pkg != ANDROID_SYSTEMUI:
            apps.append(w)
    largest = apps[0] if len(apps) == 1 else max(apps, key=lambda w: w.bounds.area, default=None)
    for w, pkg in shown:
        if _is_dialog_package(pkg):
            return Cover(keyboard, w)
        b = w.bounds
        floating = b.left > 0 and b.top > 0 and not b.is_empty()
        if floating and pkg != ANDROID_SYSTEMUI and (w is not largest or len(apps) == 1):
            return Cover(keyboard, w)
    for w, _ in shown:
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
                return Cover(keyboard, w)
    return Cover(keyboard, None)


def alert_of(scene: Scene) -> UIElement | None:
    """The alert or dialog covering the app, or None.

    iOS: the first visible ``XCUIElementTypeAlert`` / ``XCUIElementTypeSheet`` (SpringBoard's
    permission alerts are one, in SpringBoard's own tree while they are up: appium/appium#12957,
    appium/WebDriverAgent#889). Android: the top-level window that is a permission / installer
    dialog (by its package, or by the permission controller's ids, which dumps without a package
    attribute still carry), floats (touches neither the left nor the top edge) above the app's
    main window, or holds an AlertDialog panel (``…:id/alertTitle``, ``…:id/parentPanel``).
    """
    return cover_of(scene).alert


def cover_of(scene: Scene) -> Cover:
    """:func:`keyboard_visible` and :func:`alert_of` together, in one pass."""
    return _ios_cover(scene.root) if scene.platform == "ios" else _android_cover(scene.root)
