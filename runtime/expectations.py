"""What a step expected, checked against what the device showed after it.

A planned step may say what it expects (``PlannedStep.expected_outcome``, the history field of the
design). Written in the short form below it is checked by :func:`check` after the step's look (the
look the loop makes once the screen has settled); written in free words it is kept and shown, and
only whether the screen changed is checked. Either way the loop records a :class:`Verdict`:
``verified`` (true, false, or None when nothing could be checked), ``changed`` (whether the screen
differs at all from the look before the step, by :func:`amc.actions.settle.signature`, so a clock or
a progress value does not count) and ``saw`` (what the check saw, in words).

The short form is one or more clauses joined by ``;``:

=================  ==============================================================================
``shows: TEXT``    an element reads TEXT (text, label or value; exact, else contained, any case)
``gone: TEXT``     no element reads TEXT
``page: NAME``     the page in front is NAME (the enricher's page or title, contained, any case);
                   ``page`` alone: the page changed
``app: ID``        the app in front is ID; ``app`` alone: the app changed
``holds: TEXT``    a text field holds TEXT; ``holds`` alone: the text the step typed (a password
                   field, which shows dots, holds as many characters)
``changes``        the screen changed at all; ``unchanged``: it did not
=================  ==============================================================================

:func:`check` is a pure function of its arguments: no device, no clock, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..actions.settle import signature
from ..core.models import PlannedStep, Scene, UIElement
from ..semantic.models import Observation
from ..world.models import WorldState

__all__ = ["KINDS", "MAX_SAW", "Expectation", "Verdict", "check", "describe_changes", "parse_expectation"]

KINDS: Final = ("shows", "gone", "page", "app", "holds", "changes", "unchanged")
_NEEDS_VALUE: Final = frozenset({"shows", "gone"})
_NO_VALUE: Final = frozenset({"changes", "unchanged"})
_CLAUSE = re.compile(r"\s*([A-Za-z_]+)\s*(?::\s*(.*?))?\s*\Z", re.DOTALL)
_FIELDS = ("EditText", "TextField", "SecureTextField", "SearchField", "TextView", "AutoCompleteTextView")
MAX_SAW = 300  # characters of what the check saw, kept with the step
_LISTED = 4  # texts named in a change's summary


@dataclass(frozen=True)
class Expectation:
    """One checkable expectation: its ``kind`` (one of :data:`KINDS`) and its value, if any."""

    kind: str
    value: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"an expectation's kind is one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind in _NEEDS_VALUE and not (self.value or "").strip():
            raise ValueError(f"the expectation {self.kind!r} needs a text: '{self.kind}: TEXT'")

    def describe(self) -> str:
        return f"{self.kind}: {self.value}" if self.value else self.kind


@dataclass(frozen=True)
class Verdict:
    """How a step's outcome compared with its expectation (see the module's docstring)."""

    verified: bool | None
    changed: bool
    saw: str
    expected: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "changed": self.changed,
            "saw": self.saw,
            "expected": self.expected,
        }


def parse_expectation(text: str | None) -> tuple[Expectation, ...]:
    """The clauses of ``text`` in the short form; empty when ``text`` is free words (or nothing):
    a text is read as the short form only when every clause names a kind."""
    if not text or not text.strip():
        return ()
    found: list[Expectation] = []
    for clause in text.split(";"):
        if not clause.strip():
            continue
        match = _CLAUSE.match(clause)
        if match is None or match.group(1).lower() not in KINDS:
            return ()
        kind, value = match.group(1).lower(), (match.group(2) or "").strip() or None
        if (kind in _NEEDS_VALUE and value is None) or (kind in _NO_VALUE and value is not None):
            return ()
        found.append(Expectation(kind, value))
    return tuple(found)


# --- what a look shows ----------------------------------------------------------------------------


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _readings(el: UIElement) -> tuple[str, ...]:
    return tuple(t for t in (el.text, el.label, el.value) if t and t.strip())


def _visible(scene: Scene) -> list[UIElement]:
    return [el for el in scene if el.visible and not el.bounds.is_empty()]


def _reads(scene: Scene, wanted: str) -> UIElement | None:
    """The element reading ``wanted``: exactly (case and spaces aside), else containing it."""
    want = _fold(wanted)
    contained: UIElement | None = None
    for el in _visible(scene):
        for reading in _readings(el):
            folded = _fold(reading)
            if folded == want:
                return el
            if contained is None and want in folded:
                contained = el
    return contained


def _texts(scene: Scene) -> list[str]:
    seen: dict[str, None] = {}
    for el in _visible(scene):
        if el.password:
            continue
        for reading in _readings(el):
            seen.setdefault(reading.strip(), None)
    return list(seen)


def _quote(texts: Sequence[str]) -> str:
    shown = ", ".join(repr(t if len(t) <= 40 else t[:39] + "…") for t in texts[:_LISTED])
    return shown + (f" and {len(texts) - _LISTED} more" if len(texts) > _LISTED else "")


def _page(observation: Observation | None) -> str | None:
    if observation is None or observation.semantic is None:
        return None
    return observation.semantic.page


def _names_page(observation: Observation, wanted: str) -> bool:
    semantic = observation.semantic
    names = [semantic.page, semantic.title, semantic.activity] if semantic is not None else []
    names.append(observation.scene.activity)
    want = _fold(wanted)
    return any(name and want in _fold(name) for name in names)


def describe_changes(before: Observation | None, after: Observation) -> str:
    """What differs between two looks, in words: the app, the page, texts that appeared and went."""
    if before is None:
        return "no look before the step to compare with"
    said: list[str] = []
    if before.foreground_app != after.foreground_app:
        said.append(f"app {before.foreground_app or 'unknown'} -> {after.foreground_app or 'unknown'}")
    if _page(before) != _page(after):
        said.append(f"page {_page(before) or 'unknown'} -> {_page(after) or 'unknown'}")
    old, new = _texts(before.scene), _texts(after.scene)
    olds, news = set(old), set(new)
    appeared = [t for t in new if t not in olds]
    gone = [t for t in old if t not in news]
    if appeared:
        said.append(f"appeared {_quote(appeared)}")
    if gone:
        said.append(f"gone {_quote(gone)}")
    if not said:
        return (
            "the screen changed (no text, page or app changed)"
            if signature(before.scene) != signature(after.scene)
            else "the screen did not change"
        )
    return "; ".join(said)


# --- the checks -----------------------------------------------------------------------------------


def _typed(step: PlannedStep | None) -> str | None:
    if step is None or step.action != "type_text":
        return None
    text = step.args.get("text")
    return text if isinstance(text, str) else None


def _holds(after: Observation, wanted: str | None, step: PlannedStep | None) -> tuple[bool, str]:
    secret = step is not None and step.args.get("secret") is True
    text = wanted if wanted is not None else _typed(step)
    if text is None:
        return False, "no text to look for: give 'holds: TEXT', or type text in this step"
    fields = [
        el
        for el in _visible(after.scene)
        if el.type.rsplit(".", 1)[-1].removeprefix("XCUIElementType") in _FIELDS
    ]
    for el in fields:
        shown = el.text or el.value or ""
        if el.password or secret:
            if len(shown) == len(text) and shown:
                return True, f"a {'password ' if el.password else ''}field holds {len(shown)} characters"
            continue
        if _fold(shown) == _fold(text):
            return True, f"a field holds {shown!r}"
    held = [
        ("•" * len(el.text or "")) if el.password or secret else (el.text or el.value or "") for el in fields
    ]
    return False, f"no field holds it (fields hold {_quote([h for h in held if h]) or 'nothing'})"


def _one(
    expectation: Expectation, step: PlannedStep | None, before: Observation | None, after: Observation
) -> tuple[bool, str]:
    kind, value = expectation.kind, expectation.value
    if kind == "shows":
        assert value is not None
        el = _reads(after.scene, value)
        return (True, f"{value!r} is on screen") if el is not None else (False, f"{value!r} is not on screen")
    if kind == "gone":
        assert value is not None
        el = _reads(after.scene, value)
        return (
            (True, f"{value!r} is not on screen") if el is None else (False, f"{value!r} is still on screen")
        )
    if kind == "page":
        page = _page(after) or after.scene.activity or "unknown"
        if value is not None:
            return _names_page(after, value), f"the page is {page}"
        if before is None:
            return False, "no look before the step to compare the page with"
        return _page(before) != _page(after), f"the page is {page} (before: {_page(before) or 'unknown'})"
    if kind == "app":
        app = after.foreground_app or "unknown"
        if value is not None:
            return after.foreground_app == value, f"the app in front is {app}"
        if before is None:
            return False, "no look before the step to compare the app with"
        return before.foreground_app != after.foreground_app, f"the app in front is {app}"
    if kind == "holds":
        return _holds(after, value, step)
    if before is None:
        return False, "no look before the step to compare with"
    moved = signature(before.scene) != signature(after.scene)
    return (moved if kind == "changes" else not moved), describe_changes(before, after)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SAW else text[: MAX_SAW - 1] + "…"


def check(
    expected: str | Sequence[Expectation] | None,
    before: Observation | None,
    after: Observation | None,
    world: WorldState | None = None,
    *,
    step: PlannedStep | None = None,
) -> Verdict | None:
    """The verdict on a step whose look before was ``before`` and whose look after (settled) was
    ``after``: ``expected`` is the step's expected outcome (text, read by
    :func:`parse_expectation`) or structured :class:`Expectation` s; ``step`` the step itself (its
    typed text, for ``holds``). ``world`` names the page when the looks do not. None when there is
    no look after the step (nothing to check against)."""
    if after is None:
        return None
    moved = before is not None and signature(before.scene) != signature(after.scene)
    text = expected if isinstance(expected, str) else None
    clauses = parse_expectation(expected) if isinstance(expected, str) else tuple(expected or ())
    if isinstance(expected, Sequence) and not isinstance(expected, str):
        text = "; ".join(e.describe() for e in clauses) or None
    if not clauses:
        return Verdict(None, moved, _cut(describe_changes(before, after)), text)
    verdicts = [_one(clause, step, before, after) for clause in clauses]
    said = "; ".join(saw for _, saw in verdicts)
    if world is not None and world.current_page and "page" in {c.kind for c in clauses}:
        said += f" (world: {world.current_page})"
    return Verdict(all(ok for ok, _ in verdicts), moved, _cut(said), text)
