"""A driver that plays one of Maestro's scripted screen layouts and records what reached it.

Maestro's integration tests (``maestro-test/src/test/kotlin/maestro/test/IntegrationTest.kt``) run
each flow against ``FakeDriver`` (``maestro-test/src/main/kotlin/maestro/test/drivers/FakeDriver.kt``):
a tree of ``FakeLayoutElement`` s (text, resource id, bounds, clickable, enabled, selected,
checked, focused), a set of installed apps, and a list of events (``Tap``, ``InputText``,
``LaunchApp`` …) that each test asserts. :class:`LayoutDriver` is the same thing behind this
harness's :class:`~amc.drivers.base.Driver` protocol, built from the data in
``tests/fixtures/maestro/integration/cases.yaml`` (our own transcription of those facts, not their
code). What it copies from ``FakeDriver`` and ``FakeLayoutElement``, by behaviour:

- the screen is 540 x 960 (``deviceInfo()``: ``widthGrid = 540, heightGrid = 960``, the units
  its points and bounds are in); its platform is iOS, as ``deviceInfo()`` says;
- a tap goes to the first element, children before their parent, whose bounds hold the point
  (``dispatchClick``: ``x in left..right && y in top..bottom``), and runs what that element does
  when tapped (here a list of named effects, ``on_tap``; in Kotlin a lambda);
- launching an app that is not installed fails (``UnableToLaunchApp``); clearing one is skipped
  (``clearAppState``: "App ... not installed. Skipping");
- typing appends to the current text, which erasing shortens (``currentText``);
- a directional swipe on an element moves every element 300 units against the swipe
  (``swipe(elementPoint, direction, durationMs)``).

Each recorded event is a :class:`Event`: Maestro's event name and its arguments, in Maestro's
terms, so a test compares them with the case's data directly. How each of this harness's driver
calls becomes one of Maestro's events is the table in :meth:`LayoutDriver._event` and its callers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from amc.core.errors import AppNotInstalled, DeviceError, StepArgumentError
from amc.core.models import Bounds, Platform, Scene, UIElement

__all__ = ["SCREEN", "Event", "LayoutDriver", "Node", "build_layout"]

SCREEN = (540, 960)  # FakeDriver.deviceInfo(): widthGrid, heightGrid

# This harness's key names as Maestro's KeyCode names (maestro-client/src/main/java/maestro/KeyCode.kt).
_KEYS = {
    "enter": "ENTER",
    "back": "BACK",
    "home": "HOME",
    "volume_up": "VOLUME_UP",
    "volume_down": "VOLUME_DOWN",
    "power": "POWER",
    "menu": "MENU",
    "recent": "REMOTE_RECENTS",  # hypothetical name: no Maestro case presses it
}


@dataclass(frozen=True)
class Event:
    """One event as Maestro's ``FakeDriver.Event`` names it: ``Tap`` with ``(x, y)`` …"""

    name: str
    args: tuple[Any, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}{list(self.args) if self.args else ''}"


@dataclass
class Node:
    """One ``FakeLayoutElement``: mutable, as tapping it may change it or another one."""

    key: str | None = None
    id: str | None = None
    text: str | None = None
    bounds: tuple[int, int, int, int] | None = None
    clickable: bool = False
    enabled: bool | None = True
    selected: bool | None = False
    checked: bool | None = False
    focused: bool | None = False
    on_tap: tuple[Mapping[str, Any], ...] = ()
    changing_text: str | None = None  # a text that differs at every look (``mutatingText``)
    children: list[Node] = field(default_factory=list)

    def walk(self) -> list[Node]:
        out = [self]
        for child in self.children:
            out += child.walk()
        return out


_FIELDS = ("key", "id", "text", "clickable", "enabled", "selected", "checked", "focused", "changing_text")


def build_layout(elements: Sequence[Mapping[str, Any]]) -> Node:
    """The root (no bounds, as ``FakeLayoutElement()`` is) holding ``elements`` from a case's data."""

    def one(data: Mapping[str, Any]) -> Node:
        unknown = set(data) - {*_FIELDS, "bounds", "on_tap", "children"}
        if unknown:
            raise ValueError(f"layout element: unknown keys {sorted(unknown)}")
        node = Node(**{k: data[k] for k in _FIELDS if k in data})
        if "bounds" in data:
            left, top, right, bottom = (int(v) for v in data["bounds"])
            node.bounds = (left, top, right, bottom)
        node.on_tap = tuple(data.get("on_tap", ()))
        node.children = [one(child) for child in data.get("children", ())]
        return node

    return Node(children=[one(e) for e in elements])


