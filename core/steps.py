"""What a step names and what it hides: the rules every layer reads a step's arguments by.

- the app a ``launch_app`` / ``terminate_app`` acts on (:func:`app_id_from_args`);
- the secret rule (:func:`hide_secrets`): a step with ``secret: true`` keeps its ``text`` /
  ``value`` and the values under ``remember`` out of everything recorded, shown as ``***``
  (``secret: [names]``: only those names under ``remember``); the
  world model's history and the run timeline's redactor both apply it from here;
- a few words on what a step acts on, for console lines and reports (:func:`describe_step`);
- what an executed step's outcome counts as (:func:`step_status`): ``passed``, ``failed``,
  ``skipped``, ``warning`` or ``retried``; only ``failed`` fails a task;
- :class:`StepRecord`, one executed step as the task loop keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError, Interrupted
from .models import PlannedStep, Scene, StepResult
from .selectors import Selector

__all__ = [
    "APP_ID_KEYS",
    "REDACTED",
    "SECRET_ARG_KEYS",
    "SELECTOR_KEYS",
    "STEP_STATUSES",
    "StepRecord",
    "app_id_from_args",
    "describe_step",
    "hide_secrets",
    "is_secret",
    "secret_names",
    "secret_values",
    "step_status",
]

REDACTED = "***"
APP_ID_KEYS: tuple[str, ...] = ("app_id", "bundle_id", "package")
SECRET_ARG_KEYS: tuple[str, ...] = ("text", "value")
SELECTOR_KEYS = frozenset(Selector.__dataclass_fields__)
STEP_STATUSES: tuple[str, ...] = ("passed", "failed", "skipped", "warning", "retried", "interrupted")


def step_status(step: PlannedStep, result: StepResult) -> str:
    """What an executed step counts as, the one rule the loop, planners, timeline and report read.

    ``skipped``: a ``skip`` step a planner handed out (nothing was sent to the device);
    ``warning``: a failed step whose ``on_failure`` is ``warn`` (an optional flow step);
    ``retried``: a failed step whose block runs again (``on_failure`` ``retry``);
    ``interrupted``: a step a stop request (Ctrl-C) ended before it could pass or fail;
    ``failed``: any other failure, the only status that fails a task; else ``passed``.
    """
    if result.success:
        return "skipped" if step.action == "skip" else "passed"
    if result.error_category == Interrupted.category:
        return "interrupted"
    if step.on_failure == "warn":
        return "warning"
    if step.on_failure == "retry":
        return "retried"
    return "failed"


def app_id_from_args(args: Any) -> str | None:
    """The app a launch/terminate step names under ``app_id``, ``bundle_id`` or ``package``."""
    if not isinstance(args, Mapping):
        return None
    for key in APP_ID_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def is_secret(args: Any) -> bool:
    """True when a step's arguments carry ``secret: true``."""
    return isinstance(args, Mapping) and args.get("secret") is True


def secret_names(args: Any) -> frozenset[str]:
    """The names under ``remember`` whose values are secret: all of them with ``secret: true``, those
    listed with ``secret: [names]`` (a step that remembers secret and plain values at once: what a
    flow's script put in ``output``)."""
    if not isinstance(args, Mapping):
        return frozenset()
    remember = args.get("remember")
    names = frozenset(str(k) for k in remember) if isinstance(remember, Mapping) else frozenset()
    secret = args.get("secret")
    if secret is True:
        return names
    if isinstance(secret, list | tuple):
        return names & frozenset(str(name) for name in secret)
    return frozenset()


def hide_secrets(args: Any) -> dict[str, Any]:
    """A copy of a step's arguments safe to record: with ``secret: true``, the ``text`` / ``value``
    and every value under ``remember`` become ``***`` (the names stay)."""
    if not isinstance(args, Mapping):
        return {}
    out = {str(k): v for k, v in args.items()}
    if is_secret(args):
        for key in SECRET_ARG_KEYS:
            if key in out:
                out[key] = REDACTED
    hidden = secret_names(args)
    remember = out.get("remember")
    if hidden and isinstance(remember, Mapping):
        out["remember"] = {str(k): REDACTED if str(k) in hidden else v for k, v in remember.items()}
    return out


def secret_values(args: Any) -> list[str]:
    """The values :func:`hide_secrets` hides in a step's arguments (none unless ``secret``), so
    whoever records the run can scrub them from what the step leads to (a page source, a log)."""
    found = (
        [args[key] for key in SECRET_ARG_KEYS if isinstance(args.get(key), str)] if is_secret(args) else []
    )
    hidden = secret_names(args)
    remember = args.get("remember") if isinstance(args, Mapping) else None
    if hidden and isinstance(remember, Mapping):
        for key, value in remember.items():
            if str(key) in hidden:
                found += _strings(value)
    return [value for value in found if value]


