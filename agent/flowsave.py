"""A run's steps saved as a flow that replays without a model (``amc agent --save-flow``, MCP ``save_flow``).

:func:`flow_from_run` reads what the task recorded (each passed step with the screen it acted on and
the screen it led to, and the first look) and writes a :class:`~amc.flows.recorded.RecordedFlow`:

- the app's start: the first app the run launched (or had in front) is started clean, its data
  cleared (``clear_state``, optional: WebDriverAgent cannot clear an iOS app's data) and launched,
  so the flow starts where the agent did, whatever the app was left showing;
- an element acted on is named by the first of the inspector's unique selectors for it on the screen
  it was acted on (:func:`amc.flows.unique.unique_selectors`), never by a point: a tap the
  model gave as x and y is written with the selector of the element under that point;
- typed secret text is a ``${VARIABLE}`` named after its field (``${PASSWORD}``), never its value;
  a secret ``remember`` is left out;
- where the world saw the app change, an ``assert_app``; where it saw the page change, a
  ``wait_for`` of a text that appeared with the new page (the one the step expected, when its
  ``shows:`` was verified), unless the run's next step checks the screen itself;
- the model's rationale and expectation (with the harness's verdict) are comments above the step.

Steps that did nothing to replay are left out: failed, skipped and model-reply steps, looks
(``describe_screen``, ``screenshot``). A tap no selector can name fails the save (``ConfigError``
naming the step) rather than writing coordinates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..actions import ACTIONS
from ..core.apps import is_home_screen
from ..core.errors import ConfigError, HarnessError
from ..core.models import Scene, UIElement
from ..core.selectors import Selector
from ..core.steps import StepRecord
from ..flows.recorded import RecordedFlow, RecordedStep, Variable, variable_name
from ..flows.unique import unique_selectors
from ..semantic.models import Observation

__all__ = ["LEFT_OUT", "check_written", "flow_from_run", "save_flow"]

LEFT_OUT = frozenset({"describe_screen", "screenshot", "skip", "reply_error"})
_CHECKS = frozenset(
    {"wait_for", "assert_visible", "assert_not_visible", "assert_app", "scroll_until_visible"}
)
_ON_ELEMENT = frozenset({"tap", "long_press", "type_text"})
_CLEAN = ("start the app clean, as a test should: its data cleared (optional: WebDriverAgent cannot)",)
_STABLE = re.compile(r"[^\d]{2,60}\Z")  # a text with a number in it (a clock, a count) may change


def _element(scene: Scene, output: Any) -> UIElement | None:
    """The element a step's result says it acted on (its bounds and what it reads) in ``scene``."""
    if not isinstance(output, Mapping) or not isinstance(output.get("bounds"), Mapping):
        return None
    bounds = output["bounds"]
    found = output.get("found")
    for el in scene:
        b = el.bounds
        if (b.left, b.top, b.right, b.bottom) != tuple(
            bounds.get(k) for k in ("left", "top", "right", "bottom")
        ):
            continue
        if found in (el.display_text, el.identifier, el.type):
            return el
    return None


def _at_point(scene: Scene, args: Mapping[str, Any]) -> UIElement | None:
    """The element a tap at a point lands on: of the visible elements under it, the smallest that
    can be acted on, else the smallest that reads something."""
    x, y = args.get("x"), args.get("y")
    if not isinstance(x, int | float) or not isinstance(y, int | float):
        return None
    under = [el for el in scene if el.visible and el.bounds.contains(x, y) and not el.bounds.is_empty()]
    acting = [el for el in under if el.clickable or el.focusable]
    fitting = acting or [el for el in under if el.display_text]
    return min(fitting, key=lambda el: el.bounds.area) if fitting else None


def _selector(record: StepRecord, number: int) -> dict[str, Any] | None:
    scene = record.acted_on
    element = _element(scene, record.result.output) if scene is not None else None
    if scene is not None and element is None:
        element = _at_point(scene, record.step.args)
    if scene is not None and element is not None:
        suggestions = unique_selectors(scene, element, limit=2)
        if suggestions:
            return dict(suggestions[0].fields)
    target = record.step.args.get("target")
    if target is not None:
        written = Selector.from_mapping(target).to_dict()
        return {k: v for k, v in written.items() if v is not None and (k, v) != ("visible", True)}
    if record.step.action == "type_text":
        return None  # typed into the focused field: nothing to name
    raise ConfigError(
        f"step {number} ({record.step.action} at a point) acted on no element a selector can name; "
        "a saved flow never taps coordinates",
        hint="ask the agent to act on elements by their `target`, then save again",
    )


def _texts(scene: Scene) -> dict[str, UIElement]:
    shown: dict[str, UIElement] = {}
    for el in scene:
        text = el.display_text
        if el.visible and not el.password and text and not el.bounds.is_empty():
            shown.setdefault(text.strip(), el)
    return shown


def _marker(before: Scene | None, after: Scene, expected: str | None) -> str | None:
    """A text that came with the new page and names it alone (the expected one first)."""
    now = _texts(after)
    if expected and expected in now:
        return expected
    old = set(_texts(before)) if before is not None else set()
    fresh = sorted(
        ((el.bounds.top, el.bounds.left, text) for text, el in now.items() if text not in old),
        key=lambda item: (item[0], item[1]),
    )
    for _, _, text in fresh:
        if not _STABLE.match(text):
            continue
        el = now[text]
        suggestions = unique_selectors(after, el, limit=2)
        if suggestions and dict(suggestions[0].fields) == {"text": text}:
            return text
    return None


