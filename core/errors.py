"""The harness's one exception tree.

Every error the harness raises on purpose is a :class:`HarnessError`. The tree is split by
category so callers (the task loop, the CLI, the pytest plugin) can decide what to do without
knowing which backend raised it::

    HarnessError
    ├── DeviceError            the device or its automation server misbehaved
    │   ├── DriverUnavailable  nothing answers where the driver was pointed
    │   ├── DeviceOffline      adb says offline / unauthorized, the phone is locked …
    │   ├── SessionLost        the automation session went away (transient)
    │   ├── DeviceTimeout      a request got no answer in time (transient)
    │   └── ReplyTooLarge      a reply held more bytes than the harness reads of one
    ├── AppError               the app under test, not the device
    │   ├── AppNotInstalled
    │   └── AppLaunchFailed
    ├── LeaseTimeout           no device became free within the wait (a pool's, a lease file's)
    ├── PoolExhausted          every device a pool task could use was retired (or none matches)
    ├── TargetNotFound         a selector matched nothing usable on the Scene
    ├── AssertionFailed        a flow's check (assert_visible, assert_app …) did not hold
    ├── SceneParseError        a UI tree could not be read
    ├── FlowError              a flow file is invalid
    │   └── ScriptSyntaxError  a flow's JavaScript cannot be parsed (found before anything runs)
    ├── ScriptError            a flow's JavaScript failed as it ran: it threw, or a value was out of bounds
    │   ├── ScriptTimeout      it ran past its time limit
    │   └── ScriptMemoryExceeded  it allocated past its memory limit
    ├── ConfigError            configuration, environment or a device spec is invalid
    ├── StepArgumentError      a planned step names an unknown action or has bad arguments
    ├── ModelReplyError        a language model's reply could not be used
    ├── ModelServerError       a language model's server did not answer (infrastructure)
    ├── GuardrailViolation     a step or a screen outside what the task allows (``--allow-app``)
    └── Interrupted            the run was asked to stop (Ctrl-C): not a failure of anything

Backend adapters map their client library's exceptions into this tree with a table and chain
the original (``raise X(...) from exc``).
"""

from __future__ import annotations

__all__ = [
    "AppError",
    "AppLaunchFailed",
    "AppNotInstalled",
    "AssertionFailed",
    "ConfigError",
    "DeviceError",
    "DeviceOffline",
    "DeviceTimeout",
    "DriverUnavailable",
    "FlowError",
    "GuardrailViolation",
    "HarnessError",
    "Interrupted",
    "LeaseTimeout",
    "ModelReplyError",
    "ModelServerError",
    "PoolExhausted",
    "ReplyTooLarge",
    "SceneParseError",
    "ScriptError",
    "ScriptMemoryExceeded",
    "ScriptSyntaxError",
    "ScriptTimeout",
    "SessionLost",
    "StepArgumentError",
    "TargetNotFound",
    "Unsupported",
    "is_transient",
]


class HarnessError(Exception):
    """Root of every error the harness raises on purpose.

    ``category`` names the branch of the tree (``"device"``, ``"app"`` …); ``transient`` says
    whether repeating the same idempotent call may succeed. ``hint`` is a short, actionable fix
    shown to the user after the message.
    """

    category: str = "harness"
    transient: bool = False

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} (hint: {self.hint})"
        return self.message

    @property
    def kind(self) -> str:
        """The error's kind as recorded in a failed step: its class name."""
        return type(self).__name__


# --- device -------------------------------------------------------------------------------


class DeviceError(HarnessError):
    """The device, its connection or its automation server failed."""

    category = "device"


class DriverUnavailable(DeviceError):
    """Nothing answers at the address the driver was given (refused, no route, no server)."""


