"""Turn a Scene into a SemanticScene with deterministic rules: no I/O, no model call.

The default enricher calls the lock screen or the pulled-down shade by their names (they fill the
screen), a launcher or SpringBoard in front the ``Home screen``; otherwise it
names the page after the Android activity when the Scene knows it,
otherwise after the screen's title (the text of a toolbar / action bar on Android, the
navigation bar on iOS). When neither is there it returns None and the world model keeps the
page it had.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from ..core.apps import cover_name, is_home_screen
from ..core.config import parse_bool
from ..core.lazy import Query, candidates
from ..core.models import Scene, UIElement
from .models import SemanticScene
from .screen import cover_of

__all__ = [
    "ENV_SEMANTIC",
    "HOME_PAGE",
    "DefaultEnricher",
    "Enricher",
    "enrich_scene",
    "semantic_enabled",
    "title_of",
]

log = logging.getLogger(__name__)

ENV_SEMANTIC = "AMC_SEMANTIC"
HOME_PAGE = "Home screen"

_ANDROID_TITLE_TYPES = ("Toolbar", "ActionBar", "ActionBarContainer")
_ANDROID_TITLE_IDS = ("toolbar", "action_bar", "action_bar_title", "collapsing_toolbar", "title_bar")
_IOS_NAVBAR = "XCUIElementTypeNavigationBar"
# What a title bar's element must contain (the exact rules are the functions below).
_TITLE_QUERY: dict[str, Query] = {
    "ios": ((("type", "=", _IOS_NAVBAR),),),
    "android": (
        tuple(("type", "~", t) for t in _ANDROID_TITLE_TYPES)
        + tuple(("identifier", "~", i) for i in _ANDROID_TITLE_IDS),
    ),
}


@runtime_checkable
class Enricher(Protocol):
    """Anything that can name the page a Scene shows (None when it cannot tell)."""

    def enrich(self, scene: Scene) -> SemanticScene | None: ...


def semantic_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """``AMC_SEMANTIC`` on/off (default on); a malformed value is a ``ConfigError``."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_SEMANTIC)
    if raw is None or raw.strip() == "":
        return True
    return parse_bool(ENV_SEMANTIC, raw)


_HAS_TEXT: Query = ((("text", "~", ""),),)


def _first_text(el: UIElement) -> str | None:
    for node in candidates(el, _HAS_TEXT):
        if node is not el and node.visible and node.text and node.text.strip():
            return node.text.strip()
    return None


_ANDROID_ALERT_TEXT_IDS = ("alertTitle", "permission_message")  # the first one found wins
_ALERT_TEXT_QUERY: Query = (tuple(("identifier", "~", i) for i in _ANDROID_ALERT_TEXT_IDS), *_HAS_TEXT)


def _said(value: str | None) -> str | None:
    """``value`` without surrounding blanks; None when nothing else is left (a name is never blank)."""
    return (value or "").strip() or None


def _alert_name(el: UIElement, platform: str) -> str:
    """What an alert says about itself: its label or name (iOS); its title or the permission
    prompt's question, else its first text (Android, where resource ids are not words). Blank
    values are passed over: a dialog whose title is only spaces is named by what it says next."""
    if platform == "ios":
        named = _said(el.label) or _said(el.identifier)
        if named:
            return named
    found: dict[str, str] = {}  # the first text of each id, in one walk
    for node in candidates(el, _ALERT_TEXT_QUERY):
        local = (node.identifier or "").rsplit("/", 1)[-1]
        text = _said(node.text) if local in _ANDROID_ALERT_TEXT_IDS and node.visible else None
        if text and local not in found:
            found[local] = text
            if local == _ANDROID_ALERT_TEXT_IDS[0]:
                break  # the title wins: no need to look further
    for wanted in _ANDROID_ALERT_TEXT_IDS:
        if wanted in found:
            return found[wanted]
    return _said(el.text) or _first_text(el) or _said(el.label) or _said(el.type) or "alert"


def _is_android_title_bar(el: UIElement) -> bool:
    short = el.type.rsplit(".", 1)[-1]
    if short in _ANDROID_TITLE_TYPES:
        return True
    ident = el.identifier or ""
    return ident.rsplit("/", 1)[-1] in _ANDROID_TITLE_IDS


def title_of(scene: Scene) -> str | None:
    """The screen title: navigation bar (iOS) or toolbar / action bar (Android) text."""
    for el in candidates(scene.root, _TITLE_QUERY[scene.platform]):
        if not el.visible:
            continue
        if scene.platform == "ios" and el.type == _IOS_NAVBAR:
            name = (el.identifier or el.label or "").strip()
            return name or _first_text(el) or None
        if scene.platform == "android" and _is_android_title_bar(el):
            text = (el.text or "").strip() or _first_text(el)
            if text:
                return text
    return None


def _short_activity(activity: str, app: str | None) -> str:
    """``com.android.settings/.Settings$Network`` -> ``Settings$Network`` (package prefix dropped)."""
    name = activity.split("/", 1)[-1]
    if app and name.startswith(app + "."):
        name = name[len(app) :]
    return name.lstrip(".") or activity


class DefaultEnricher:
    """Home screen for a launcher; else the Android activity when known, else the screen title,
    else (a dialog over a screen with no title) the dialog; an alert found is always reported."""

    def enrich(self, scene: Scene) -> SemanticScene | None:
        title = title_of(scene)
        cover = cover_of(scene)
        keyboard, alert_el = cover.keyboard, cover.alert
        named = cover_name(cover.kind, scene.platform)  # the lock screen and the shade have no title
        alert = named or (_alert_name(alert_el, scene.platform) if alert_el is not None else None)
        if named:
            page, source = named, "cover"  # the lock screen or the shade fills the screen
        elif is_home_screen(scene.foreground_app):
            page, source = HOME_PAGE, "home"
        elif scene.activity:
            page, source = _short_activity(scene.activity, scene.foreground_app), "activity"
        elif title:
            page, source = title, "title"
        elif alert:
            page, source = alert, "alert"  # only the dialog on top can be named: it is the page
        else:
            return None
        return SemanticScene(
            page=page,
            title=title,
            app=scene.foreground_app,
            activity=scene.activity,
            source=source,
            keyboard_visible=keyboard,
            alert=alert,
            cover=cover.kind if alert is not None else None,
        )


_DEFAULT = DefaultEnricher()


def enrich_scene(scene: Scene, enricher: Enricher | None = None) -> SemanticScene | None:
    """Enrich with ``enricher`` (the default one when None); errors are logged, never raised."""
    try:
        return (enricher or _DEFAULT).enrich(scene)
    except Exception:
        log.exception("semantic enrichment failed; continuing without a page")
        return None
