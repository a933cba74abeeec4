"""What covers the screen: the on-screen keyboard and what is over the app (an alert or dialog,
the permission prompt, a system dialog, the lock screen, the pulled-down notification shade).

Platform heuristics over a Scene's tree, used by the enricher (``SemanticScene.keyboard_visible``,
``.alert`` and ``.cover``, all from one :func:`cover_of`) and by whoever needs the element itself
(``alert_of`` returns it). What the backend itself reported (``Scene.cover``: WebDriverAgent's
``/wda/locked``) counts as well. The kinds are :data:`amc.core.apps.COVER_KINDS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.apps import (
    ANDROID_KEYGUARD_ID_PREFIX,
    ANDROID_SHADE_IDS,
    ANDROID_SYSTEMUI,
    SYSTEM_DIALOG_KINDS,
    is_ime_package,
)
from ..core.lazy import Query, candidates, first_attribute
from ..core.models import Scene, UIElement
from .cover_kinds import android_kind, ios_alert_kind, says_not_responding, springboard_prompt

__all__ = ["Cover", "alert_of", "cover_of", "keyboard_visible"]

_IOS_KEYBOARD_TYPES = frozenset({"XCUIElementTypeKeyboard"})
_IOS_ALERT_TYPES = frozenset({"XCUIElementTypeAlert", "XCUIElementTypeSheet"})
# Resource-id local names of Android's AlertDialog layout (an app's own dialog).
_ANDROID_DIALOG_IDS = frozenset({"alertTitle", "parentPanel"})
# What the elements the rules below look for must contain (see core.lazy).
_IOS_COVER_QUERY: Query = (tuple(("type", "=", t) for t in sorted(_IOS_KEYBOARD_TYPES | _IOS_ALERT_TYPES)),)
_ANDROID_DIALOG_QUERY: Query = (tuple(("identifier", "~", f":id/{i}") for i in sorted(_ANDROID_DIALOG_IDS)),)
# The system's own covers (core.apps): the lock screen's and the shade's SystemUI views; the
# package the system dialogs are drawn in (real dumps: tests/fixtures/real/android/*isnt-responding*).
# Which kind a system or OEM window is, is semantic.cover_kinds'.
_SYSTEM_DIALOG_PACKAGE = "android"
_ANDROID_SYSTEM_QUERY: Query = (
    tuple(("identifier", "~", f":id/{i}") for i in (ANDROID_KEYGUARD_ID_PREFIX, *sorted(ANDROID_SHADE_IDS))),
)
_ALERT_TITLE_QUERY: Query = ((("identifier", "~", ":id/alertTitle"),),)


@dataclass(frozen=True, slots=True)
class Cover:
    """What covers the app: whether a keyboard is up, the element over the app (the alert, the
    dialog's or the cover's window; None) and its ``kind`` (:data:`amc.core.apps.COVER_KINDS`)."""

    keyboard: bool
    alert: UIElement | None
    kind: str | None = None


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
    if alert is None:
        alert = springboard_prompt(root)
    return Cover(keyboard, alert, ios_alert_kind(alert) if alert is not None else None)


def _screen_cover(shown: list[tuple[UIElement, str]]) -> tuple[str, UIElement] | None:
    """SystemUI's own cover among the visible windows: the lock screen (SystemUI's ``keyguard_*``
    views, also in a vendor's namespace inside SystemUI's window) before the expanded shade
    (SystemUI's panel or notification list)."""
    found: dict[str, UIElement] = {}
    for w, pkg in shown:
        if pkg not in ("", ANDROID_SYSTEMUI):
            continue
        for el in candidates(w, _ANDROID_SYSTEM_QUERY):
            namespace, sep, local = (el.identifier or "").partition(":id/")
            if not sep or not el.visible:
                continue
            if local.startswith(ANDROID_KEYGUARD_ID_PREFIX) and ANDROID_SYSTEMUI in (pkg, namespace):
                found.setdefault("keyguard", w)
            elif local in ANDROID_SHADE_IDS and namespace == ANDROID_SYSTEMUI:
                found.setdefault("shade", w)
    for kind in ("keyguard", "shade"):
        if kind in found:
            return kind, found[kind]
    return None


def _has_title(w: UIElement) -> bool:
    return any(
        (el.identifier or "").endswith(":id/alertTitle") and el.visible
        for el in candidates(w, _ALERT_TITLE_QUERY)
    )


def _catalogued(shown: list[tuple[UIElement, str]]) -> tuple[str, UIElement] | None:
    """The first window the catalogue (:mod:`semantic.cover_kinds`) names, a system dialog (ANR,
    crash) before SystemUI's covers and those before the rest. The window returned for a system
    dialog is the one holding its title (a dump may keep the title apart from the buttons)."""
    kinds = [(kind, w, pkg) for w, pkg in shown if (kind := android_kind(w, pkg)) is not None]
    dialogs = [(kind, w) for kind, w, _ in kinds if kind in SYSTEM_DIALOG_KINDS]
    if dialogs:
        # A dump may keep the title and each button in windows of their own: one dialog.
        kind, w = dialogs[0]
        if not _has_title(w):
            titled = (t for t, pkg in shown if pkg in ("", _SYSTEM_DIALOG_PACKAGE) and _has_title(t))
            w = next(titled, w)
        anr = any(k == "anr" for k, _ in dialogs) or says_not_responding(w)
        return "anr" if anr else "crash", w
    screen = _screen_cover(shown)
    if screen is not None:
        return screen
    return next(((kind, w) for kind, w, _ in kinds), None)


def _android_cover(root: UIElement) -> Cover:
    """The keyboard and the cover from the top-level windows, read once each. A window belongs
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
    system = _catalogued(shown)
    if system is not None:
        return Cover(keyboard, system[1], system[0])
    largest = apps[0] if len(apps) == 1 else max(apps, key=lambda w: w.bounds.area, default=None)
    for w, pkg in shown:
        b = w.bounds
        floating = b.left > 0 and b.top > 0 and not b.is_empty()
        if floating and pkg != ANDROID_SYSTEMUI and (w is not largest or len(apps) == 1):
            return Cover(keyboard, w, "alert")
    for w, _ in shown:
        for el in candidates(w, _ANDROID_DIALOG_QUERY):
            ident = el.identifier
            if not ident or not el.visible:
                continue
            if ident.rsplit("/", 1)[-1] in _ANDROID_DIALOG_IDS:
                return Cover(keyboard, w, "alert")
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
    """:func:`keyboard_visible` and :func:`alert_of` together, in one pass, with the cover's kind.
    A cover the backend reported (``Scene.cover``) is the cover unless the tree shows a system
    dialog or alert over it; its element is then the screen's root."""
    found = _ios_cover(scene.root) if scene.platform == "ios" else _android_cover(scene.root)
    if scene.cover is not None and found.kind not in (None, "keyguard", "shade"):
        return found
    if scene.cover is not None:
        return Cover(found.keyboard, found.alert or scene.root, scene.cover)
    return found
