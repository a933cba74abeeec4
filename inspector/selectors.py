"""Flow selectors that find one element and only it, ready to paste into a flow.

For an element of a Scene, :func:`unique_selectors` tries the fields a QA engineer would write
(``text``, ``id``, ``label``), then pairs of them with ``type``, then an XPath over the Scene's
normalised view (by attribute when that is unique, else by position). A candidate is offered only
when :meth:`amc.core.selectors.Selector.find_all` on the same Scene returns exactly that element,
so a step written with it acts on what was clicked, and only when the flow loader reads it back
as written (a step ``tap: <selector>`` is parsed for each), so it can be pasted into a flow. An
element that is not visible is offered with ``visible: false`` (a selector matches visible
elements unless told otherwise).

:func:`flow_yaml` writes a value as the flow loader reads it: YAML that keeps strings strings,
with ``${`` written ``$${`` (a flow reads ``${NAME}`` as a variable).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from ..core.errors import ConfigError, FlowError
from ..core.models import Scene, UIElement
from ..core.selectors import Selector, short_type
from ..core.xpath import xpath_view
from ..flows import parse_flow

__all__ = ["Suggestion", "escape_variables", "flow_yaml", "unique_selectors"]


@dataclass(frozen=True)
class Suggestion:
    """One selector that matches the element and nothing else: ``fields`` as a flow writes them."""

    kind: str
    fields: Mapping[str, Any]

    @property
    def yaml(self) -> str:
        """The selector as flow text, e.g. ``{id: sign_in}``."""
        return flow_yaml(dict(self.fields))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "selector": dict(self.fields), "yaml": self.yaml}


def escape_variables(value: Any) -> Any:
    """``value`` with every ``${`` in its strings written ``$${``, so a flow reads it literally."""
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, Mapping):
        return {str(k): escape_variables(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escape_variables(v) for v in value]
    return value


def flow_yaml(value: Any) -> str:
    """``value`` as one line of flow YAML (strings quoted where YAML would read something else)."""
    return (
        yaml.safe_dump(
            escape_variables(value),
            default_flow_style=True,
            allow_unicode=True,
            width=math.inf,
            sort_keys=False,
        )
        .removesuffix("\n...\n")
        .strip()
    )


def _short_id(identifier: str) -> str:
    return identifier.split(":id/", 1)[1] if ":id/" in identifier else identifier


def _xpath_literal(text: str) -> str:
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    parts = text.split('"')
    return "concat(" + ", '\"', ".join(f'"{part}"' for part in parts) + ")"


def _text_of(el: UIElement) -> str | None:
    # What `text:` compares with: the text, else the label (when there is no text), else the value.
    return el.text or el.label or el.value or None


_FIELDS = frozenset({"EditText", "TextField", "SecureTextField", "SearchField"})


def _candidates(el: UIElement) -> Iterator[tuple[str, dict[str, Any]]]:
    """What to try, best first: a field's text changes as it is typed into (and is its hint while
    empty), so its id goes first; anything else is written by what it says."""
    text = _text_of(el)
    kind = short_type(el.type)
    by_text = [("text", {"text": text})] if text else []
    by_id: list[tuple[str, dict[str, Any]]] = []
    if el.identifier:
        short = _short_id(el.identifier)
        by_id.append(("id", {"id": short}))
        if short != el.identifier:
            by_id.append(("id", {"id": el.identifier}))
    field = kind in _FIELDS or bool(el.password)
    yield from (*by_id, *by_text) if field else (*by_text, *by_id)
    if el.label:
        yield "label", {"label": el.label}
    if text:
        yield "text and type", {"text": text, "type": kind}
    if el.identifier:
        yield "id and type", {"id": _short_id(el.identifier), "type": kind}
        if text:
            yield "id and text", {"id": _short_id(el.identifier), "text": text}


def _xpath_candidates(scene: Scene, el: UIElement) -> Iterator[tuple[str, dict[str, Any]]]:
    view = xpath_view(scene)
    path = view.path(el)
    if path is None:
        return
    tag = path.rsplit("/", 1)[-1].split("[", 1)[0]
    for attribute, value in (("id", el.identifier), ("text", el.text), ("label", el.label)):
        if value and len(value) <= 200:
            yield "xpath", {"xpath": f"//{tag}[@{attribute}={_xpath_literal(value)}]"}
    yield "xpath", {"xpath": path}


def _as_loaded(fields: Mapping[str, Any]) -> Selector | None:
    """The selector a flow step written with ``fields`` gives the executor, or None when the flow
    loader refuses it (a blank text, an XPath over the length a selector may have …)."""
    try:
        flow = parse_flow(f"steps:\n  - tap: {flow_yaml(dict(fields))}\n", file="<selector>", environ={})
        return Selector.from_mapping(flow.planned_steps("android")[0].args["target"])
    except (ConfigError, FlowError):
        return None


def _only(scene: Scene, el: UIElement, fields: Mapping[str, Any]) -> bool:
    selector = _as_loaded(fields)
    if selector is None:
        return False
    found = selector.find_all(scene)
    return len(found) == 1 and found[0] is el


def unique_selectors(scene: Scene, element: UIElement, *, limit: int = 6) -> list[Suggestion]:
    """Selectors that find ``element`` (an element of ``scene``) and nothing else, best first: up to
    ``limit - 1`` written with fields, then one XPath."""
    hidden = {} if element.visible else {"visible": False}
    out: list[Suggestion] = []
    seen: set[str] = set()
    for kind, fields in _candidates(element):
        full = {**fields, **hidden}
        key = repr(sorted(full.items()))
        if key not in seen and _only(scene, element, full):
            seen.add(key)
            out.append(Suggestion(kind, full))
            if len(out) >= limit - 1:
                break
    for kind, fields in _xpath_candidates(scene, element):
        full = {**fields, **hidden}
        if _only(scene, element, full):
            out.append(Suggestion(kind, full))
            break
    return out
