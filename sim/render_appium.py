"""Render the simulated screen as Appium page source, and find elements in it.

Two formats, as a real Appium 3 server returns them from ``GET /session/ID/source``:

- Android (UiAutomator2 driver): an XML document whose root is
  ``<hierarchy index="0" class="hierarchy" rotation="0" width=… height=…>`` and whose elements are
  named by their class (``<android.widget.TextView index package class text resource-id
  content-desc checkable checked clickable enabled focusable focused long-clickable password
  scrollable selected bounds="[l,t][r,b]" displayed hint …>``). ``resource-id``,
  ``content-desc`` and ``hint`` are left out when the view has none, as the server does.
- iOS (XCUITest driver): WebDriverAgent's XML wrapped in ``<AppiumAUT>``, one element per
  accessibility node named by its ``XCUIElementType…`` with ``type value name label enabled
  visible accessible x y width height index`` (and ``placeholderValue`` on text fields); absent
  values are left out. Behind WebDriverAgent 10.1.0 and later the application element also carries
  ``processId`` and ``bundleId`` (``tests/fixtures/real/ios/xcuitest-2025-source-AppiumAUT-root-…``).

The XML is built as an lxml tree so the face can run XPath (and the other locator strategies)
over exactly what the client reads, and map every match back to the :class:`SimNode` it came
from by its path of child indexes (:func:`node_path`, :func:`node_at`).
"""

from __future__ import annotations

import zlib

from lxml import etree

from .nodes import SimNode

__all__ = [
    "ANDROID_DECLARATION",
    "IOS_DECLARATION",
    "build_tree",
    "find_elements",
    "node_at",
    "node_path",
    "render_source",
    "serialize",
]

ANDROID_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
IOS_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'
IOS_WRAPPER = "AppiumAUT"

# Element types WebDriverAgent reports as accessibility elements (accessible="true").
_IOS_ACCESSIBLE = frozenset(
    {
        "XCUIElementTypeButton",
        "XCUIElementTypeStaticText",
        "XCUIElementTypeTextField",
        "XCUIElementTypeSecureTextField",
        "XCUIElementTypeSwitch",
        "XCUIElementTypeKey",
        "XCUIElementTypeIcon",
        "XCUIElementTypeImage",
        "XCUIElementTypeLink",
        "XCUIElementTypeSlider",
    }
)


def _flag(value: bool) -> str:
    return "true" if value else "false"


# --- Android: UiAutomator2 ---------------------------------------------------------------------


def _android_attributes(node: SimNode, index: int) -> dict[str, str]:
    b = node.bounds
    attrs: dict[str, str] = {
        "index": str(index),
        "package": node.package or "",
        "class": node.type,
        "text": node.text or "",
    }
    if node.label is not None:
        attrs["content-desc"] = node.label
    if node.ident is not None:
        attrs["resource-id"] = node.ident
    attrs.update(
        {
            "checkable": _flag(node.checkable),
            "checked": _flag(node.checked),
            "clickable": _flag(node.clickable),
            "enabled": _flag(node.enabled),
            "focusable": _flag(node.focusable),
            "focused": _flag(node.focused),
            "long-clickable": "false",
            "password": _flag(node.password),
            "scrollable": _flag(node.scrollable),
            "selected": _flag(node.selected),
            "bounds": f"[{b.left},{b.top}][{b.right},{b.bottom}]",
            "displayed": _flag(node.visible),
        }
    )
    if node.hint is not None:
        attrs["hint"] = node.hint
    attrs["a11y-important"] = _flag(node.clickable or node.text is not None or node.label is not None)
    attrs["screen-reader-focusable"] = "false"
    attrs["showing-hint"] = _flag(node.hint is not None and node.text == node.hint)
    return attrs


def _android_element(parent: etree._Element, node: SimNode, index: int) -> None:
    element = etree.SubElement(parent, node.type, _android_attributes(node, index))
    for i, child in enumerate(node.children):
        _android_element(element, child, i)


def _android_tree(tree: SimNode, window_size: tuple[int, int], rotation: int = 0) -> etree._Element:
    width, height = window_size
    attributes = {"index": "0", "class": "hierarchy", "rotation": str(rotation)}
    root = etree.Element("hierarchy", {**attributes, "width": str(width), "height": str(height)})
    for i, child in enumerate(tree.children):
        _android_element(root, child, i)
    return root


# --- iOS: XCUITest --------------------------------------------------------------------------


def _ios_attributes(node: SimNode, index: int) -> dict[str, str]:
    attrs: dict[str, str] = {"type": node.type}
    if node.value is not None:
        attrs["value"] = node.value
    if node.ident is not None:
        attrs["name"] = node.ident
    if node.label is not None:
        attrs["label"] = node.label
    b = node.bounds
    attrs.update(
        {
            "enabled": _flag(node.enabled),
            "visible": _flag(node.visible),
            "accessible": _flag(node.type in _IOS_ACCESSIBLE),
            "x": str(b.left),
            "y": str(b.top),
            "width": str(b.width),
            "height": str(b.height),
            "index": str(index),
        }
    )
    if node.hint is not None:
        attrs["placeholderValue"] = node.hint
    return attrs