def _shown_expected(record: StepRecord) -> str | None:
    """The text a verified ``shows:`` expectation named."""
    verification = record.result.verification or {}
    if verification.get("verified") is not True or not record.step.expected_outcome:
        return None
    for clause in record.step.expected_outcome.split(";"):
        kind, _, value = clause.partition(":")
        if kind.strip().lower() == "shows" and value.strip():
            return value.strip()
    return None


def _comments(record: StepRecord) -> tuple[str, ...]:
    step = record.step
    said = []
    if step.rationale:
        said.append(f"why: {step.rationale}")
    if step.expected_outcome:
        verified = (record.result.verification or {}).get("verified")
        verdict = " (verified)" if verified is True else " (not verified)" if verified is False else ""
        said.append(f"expected: {step.expected_outcome}{verdict}")
    return tuple(said)


def _args(record: StepRecord, number: int, names: list[str]) -> dict[str, Any] | None:
    """The step's arguments as the flow writes them; None for a step to leave out."""
    action = ACTIONS.get(record.step.action)
    if action is None or action.flow is None:
        return None
    try:
        args = action.as_written(action.validate(dict(record.step.args)))
    except HarnessError:
        return None
    secret = args.pop("secret", None) is True
    if isinstance(args.get("target"), Mapping):  # as written: without the defaults a selector fills in
        args["target"] = {
            k: v for k, v in args["target"].items() if v is not None and (k, v) != ("visible", True)
        }
    if record.step.action == "remember" and secret:
        return None
    if record.step.action in _ON_ELEMENT:
        args.pop("x", None)
        args.pop("y", None)
        selector = _selector(record, number)
        if selector is not None:
            args["target"] = selector
    if record.step.action == "type_text" and secret:
        target = args.get("target") or {}
        hint = (
            target.get("id") or target.get("label") or target.get("text")
            if isinstance(target, Mapping)
            else None
        )
        names.append(variable_name(hint if isinstance(hint, str) else None, names))
        args["text"] = Variable(names[-1])
        args["secret"] = True  # the replay hides it too
    return args


def flow_from_run(
    steps: Sequence[StepRecord],
    first: Observation | None,
    *,
    name: str,
    platform: str,
    header: Sequence[str] = (),
) -> RecordedFlow:
    """The flow that replays the passed steps of a run (see the module's docstring)."""
    out: list[RecordedStep] = []
    names: list[str] = []
    before: Scene | None = first.scene if first is not None else None
    app = first.foreground_app if first is not None else None
    page = first.page if first is not None else None
    started: str | None = None
    passed = [r for r in steps if r.status == "passed" and r.step.action not in LEFT_OUT]
    for n, record in enumerate(passed):
        number = record.index + 1
        action = record.step.action
        args = _args(record, number, names)
        if args is None:
            continue
        if started is None:
            start = args["app_id"] if action == "launch_app" else app
            if start is not None and not is_home_screen(start):
                out.append(RecordedStep("clear_state", {"app_id": start}, _CLEAN, optional=True))
                if action != "launch_app":
                    out.append(RecordedStep("launch_app", {"app_id": start}))
                started = start
        out.append(RecordedStep(action, args, _comments(record)))
        after = record.scene
        following = passed[n + 1].step.action if n + 1 < len(passed) else None
        if after is not None and action not in _CHECKS and following not in _CHECKS:
            launched = action == "launch_app" and args.get("app_id") == record.foreground_app
            if record.foreground_app != app and record.foreground_app and not launched:
                out.append(
                    RecordedStep("assert_app", {"app_id": record.foreground_app}, ("the app reached",))
                )
            elif record.page != page and record.page:
                text = _marker(before, after, _shown_expected(record))
                if text is not None:
                    out.append(
                        RecordedStep(
                            "wait_for", {"target": {"text": text}}, (f"the page reached: {record.page}",)
                        )
                    )
        before = after if after is not None else before
        app = record.foreground_app or app
        page = record.page or page
    return RecordedFlow(name=name, platform=platform, steps=tuple(out), app_id=started, header=tuple(header))


def check_written(text: str, format: str, variables: Sequence[str]) -> None:
    """Read a saved flow back as `amc run` would (its variables given placeholder values), so a flow
    the loader would refuse is never left behind: a ``ConfigError`` saying what it refused."""
    if format != "amc":
        return  # the Maestro dialect is read by its own reader (issue 32)
    from ..flows import FlowValidationError, parse_flow

    try:
        parse_flow(text, file="<saved flow>", environ={name: "x" for name in variables})
    except (FlowValidationError, HarnessError) as exc:
        raise ConfigError(f"the saved flow would not load: {exc}") from exc


def save_flow(flow: RecordedFlow, path: Path, format: str) -> str:
    """Write ``flow`` in ``format`` to ``path`` (through a temporary file beside it); returns the text."""
    from ..flows.recorded import write_flow
    from ..storage.report import write_text_file

    text = write_flow(flow, format)
    check_written(text, format, flow.needs())
    write_text_file(path, text, what="the saved flow")
    return text
