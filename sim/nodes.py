"""The simulated screen as a tree of native nodes, before any wire format is chosen.

The layout produces :class:`SimNode` trees with each platform's real type names
(``android.widget.TextView``, ``XCUIElementTypeCell``); the renderers turn the same tree into a
Scene, uiautomator XML, WebDriverAgent XML/JSON or Appium page source.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from ..core.models import Bounds

__all__ = ["SimNode", "shifted"]


@dataclass(frozen=True)
class SimNode:
    """One on-screen node. ``ref`` tells the state machine what a tap on it means."""

    type: str
    bounds: Bounds
    text: str | None = None
    label: str | None = None
    ident: str | None = None
    value: str | None = None
    hint: str | None = None
    package: str | None = None
    enabled: bool = True
    visible: bool = True
    clickable: bool = False
    focusable: bool = False
    focused: bool = False
    checkable: bool = False
    checked: bool = False
    selected: bool = False
    scrollable: bool = False
    password: bool = False
    ref: str | None = None
    children: tuple[SimNode, ...] = ()

    def iter(self) -> Iterator[SimNode]:
        stack: list[SimNode] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def hit(self, x: float, y: float) -> SimNode | None:
        """The topmost node with a ``ref`` under the point (later siblings draw on top)."""
        if not self.visible:
            return None
        for child in reversed(self.children):
            found = child.hit(x, y)
            if found is not None:
                return found
        if self.ref is not None and self.bounds.contains(x, y):
            return self
        return None


def shifted(root: SimNode, dx: int) -> SimNode:
    """``root`` with everything under it moved ``dx`` to the right (a window sliding in): the root,
    the screen itself, stays where it is."""
    if dx == 0:
        return root

    def move(node: SimNode) -> SimNode:
        b = node.bounds
        return dataclasses.replace(
            node,
            bounds=Bounds(b.left + dx, b.top, b.right + dx, b.bottom),
            children=tuple(move(child) for child in node.children),
        )

    return dataclasses.replace(root, children=tuple(move(child) for child in root.children))