def _ios_element(parent: etree._Element, node: SimNode, index: int) -> None:
    element = etree.SubElement(parent, node.type, _ios_attributes(node, index))
    for i, child in enumerate(node.children):
        _ios_element(element, child, i)


def _ios_tree(tree: SimNode, app_attributes: bool, pid: int | None = None) -> etree._Element:
    root = etree.Element(IOS_WRAPPER)
    _ios_element(root, tree, 0)
    if app_attributes and tree.package and len(root):
        stable = 200 + zlib.crc32(tree.package.encode()) % 30000
        root[0].set("processId", str(pid if pid is not None else stable))
        root[0].set("bundleId", tree.package)
    return root


# --- public API -------------------------------------------------------------------------------


def build_tree(
    tree: SimNode,
    platform: str,
    window_size: tuple[int, int],
    *,
    app_attributes: bool = True,
    rotation: int = 0,
    pid: int | None = None,
) -> etree._Element:
    """The page source of ``tree`` as an lxml element: ``<hierarchy>`` or ``<AppiumAUT>``
    (``app_attributes``: the WebDriverAgent behind writes ``processId``/``bundleId``; ``rotation``:
    Android's display rotation, 0 to 3, as UiAutomator2 writes it on its root; ``pid`` the app's
    process id, the device's for a running app)."""
    if platform == "android":
        return _android_tree(tree, window_size, rotation)
    return _ios_tree(tree, app_attributes, pid)


def serialize(root: etree._Element, platform: str) -> str:
    """The document text with the declaration each server writes, indented by two spaces."""
    body = etree.tostring(root, encoding="unicode", pretty_print=True)
    declaration = ANDROID_DECLARATION if platform == "android" else IOS_DECLARATION
    return f"{declaration}\n{body}"


def render_source(
    tree: SimNode, platform: str, window_size: tuple[int, int], *, app_attributes: bool = True
) -> str:
    """``GET /source``'s value for the screen ``tree`` on ``platform``."""
    return serialize(build_tree(tree, platform, window_size, app_attributes=app_attributes), platform)


def node_path(element: etree._Element, platform: str) -> tuple[int, ...] | None:
    """The child-index path from the SimNode root to the node ``element`` renders.

    None for the ``<AppiumAUT>`` wrapper, which stands for no node.
    """
    path: list[int] = []
    current = element
    while True:
        parent = current.getparent()
        if parent is None:
            break
        path.append(parent.index(current))
        current = parent
    path.reverse()
    if platform == "android":
        return tuple(path)  # <hierarchy> is the SimNode root; its children are the windows
    if not path:
        return None
    return tuple(path[1:])  # <AppiumAUT> holds the application element, the SimNode root


def node_at(tree: SimNode, path: tuple[int, ...]) -> SimNode | None:
    """The node at ``path`` (child indexes from ``tree``), or None when the screen has no such node."""
    node = tree
    for index in path:
        if index >= len(node.children):
            return None
        node = node.children[index]
    return node


def find_elements(root: etree._Element, platform: str, using: str, value: str) -> list[etree._Element]:
    """Elements matching one W3C/Appium locator, in document order.

    ``xpath`` runs over the rendered document; ``id`` is Android's resource-id (a bare name
    gets the element's package prepended, as UiAutomator2 does) or iOS's name;
    ``accessibility id`` is Android's content-desc or iOS's name; ``class name`` is the tag.
    Raises ``ValueError`` for a strategy the face does not know and ``etree.XPathError`` for a
    bad expression (the face answers both with ``invalid selector``).
    """
    doc = etree.ElementTree(root)
    if using == "xpath":
        found = doc.xpath(value)
        if not isinstance(found, list) or not all(isinstance(f, etree._Element) for f in found):
            raise ValueError(f"the XPath {value!r} does not select elements")
        return [f for f in found if isinstance(f, etree._Element) and f.tag != IOS_WRAPPER]
    everything = [el for el in root.iter() if isinstance(el.tag, str) and el.tag != IOS_WRAPPER]
    if using == "class name":
        return [el for el in everything if el.tag == value]
    if platform == "android":
        if using == "id":
            return [
                el
                for el in everything
                if el.get("resource-id") == value
                or (":id/" not in value and el.get("resource-id") == f"{el.get('package')}:id/{value}")
            ]
        if using == "accessibility id":
            return [el for el in everything if el.get("content-desc") == value]
    elif using in ("id", "accessibility id", "name"):
        return [el for el in everything if el.get("name") == value]
    raise ValueError(f"locator strategy {using!r} is not supported by the simulated device")