class LayoutDriver:
    """A :class:`~amc.drivers.base.Driver` playing ``layout``, recording :class:`Event` s."""

    backend = "maestro-fake"  # no backend of amc.actions.BACKENDS: only what no backend can do is refused
    animates = False
    # Maestro runs its iOS flows on Simulators, where apps, keychain and permissions can be reset
    # (amc.drivers.kinds): its FakeDriver does each of them
    kind = "simulator"

    def __init__(self, layout: Node, installed: Sequence[str] = (), platform: Platform = "ios") -> None:
        self.layout = layout
        self.installed = set(installed)
        self._platform: Platform = platform
        self.events: list[Event] = []
        self.typed = ""
        self.foreground: str | None = None
        self.looks = 0
        self._taps = 0

    @property
    def device_id(self) -> str:
        return "maestro-fake"

    @property
    def platform(self) -> Platform:
        return self._platform

    def _event(self, name: str, *args: Any) -> None:
        self.events.append(Event(name, args))

    # -- the screen ---------------------------------------------------------------------------

    def observe(self) -> Scene:
        self.looks += 1

        def element(node: Node) -> UIElement:
            text = f"{node.changing_text} {self.looks}" if node.changing_text is not None else node.text
            box = Bounds(*node.bounds) if node.bounds is not None else Bounds(0, 0, 0, 0)
            return UIElement(
                "XCUIElementTypeOther" if self._platform == "ios" else "android.view.View",
                text=text,
                identifier=node.id,
                bounds=box,
                enabled=node.enabled is not False,
                clickable=node.clickable,
                selected=node.selected,
                checked=node.checked,
                focused=node.focused,
                children=tuple(element(child) for child in node.children),
            )

        root = element(self.layout)
        root = UIElement(root.type, bounds=Bounds(0, 0, *SCREEN), children=root.children)
        return Scene(
            self.device_id,
            self._platform,
            root,
            foreground_app=self.foreground,
            window_size=SCREEN,
            backend=self.backend,
        )

    def screenshot(self) -> bytes:
        self._event("TakeScreenshot")
        return b"\x89PNG\r\n\x1a\n" + b"\0" * 8  # what a test's picture holds does not matter here

    # -- apps ---------------------------------------------------------------------------------

    def launch_app(self, app_id: str, **options: Any) -> None:
        """``LaunchApp``; with the launch arguments when a caller passes them (``arguments``, a
        name the branch adding them may choose otherwise: the case then stays failing)."""
        if app_id not in self.installed:
            raise AppNotInstalled(f"App {app_id} is not installed")
        arguments = options.get("arguments")
        self._event("LaunchApp", *((app_id, dict(arguments)) if arguments else (app_id,)))
        self.foreground = app_id

    def launch_with(self, app_id: str, arguments: Mapping[str, object]) -> None:
        """``LaunchApp`` with its launch arguments (Maestro's event carries them)."""
        self.launch_app(app_id, arguments=arguments)

    def terminate_app(self, app_id: str) -> None:
        self._event("StopApp", app_id)
        if self.foreground == app_id:
            self.foreground = None

    def current_app(self) -> str | None:
        return self.foreground

    def clear_state(self, app_id: str) -> None:
        if app_id in self.installed:
            self._event("ClearState", app_id)

    def open_link(self, url: str, app_id: str | None = None) -> None:
        self._event("OpenLink", url)

    # -- touches and keys ---------------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        self._dispatch(self.layout, x, y)
        self._event("Tap", x, y)

    def _dispatch(self, node: Node, x: int, y: int) -> bool:
        for child in node.children:
            if self._dispatch(child, x, y):
                return True
        if node.bounds is None:
            return False
        left, top, right, bottom = node.bounds
        if left <= x <= right and top <= y <= bottom:
            self._taps += 1
            for effect in node.on_tap:
                self._apply(node, effect)
            return True
        return False

    def _apply(self, tapped: Node, effect: Mapping[str, Any]) -> None:
        """One effect of a tap: ``set`` (fields of an element, by its key; ``self`` for the tapped
        one), ``append`` (text to an element's text), ``count`` (an element's text becomes
        its prefix and the number of taps so far), ``flip`` (true becomes false and back),
        ``fail_once`` (the first tap raises, as Case 119's ``RuntimeException``)."""
        kind, value = next(iter(effect.items()))
        if kind == "fail_once":
            if self._taps == 1:
                raise DeviceError("Exception for the first time")
            return
        target = tapped if value.get("of", "self") == "self" else self._by_key(value["of"])
        if kind == "set":
            for name, new in value.items():
                if name != "of":
                    setattr(target, name, new)
        elif kind == "append":
            target.text = (target.text or "") + value["text"]
        elif kind == "count":
            target.text = f"{value.get('prefix', '')}{self._taps}"
        elif kind == "flip":
            for name in value["fields"]:
                current = getattr(target, name)
                setattr(target, name, None if current is None else not current)
        else:
            raise ValueError(f"unknown tap effect {kind!r}")

    def _by_key(self, key: str) -> Node:
        for node in self.layout.walk():
            if node.key == key:
                return node
        raise ValueError(f"no layout element has key {key!r}")

    # The device-state calls (Maestro's FakeDriver records each as an event of its own).

    def kill_app(self, app_id: str) -> None:
        self._event("KillApp", app_id)

    def clear_keychain(self) -> None:
        self._event("ClearKeychain")

    def set_permissions(self, app_id: str, permissions: Mapping[str, str]) -> None:
        self._event("SetPermissions", app_id, dict(permissions))

    def set_orientation(self, orientation: str) -> None:
        self._event("SetOrientation", orientation)

    def set_airplane_mode(self, enabled: bool) -> None:
        self._airplane = enabled
        self._event("SetAirplaneMode", enabled)

    def airplane_mode(self) -> bool:
        return getattr(self, "_airplane", False)

    def set_dark_mode(self, enabled: bool) -> None:
        self._dark = enabled
        self._event("SetDarkMode", enabled)

    def dark_mode(self) -> bool:
        return getattr(self, "_dark", False)

    def start_recording(self) -> None:
        self._event("StartRecording")

    def stop_recording(self) -> bytes:
        self._event("StopRecording")
        return self.screenshot()

    def add_media(self, name: str, data: bytes) -> None:
        self._event("AddMedia")  # Maestro's event carries no name either

    def long_press(self, x: int, y: int, duration: float = 1.0) -> None:
        self._event("LongPress", x, y)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration: float = 0.3) -> None:
        """``Swipe``. One centred on the screen's centre (what this harness's ``scrollUntilVisible``
        sends, Maestro's ``swipe(elementPoint = centre, direction)``) moves the layout 300 against
        it, as FakeDriver moves it for a swipe on an element; others leave it, as FakeDriver's
        ``swipe(start, end)``, ``swipe(direction)`` and ``scrollVertical()`` do."""
        dx, dy = x2 - x1, y2 - y1
        if ((x1 + x2) // 2, (y1 + y2) // 2) != (SCREEN[0] // 2, SCREEN[1] // 2):
            shift = (0, 0)
        elif abs(dx) >= abs(dy) and dx:
            shift = (-300 if dx > 0 else 300, 0)
        elif dy:
            shift = (0, -300 if dy < 0 else 300)
        else:
            shift = (0, 0)
        for node in self.layout.walk():
            if node.bounds is not None:
                left, top, right, bottom = node.bounds
                node.bounds = (left + shift[0], top + shift[1], right + shift[0], bottom + shift[1])
        self._event("Swipe", x1, y1, x2, y2, round(duration * 1000))

    def press(self, key: str) -> None:
        if key not in _KEYS:
            raise StepArgumentError(f"unknown key {key!r}")
        if key == "back":
            self._event("BackPress")
        else:
            self._event("PressKey", _KEYS[key])

    def type_text(self, text: str) -> None:
        self.typed += text
        self._event("InputText", text)

    def erase_text(self, count: int) -> None:
        self.typed = self.typed[: max(0, len(self.typed) - count)]
        self._event("EraseText", count)

    def hide_keyboard(self) -> None:
        self._event("HideKeyboard")

    def set_location(self, latitude: float, longitude: float) -> None:
        self._event("SetLocation", latitude, longitude)

    def close(self) -> None:
        pass