def _strings(value: Any) -> list[str]:
    """Every string inside a remembered value (a script's ``output`` may hold objects and lists)."""
    found: list[str] = []
    pending = [value]
    while pending and len(found) < 10_000:
        item = pending.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return found


def _describe_selector(args: Mapping[str, Any], *, inline: bool) -> str | None:
    raw: Any = args.get("target")
    if raw is None and inline:
        raw = {k: v for k, v in args.items() if k in SELECTOR_KEYS} or None
    if raw is None:
        return None
    try:
        return Selector.from_mapping(raw).describe()
    except ConfigError:
        return repr(raw)


def describe_step(action: str, args: Mapping[str, Any]) -> str:
    """What a step acts on, in a few words for a console line or a report; never a secret's value.

    ``type_text`` with ``secret: true`` shows ``'***'`` for its text; ``remember`` shows only names.
    """
    secret = is_secret(args)
    if action == "skip":
        return f"{args.get('skipped') or 'step'} skipped: {args.get('reason')}"
    parts: list[str] = []
    if action == "script":  # a flow's JavaScript: the Maestro command, a runScript's file
        parts.append(str(args.get("command") or "script"))
        if args.get("command") == "runScript" and isinstance(args.get("file"), str):
            parts.append(str(args["file"]).replace("\\", "/").rsplit("/", 1)[-1])
    app = app_id_from_args(args)
    if app is not None:
        parts.append(app)
    if action == "type_text" and "text" in args:
        parts.append(f"'{REDACTED}'" if secret else repr(args["text"]))
    selector = _describe_selector(args, inline=action != "type_text")  # type_text's text is not a selector
    if selector is not None:
        parts.append(("into " if action == "type_text" else "") + selector)
    if "x" in args and "y" in args:
        parts.append(f"({args['x']}, {args['y']})")
    if "direction" in args:
        parts.append(str(args["direction"]))
    elif all(k in args for k in ("x1", "y1", "x2", "y2")):
        parts.append(f"({args['x1']}, {args['y1']}) -> ({args['x2']}, {args['y2']})")
    if "key" in args:
        parts.append(str(args["key"]))
    remember = args.get("remember")
    if isinstance(remember, Mapping):
        hidden = secret_names(args)
        names = ", ".join(f"{k} (secret)" if str(k) in hidden and not secret else str(k) for k in remember)
        parts.append(f"{names} (secret)" if secret else names)
    if "url" in args:
        parts.append(str(args["url"]))
    if action == "screenshot" and "name" in args:
        parts.append(repr(args["name"]))
    if action in ("set_orientation", "set_airplane_mode", "set_dark_mode"):  # the device's state
        parts.append(str(args.get("orientation") or args.get("value") or ""))
    if action == "assert_screenshot" and isinstance(args.get("path"), str):
        parts.append(args["path"].replace("\\", "/").rsplit("/", 1)[-1])
    return " ".join(p for p in parts if p) or "-"


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One executed step: what was planned, what happened, and the screen it led to.

    ``scene`` is the observation made right after the step (None when the device could not be
    observed, and dropped once the record is older than the task's ``scene_history``); ``page``
    and ``foreground_app`` summarise it and stay. ``acted_on`` is the look the step last resolved
    its selectors on (the screen it acted on: a waiting step's last poll), dropped with ``scene``.
    After a step that changes the screen the loop waits for it to settle: ``settle_looks`` is how
    many looks that took beyond the first, ``settled`` whether it settled (None when the loop did
    not wait), ``settle_idle`` what the device's idle signal said (None: none asked or given). A
    task keeps every record, so a record is kept small: slots, no per-instance dict (see
    :mod:`amc.runtime.session` for what a long task's memory grows by).
    """

    index: int
    step: PlannedStep
    result: StepResult
    page: str | None = None
    foreground_app: str | None = None
    scene: Scene | None = field(default=None, compare=False, repr=False)
    acted_on: Scene | None = field(default=None, compare=False, repr=False)
    settle_looks: int = 0
    settled: bool | None = None
    settle_idle: bool | None = None  # what the device's idle signal said (None: not asked, or none)

    @property
    def status(self) -> str:
        """``passed``, ``failed``, ``skipped``, ``warning``, ``retried`` or ``interrupted`` (see
        :func:`step_status`)."""
        return step_status(self.step, self.result)

    @property
    def failed(self) -> bool:
        """True when this step fails the task (a warning or a retried step does not)."""
        return self.status == "failed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "step": self.step.to_dict(),
            "result": self.result.to_dict(),
            "page": self.page,
            "foreground_app": self.foreground_app,
            **(
                {"settle": _settle(self.settle_looks, self.settled, self.settle_idle)}
                if self.settled is not None
                else {}
            ),
        }


def _settle(looks: int, settled: bool | None, idle: bool | None) -> dict[str, Any]:
    """A step's ``settle`` entry: its looks, whether it settled and, where asked, the idle signal."""
    return {"looks": looks, "settled": settled, **({"idle": idle} if idle is not None else {})}
