"""Server-side elements through Appium: what ``AppiumDriver`` offers beyond the Driver protocol.

The harness finds targets on its own Scene (no request); these are for what only the server can do
or knows: finding with its locators (``xpath``, ``id``, ``accessibility id``, ``class name``),
clicking and typing into one element, reading an element's rect, text and attributes, and the
window size. Each call is one request, its errors mapped like every other ``AppiumDriver`` call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from appium.webdriver.webdriver import WebDriver

from ...core.errors import StepArgumentError, TargetNotFound
from ...core.models import Bounds

__all__ = ["LOCATORS", "AppiumElement", "ServerElements"]

T = TypeVar("T")
LOCATORS = frozenset({"xpath", "id", "accessibility id", "class name"})


@dataclass(frozen=True)
class AppiumElement:
    """A server-side element found by :meth:`ServerElements.find`; valid while its session lasts."""

    id: str
    using: str
    value: str


class _Runs(Protocol):
    """What the mixin needs from the driver: one mapped client call, and the device's name."""

    @property
    def device_id(self) -> str: ...

    def _run(self, action: str, call: Callable[[WebDriver], T]) -> T: ...

    def find_all(self, using: str, value: str) -> list[AppiumElement]: ...


class ServerElements:
    """Mixin for :class:`drivers.appium.AppiumDriver`: elements as the Appium server finds them."""

    def window_size(self: _Runs) -> tuple[int, int]:
        """The screen size the server reports (``GET …/window/rect``)."""
        rect = self._run("reading the window size", lambda wd: wd.get_window_rect())
        return int(rect["width"]), int(rect["height"])

    def find_all(self: _Runs, using: str, value: str) -> list[AppiumElement]:
        """Elements the server finds (``xpath``, ``id``, ``accessibility id``, ``class name``)."""
        if using not in LOCATORS:
            raise StepArgumentError(f"locator {using!r} is not one of {', '.join(sorted(LOCATORS))}")
        found = self._run(f"finding {using}={value!r}", lambda wd: wd.find_elements(using, value))
        return [AppiumElement(str(el.id), using, value) for el in found]

    def find(self: _Runs, using: str, value: str) -> AppiumElement:
        """The first element the server finds; ``TargetNotFound`` when there is none."""
        found = self.find_all(using, value)
        if not found:
            raise TargetNotFound(
                f"the Appium server finds no element by {using}={value!r} on {self.device_id}"
            )
        return found[0]

    def click(self: _Runs, element: AppiumElement) -> None:
        self._run(
            f"clicking {element.using}={element.value!r}",
            lambda wd: wd.create_web_element(element.id).click(),
        )

    def element_bounds(self: _Runs, element: AppiumElement) -> Bounds:
        rect = self._run(
            f"reading the rect of {element.value!r}", lambda wd: wd.create_web_element(element.id).rect
        )
        return Bounds.from_rect(rect["x"], rect["y"], rect["width"], rect["height"])

    def element_text(self: _Runs, element: AppiumElement) -> str:
        text = self._run(
            f"reading the text of {element.value!r}", lambda wd: wd.create_web_element(element.id).text
        )
        return text if isinstance(text, str) else ""

    def element_attribute(self: _Runs, element: AppiumElement, name: str) -> str | None:
        """One attribute of an element as the server reports it (``GET …/element/ID/attribute/NAME``)."""
        value = self._run(
            f"reading {name!r} of {element.value!r}",
            lambda wd: wd.create_web_element(element.id).get_attribute(name),
        )
        return None if value is None else str(value)

    def type_into(self: _Runs, element: AppiumElement, text: str) -> None:
        """Send ``text`` to one element (``POST …/element/ID/value``)."""
        self._run(
            f"typing into {element.value!r}", lambda wd: wd.create_web_element(element.id).send_keys(text)
        )