class DeviceOffline(DeviceError):
    """The device is known but cannot be driven (adb ``offline``/``unauthorized``, locked …)."""

    def __init__(self, message: str, *, state: str | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.state = state


class SessionLost(DeviceError):
    """The automation session was dropped by the device side; a new one may work."""

    transient = True


class DeviceTimeout(DeviceError):
    """A device request got no answer within the configured timeout."""

    transient = True

    def __init__(self, message: str, *, timeout: float | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.timeout = timeout


class ReplyTooLarge(DeviceError):
    """A server (a device's, or a model's) sent a reply larger than the harness reads of one;
    ``limit`` is that size in bytes. Nothing past it is read or kept."""

    def __init__(self, message: str, *, limit: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.limit = limit


# --- app ----------------------------------------------------------------------------------


class AppError(HarnessError):
    """The app under test could not be handled as asked."""

    category = "app"

    def __init__(self, message: str, *, app_id: str | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.app_id = app_id


class AppNotInstalled(AppError):
    """The named app (package / bundle id) is not installed on the device."""


class AppLaunchFailed(AppError):
    """The app was asked to start but did not reach the foreground in time."""


# --- everything else ----------------------------------------------------------------------


class Unsupported(HarnessError):
    """The backend cannot do what was asked on this platform (the message says what can)."""

    category = "unsupported"


class LeaseTimeout(HarnessError):
    """No device became free within the wait: a ``DevicePool`` lease, or the pytest plugin's
    cross-process lease on a device. ``holder`` says who held it, when known."""

    category = "pool"

    def __init__(self, message: str, *, holder: str | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.holder = holder


class PoolExhausted(HarnessError):
    """Every device that could serve a ``DevicePool`` task was retired after a device error (or
    none matches the task's platform)."""

    category = "pool"


class TargetNotFound(HarnessError):
    """A selector matched nothing, or only elements that cannot be acted on."""

    category = "target"


class AssertionFailed(HarnessError):
    """A check a flow or planner asked for did not hold on the device (the app is fine, the test is not)."""

    category = "assertion"


class ModelReplyError(HarnessError):
    """A language model planner got a reply it cannot act on (no tool call, an unknown tool,
    arguments that are not a JSON object): the model's doing, recorded as a failed step."""

    category = "planner"


class ModelServerError(HarnessError):
    """The language model's server did not answer (unreachable, timed out, an HTTP error, a body
    that is no completion): infrastructure, never counted against the model; the task stops with
    status ``infrastructure_error`` (exit 3)."""

    category = "infrastructure"


class GuardrailViolation(HarnessError):
    """A step, or what the device shows, is outside what the task allows: a ``launch_app`` of an app
    not in the allowed apps, or the device staying in such an app."""

    category = "guardrail"


class SceneParseError(HarnessError):
    """A UI tree dump could not be turned into a Scene.

    ``format`` is the source format that was tried (``"uiautomator"``, ``"wda-xml"`` …) and
    ``position`` where reading stopped (a byte offset, or ``line:column``) when known.
    """

    category = "parse"

    def __init__(
        self,
        message: str,
        *,
        format: str | None = None,
        position: str | int | None = None,
        hint: str | None = None,
    ) -> None:
        details = []
        if format:
            details.append(f"format {format}")
        if position is not None:
            details.append(f"at {position}")
        full = f"{message} [{', '.join(details)}]" if details else message
        super().__init__(full, hint=hint)
        self.format = format
        self.position = position


class FlowError(HarnessError):
    """A flow file is invalid; names the file, line and column when known."""

    category = "flow"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(_located(message, file, line, column), hint=hint)
        self.file = file
        self.line = line
        self.column = column


def _located(message: str, file: str | None, line: int | None, column: int | None) -> str:
    """``file:line:column: message``, with what is known of the place (nothing: the message alone)."""
    if file is None:
        return message
    where = file
    if line is not None:
        where += f":{line}"
        if column is not None:
            where += f":{column}"
    return f"{where}: {message}"


class ScriptSyntaxError(FlowError):
    """A flow's JavaScript (a ``${...}`` expression, an ``evalScript``, a ``runScript`` file) cannot be
    parsed. A bad flow, like any other ``FlowError``: ``amc check`` reports it before anything runs.
    ``js_message`` is the engine's own words, without the place or the name."""

    def __init__(
        self,
        js_message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(f"SyntaxError: {js_message}", file=file, line=line, column=column, hint=hint)
        self.js_name = "SyntaxError"
        self.js_message = js_message


class ScriptError(HarnessError):
    """A flow's JavaScript failed as it ran: it threw (``js_name`` is the JavaScript error's name,
    ``TypeError``, and ``js_message`` its message; the message reads ``TypeError: ...``), or a value
    crossing between JavaScript and the harness was out of bounds (no ``js_name``).
    ``file``/``line``/``column`` say where in the flow or script file, when known; ``logs`` holds
    what the script wrote with ``console.log`` before it failed."""

    category = "script"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        js_name: str | None = None,
        js_message: str | None = None,
        logs: tuple[str, ...] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(_located(message, file, line, column), hint=hint)
        self.file = file
        self.line = line
        self.column = column
        self.js_name = js_name
        self.js_message = js_message
        self.logs = logs


class ScriptTimeout(ScriptError):
    """A script ran past its time limit (``limit`` seconds, wall clock) and was stopped."""

    def __init__(
        self, message: str, *, limit: float, file: str | None = None, logs: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message, file=file, logs=logs, hint="a loop that never ends, or a slow HTTP call")
        self.limit = limit


class ScriptMemoryExceeded(ScriptError):
    """A script allocated past its memory limit (``limit`` bytes of JavaScript heap) and was stopped."""

    def __init__(
        self, message: str, *, limit: int, file: str | None = None, logs: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message, file=file, logs=logs, hint="a value that grows without end")
        self.limit = limit


class ConfigError(HarnessError):
    """Configuration, an environment variable, a CLI argument or a device spec is invalid."""

    category = "config"


class StepArgumentError(HarnessError):
    """A planned step names an unknown action or carries arguments the action cannot use.

    ``argument`` names the argument that was wrong when one was (a flow file points at its value).
    """

    category = "argument"

    def __init__(self, message: str, *, hint: str | None = None, argument: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.argument = argument


class Interrupted(HarnessError):
    """The run was asked to stop (Ctrl-C) and stopped here, between two looks or two steps.

    Not a failure of the device, the app or a check: a step that ends this way is recorded as
    ``interrupted`` and the task ends ``interrupted``.
    """

    category = "interrupted"


def is_transient(exc: BaseException) -> bool:
    """True when repeating the same idempotent call may succeed (``SessionLost``, ``DeviceTimeout``)."""
    return isinstance(exc, HarnessError) and exc.transient
