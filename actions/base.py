"""What an action is: the one description every part of the harness derives its view of it from.

An :class:`Action` holds, once, everything about one thing a step can do: its arguments with their
kinds and bounds (:class:`Param`, checked by :meth:`Action.validate` when the step is built, the
same way for a flow step, an agent's call and an MCP call), how the project's flow files write it
(:class:`FlowForm`), its handler, whether it may be sent again after a transient failure
(``idempotent``), whether the screen changes after it (``changes_screen``: the next look waits for
the screen to settle), how long it waits for the screen by default (``waits``) and what a tool or
the docs say about it. The executor's table, the flow commands, the agent's and MCP tools, the
inspector's recorder and the command table in docs/flows.md are all read from these.

A handler gets the driver, the checked arguments and the :class:`Screen` (the task's one way to
look at the device: the latest observation, another look, a pause between looks). It returns what
the step's result records, or raises a ``HarnessError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.errors import StepArgumentError
from ..core.steps import SELECTOR_KEYS
from ..drivers.base import Driver
from ..semantic.models import Observation
from ..world.models import WorldState
from .kinds import Kind, Seconds

__all__ = [
    "BACKENDS",
    "COMMON_KEYS",
    "KINDS",
    "MAX_SETTLE",
    "Action",
    "FlowForm",
    "Handler",
    "MaestroForm",
    "Param",
    "Screen",
    "Unsupported",
]

# Arguments every step may carry: values to remember in the world, whether they (or the typed text)
# are secret (true, or the list of the remembered names that are), and how long the screen may take
# to settle after the step (seconds; 0: do not wait; Maestro's `waitToSettleTimeoutMs`).
COMMON_KEYS = frozenset({"remember", "secret", "settle"})
MAX_SETTLE = 60.0
# The backends a step may run on, by ``Driver.backend`` (the faces of the simulated device run
# the adapter of their protocol: sim+adb is u2, sim+wda is wda, sim+appium is appium).
BACKENDS: tuple[str, ...] = ("sim", "u2", "wda", "appium")
# What kind of device a step runs on, where that decides what it can do: an iOS Simulator (which
# ``xcrun simctl`` reaches: an app's data, its permissions, the keychain) or a device (a physical
# iPhone; every Android phone or emulator, whose adb reaches all of these). How a spec names it
# without a device being asked: :func:`amc.connect.kinds.spec_kind`.
KINDS: tuple[str, ...] = ("simulator", "device")


class Screen(Protocol):
    """What a step sees of the device, through the task's one observer: the latest look, another
    look, the app in front when a look does not say, and a pause between looks (which a stop
    request, such as Ctrl-C, cuts short by raising)."""

    @property
    def latest(self) -> Observation | None: ...

    @property
    def world(self) -> WorldState | None: ...

    def observe(self) -> Observation: ...

    def current_app(self) -> str | None: ...

    def pause(self, seconds: float) -> None: ...


Handler = Callable[[Driver, Mapping[str, Any], Screen], Any]


@dataclass(frozen=True)
class Param:
    """One argument: its name, its kind (what values it takes), what it means (``doc``, shown to
    agents and in the docs), whether it is required, its default, and other names flows accept
    for it (``aliases``). ``inline``: a selector whose fields may also be given beside it.
    ``agents``: whether the agents' tools show it (a flow-only knob such as a poll interval is
    left out of every tool schema, which each request to a model carries)."""

    name: str
    kind: Kind
    doc: str
    required: bool = False
    default: Any = None
    aliases: tuple[str, ...] = ()
    inline: bool = False
    agents: bool = True  # offered to agents (MCP and LLM tools); False: flows only (a tuning knob)


@dataclass(frozen=True)
class FlowForm:
    """How a flow dialect writes an action: its command name, the argument a plain value fills
    (``tap: OK`` is a tap on the text OK), whether it may be written alone (``- hide_keyboard``),
    and, when a flow writes its value otherwise than as its arguments, how (``written``, for the
    docs: ``remember: {name: value}``)."""

    command: str
    short: str | None = None
    bare: bool = False
    written: str | None = None


@dataclass(frozen=True)
class MaestroForm:
    """How a Maestro flow writes an action (``docs/maestro.md`` lists them all).

    ``command``: Maestro's command name; ``short``: the Maestro option a plain value fills
    (``tapOn: OK`` is the selector's text, ``eraseText: 5`` its count); ``bare``: it may be written
    alone (``- back``); ``selector``: its value is a Maestro selector, whose fields stand beside
    its options; ``options``: each Maestro option and the action's argument it becomes;
    ``millis``: the options Maestro writes in milliseconds (the action takes seconds); ``fixed``:
    arguments the command always sets; ``lookup``: it waits for its element by Maestro's lookup
    timeout (17 s, 7 s when optional); ``note``: what differs from Maestro, and why; ``ignored``:
    options read and not used (the note says why)."""

    command: str
    short: str | None = None
    bare: bool = False
    selector: bool = False
    options: Mapping[str, str] = field(default_factory=dict)
    millis: frozenset[str] = frozenset()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    lookup: bool = False
    note: str = ""
    ignored: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Unsupported:
    """Where an action cannot run: on ``backends`` (names of :data:`BACKENDS`; empty: all), for
    devices of ``platforms`` (empty: both) and ``kinds`` (names of :data:`KINDS`; empty: both),
    always or only when its argument ``when`` is given (and not false) and, with ``only``, when
    ``only(args)`` says so (a rule that depends on an option's value); ``reason`` says why, for the
    check that runs before a flow does and for the refusal when a step runs anyway. The drivers
    refuse the same steps themselves (``tests/contract/test_unsupported_agreement.py`` runs every
    action, option and backend to hold the two together)."""

    reason: str
    backends: frozenset[str] = frozenset()
    platforms: frozenset[str] = frozenset()
    when: str | None = None
    kinds: frozenset[str] = frozenset()
    only: Callable[[Mapping[str, Any]], bool] | None = None

    def applies(self, args: Mapping[str, Any], backend: str, platform: str, kind: str = "device") -> bool:
        if self.backends and backend not in self.backends:
            return False
        if self.platforms and platform not in self.platforms:
            return False
        if self.kinds and kind not in self.kinds:
            return False
        if self.when is not None and args.get(self.when) in (None, False):
            return False
        return self.only is None or self.only(args)


@dataclass(frozen=True)
class Action:
    """One action, described once (see the module's docstring)."""

    name: str
    summary: str
    handler: Handler
    params: tuple[Param, ...] = ()
    idempotent: bool = False
    changes_screen: bool = False
    looks_after: bool = True
    waits: float | None = None
    flow: FlowForm | None = None
    check: Callable[[dict[str, Any]], None] | None = None
    note: str = ""
    offered: bool = True
    maestro: tuple[MaestroForm, ...] = ()
    unsupported: tuple[Unsupported, ...] = ()
    ran_for: str | None = None  # the argument saying how long it ran before its turn (counted in its time)
    _by_name: Mapping[str, Param] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names: dict[str, Param] = {}
        for param in self.params:
            for name in (param.name, *param.aliases):
                if name in names:
                    raise ValueError(f"action {self.name}: argument name {name!r} is used twice")
                names[name] = param
        object.__setattr__(self, "_by_name", names)

    @property
    def keys(self) -> frozenset[str]:
        """Every argument name the action takes (aliases and inline selector fields included)."""
        inline = SELECTOR_KEYS if any(p.inline for p in self.params) else frozenset()
        return frozenset(self._by_name) | inline

    def param(self, name: str) -> Param | None:
        return self._by_name.get(name)

    def cannot_run(
        self, args: Mapping[str, Any], backend: str, platform: str, kind: str = "device"
    ) -> str | None:
        """Why a step of this action with ``args`` cannot run on ``backend`` for a device of
        ``platform`` and ``kind`` (:data:`KINDS`), or None when it can."""
        for entry in self.unsupported:
            if entry.applies(args, backend, platform, kind):
                return entry.reason
        return None

    def as_written(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Checked ``args`` as a person writes them: without the values that only repeat a
        parameter's default (what :meth:`validate` fills in)."""
        out = dict(args)
        for param in self.params:
            if param.default is not None and out.get(param.name) == param.default:
                del out[param.name]
        return out

    def validate(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """``args`` checked, by the action's own parameter names (an alias becomes the name it stands
        for, inline selector fields become the selector), defaults filled in and the common
        arguments kept; ``StepArgumentError`` naming the first wrong argument otherwise."""
        if not isinstance(args, Mapping):
            raise StepArgumentError(
                f"{self.name}: the arguments must be a mapping, got {type(args).__name__}"
            )
        keys = self.keys
        unknown = sorted(str(k) for k in args if k not in keys and k not in COMMON_KEYS)
        if unknown:
            taken = ", ".join(sorted(keys | COMMON_KEYS)) or "no arguments"
            raise StepArgumentError(
                f"{self.name} does not take argument(s) {', '.join(unknown)}; it takes: {taken}",
                argument=unknown[0],
            )
        out: dict[str, Any] = {}
        for param in self.params:
            given = [name for name in (param.name, *param.aliases) if name in args]
            if param.inline:
                fields = {k: v for k, v in args.items() if k in SELECTOR_KEYS}
                if fields and given:
                    raise StepArgumentError(
                        f"{self.name} takes its selector under {param.name!r} or as fields, not both",
                        argument=sorted(fields)[0],
                    )
                if fields:
                    out[param.name] = param.kind.check(fields, param.name)
                    continue
            if not given or args[given[0]] is None:
                if param.required:
                    names = ", ".join((param.name, *param.aliases))
                    wanted = f"one of {names}" if param.aliases else f"argument {param.name!r}"
                    raise StepArgumentError(f"{self.name} needs {wanted}", argument=param.name)
                if param.default is not None:
                    out[param.name] = param.default
                continue
            out[param.name] = param.kind.check(args[given[0]], given[0])
        if "secret" in args and "secret" not in out:
            secret = args["secret"]
            listed = isinstance(secret, list) and all(isinstance(n, str) for n in secret)
            if not isinstance(secret, bool) and not listed:
                raise StepArgumentError(
                    f"argument 'secret' must be true or false (or the list of the remembered names that "
                    f"are secret), got {secret!r:.80}",
                    argument="secret",
                )
            out["secret"] = secret
        if "settle" in args:
            out["settle"] = Seconds(MAX_SETTLE).check(args["settle"], "settle")
        if "remember" in args and "remember" not in out:
            out["remember"] = args["remember"]  # the world model's to read (tolerant by design)
        if self.check is not None:
            self.check(out)
        return out
