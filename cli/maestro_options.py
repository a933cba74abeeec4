"""Maestro's ``maestro test`` command line, as one table: every option its ``TestCommand`` and the
``maestro`` command itself (``App``, ``DisableAnsiMixin``) declare, what ``amc test`` does with it,
and why when it does nothing.

Facts from Maestro's source (mobile-dev-inc/maestro, ``maestro-cli/src/main/java/maestro/cli/``):
``command/TestCommand.kt`` (the ``test`` options: ``--config``, ``-s/--shards``, ``--shard-split``,
``--shard-all``, ``-c/--continuous``, ``-e/--env``, ``--format``, ``--test-suite-name``,
``--output``, ``--debug-output``, ``--test-output-dir``, ``--flatten-debug-output``,
``--include-tags``/``--exclude-tags`` (split at commas), ``--headless``, ``--screen-size``,
``--analyze``, ``--api-url``, ``--api-key``, ``--reinstall-driver`` (negatable),
``--apple-team-id``, ``-p/--platform``, ``--device/--udid``, ``--driver-host-port``), ``App.kt``
(the same ``-p``, ``--device/--udid`` before ``test``, ``--host``, ``--port``, ``--verbose``),
``DisableAnsiMixin.kt`` (``--no-color``/``--no-ansi``, negatable) and ``report/ReportFormat.kt``
(``JUNIT`` .xml, ``HTML`` .html, ``HTML_DETAILED``, ``NOOP``; picocli reads enum values
case-insensitively, ``setCaseInsensitiveEnumValuesAllowed(true)`` in ``App.kt``).

A ``mapped`` option means the same here (through ``amc run``'s machinery); an ``accepted`` one is
taken and does nothing, with a note saying why; a ``refused`` one stops the command with exit 2
and the reason. :data:`OPTIONS` is the one table: the parser, the notes and the option table in
docs/maestro.md are all read from it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..runtime.recording import SCREENSHOT_POLICIES

__all__ = ["FORMATS", "OPTIONS", "MaestroOption", "add_options", "hoist", "markdown_table"]

Kind = Literal["mapped", "accepted", "refused"]
# ReportFormat.kt's values (HTML_DETAILED is written html-detailed on the command line); the file
# name Maestro writes when --output is not given is "report" + the format's extension.
FORMATS = {"junit": ".xml", "html": ".html", "html-detailed": ".html", "noop": None}


@dataclass(frozen=True)
class MaestroOption:
    """One option of ``maestro test``: its spellings, its value (None: a flag), what ``amc test``
    does with it, and ``source``: where Maestro declares it."""

    names: tuple[str, ...]
    value: str | None
    kind: Kind
    meaning: str
    source: str = "TestCommand.kt"
    repeat: bool = False
    negation: str | None = None  # picocli's negatable flag: --no-X (or --X for --no-X)

    @property
    def dest(self) -> str:
        return max(self.names, key=len).lstrip("-").replace("-", "_")


OPTIONS: tuple[MaestroOption, ...] = (
    MaestroOption(
        ("--config",),
        "FILE",
        "mapped",
        "the workspace config file of the folder given (instead of its config.yaml), read as "
        "`amc run FOLDER` reads one",
    ),
    MaestroOption(
        ("-e", "--env"),
        "KEY=VALUE",
        "mapped",
        "a ${KEY} value for the flows, as `amc run --env` (wins over the shell's and the flow's env:)",
        repeat=True,
    ),
    MaestroOption(
        ("--include-tags",),
        "TAGS",
        "mapped",
        "run only flows with one of these tags (comma-separated, repeatable), added to the config's",
        repeat=True,
    ),
    MaestroOption(
        ("--exclude-tags",),
        "TAGS",
        "mapped",
        "leave out flows with any of these tags (comma-separated, repeatable), added to the config's",
        repeat=True,
    ),
    MaestroOption(
        ("--format",),
        "FORMAT",
        "mapped",
        "junit: Maestro's JUnit XML; html (and html-detailed): one HTML page of every flow, linking "
        "each flow's own report; noop (the default): no report file",
    ),
    MaestroOption(
        ("--output",),
        "FILE",
        "mapped",
        "where --format writes (default: report.xml / report.html in the current folder, as Maestro)",
    ),
    MaestroOption(("--test-suite-name",), "NAME", "mapped", "the JUnit testsuite name (default: Test Suite)"),
    MaestroOption(
        ("--debug-output",),
        "DIR",
        "mapped",
        "Maestro's debug folder: DIR/.maestro/tests/<date_time>/ with maestro.log, "
        "commands-(<flow>).json and the screenshots (default DIR: your home folder, as Maestro)",
    ),
    MaestroOption(
        ("--flatten-debug-output",),
        None,
        "mapped",
        "the debug files straight into the --debug-output folder, no dated subfolder",
    ),
    MaestroOption(
        ("--test-output-dir",),
        "DIR",
        "mapped",
        "where the run folders go (`amc run --out`; default: the workspace's testOutputDir, else runs)",
    ),
    MaestroOption(
        ("--shard-split",),
        "N",
        "mapped",
        "share the flows out across N devices (the first N of --device, else N simulated devices)",
    ),
    MaestroOption(
        ("--shard-all",),
        "N",
        "mapped",
        "run every flow on each of N devices (`amc run --each-device`)",
    ),
    MaestroOption(
        ("-s", "--shards"),
        "N",
        "mapped",
        "deprecated by Maestro: --shard-split N, with Maestro's warning",
    ),
    MaestroOption(
        ("-c", "--continuous"),
        None,
        "mapped",
        "run again each time a file of the flows' folders changes (polled); Ctrl-C ends it (exit 130)",
    ),
    MaestroOption(
        ("--device", "--udid"),
        "IDS",
        "mapped",
        "the device(s), comma-separated: an amc device spec (sim:android, u2:SERIAL, wda:URL, "
        "appium:URL …) or an attached device's id (emulator-5554, a UDID)",
        source="TestCommand.kt, App.kt",
    ),
    MaestroOption(
        ("-p", "--platform"),
        "PLATFORM",
        "mapped",
        "android or ios: the simulated device's platform when no --device is given; web is refused "
        "(amc drives no browser)",
        source="TestCommand.kt, App.kt",
    ),
    MaestroOption(
        ("--no-ansi", "--no-color"),
        None,
        "accepted",
        "amc's console prints no colour or cursor codes at all",
        source="DisableAnsiMixin.kt",
        negation="--ansi",
    ),
    MaestroOption(
        ("--verbose",),
        None,
        "accepted",
        "every run's log is kept in its run folder (run.log), and in maestro.log with --debug-output",
        source="App.kt",
    ),
    MaestroOption(
        ("--headless",),
        None,
        "accepted",
        "Maestro's web-only option (a headless browser); amc drives no browser",
    ),
    MaestroOption(
        ("--screen-size",),
        "WxH",
        "accepted",
        "Maestro's web-only option (the headless browser's size); amc drives no browser",
    ),
    MaestroOption(
        ("--reinstall-driver",),
        None,
        "accepted",
        "amc installs no driver app of Maestro's; each backend's server (WebDriverAgent, the "
        "uiautomator2 server, Appium) is the one the device spec names",
        negation="--no-reinstall-driver",
    ),
    MaestroOption(
        ("--apple-team-id",),
        "ID",
        "accepted",
        "Maestro signs its own iOS driver with it; amc drives a physical iPhone through the "
        "WebDriverAgent you build and sign (wda:URL)",
    ),
    MaestroOption(
        ("--driver-host-port",),
        "PORT",
        "accepted",
        "the port of Maestro's own driver; amc's drivers take their address from the device spec",
    ),
    MaestroOption(
        ("--analyze",),
        None,
        "accepted",
        "Maestro's AI insights are a service of Maestro's cloud; nothing is sent anywhere "
        "(amc's report shows every step with its screen)",
    ),
    MaestroOption(("--api-url",), "URL", "accepted", "only used by --analyze (Maestro's cloud)"),
    MaestroOption(
        ("--api-key",), "KEY", "accepted", "only used by --analyze (Maestro's cloud); hidden in all output"
    ),
    MaestroOption(
        ("--host",),
        "HOST",
        "refused",
        "Maestro's address of a remote adb; name the device with an amc spec instead "
        "(u2:SERIAL with ANDROID_ADB_SERVER_HOST, or appium:URL)",
        source="App.kt",
    ),
    MaestroOption(
        ("--port",),
        "PORT",
        "refused",
        "Maestro's port of a remote adb; name the device with an amc spec instead "
        "(u2:SERIAL with ANDROID_ADB_SERVER_PORT, or appium:URL)",
        source="App.kt",
    ),
)

# The options of `maestro` itself, written before `test` (`maestro --device X test …`).
GLOBAL_NAMES: tuple[str, ...] = ("--device", "--udid", "-p", "--platform", "--host", "--port", "--verbose")
GLOBAL_NAMES += ("--no-ansi", "--no-color", "--ansi")
AMC_VALUE_OPTIONS = ("--screenshots",)  # amc's own options of `amc test` that take a value


def _by_name() -> dict[str, MaestroOption]:
    names = {name: option for option in OPTIONS for name in option.names}
    names.update({option.negation: option for option in OPTIONS if option.negation})
    return names


def _takes_value(token: str) -> bool:
    """Whether ``token`` (an option without ``=value``) takes the next word as its value."""
    option = _by_name().get(token)
    return token in AMC_VALUE_OPTIONS or (option is not None and option.value is not None)


def hoist(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``amc test``'s words in the order argparse reads: Maestro's global options
    written before ``test`` (``--device X test``) moved after it, and the flow paths after every
    option (picocli takes them anywhere: ``test a.yaml --format junit b.yaml``). Any other command
    line is returned as it is."""
    words = list(argv)
    head: list[str] = []
    i = 0
    while i < len(words) and words[i] != "test":
        name = words[i].split("=", 1)[0]
        if name not in GLOBAL_NAMES:
            return words
        takes = "=" not in words[i] and _takes_value(name)
        head.extend(words[i : i + 1 + takes])
        i += 1 + takes
    if i >= len(words):
        return words
    options: list[str] = []
    paths: list[str] = []
    rest = words[i + 1 :]
    j = 0
    while j < len(rest):
        word = rest[j]
        if word == "--":
            paths.extend(rest[j + 1 :])
            break
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            takes = "=" not in word and _takes_value(name) and not _attached(word)
            options.extend(rest[j : j + 1 + takes])
            j += 1 + takes
            continue
        paths.append(word)
        j += 1
    return ["test", *head, *options, *paths]


def _attached(word: str) -> bool:
    """``-eKEY=VALUE``: a short option with its value written on."""
    return len(word) > 2 and word[1] != "-" and word[:2] in _by_name()


def _format(text: str) -> str:
    value = text.strip().lower().replace("_", "-")
    if value not in FORMATS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(FORMATS)}, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"expected a number of devices from 1 to 64, got {value}")
    return value


def add_options(parser: argparse.ArgumentParser) -> None:
    """Every option of :data:`OPTIONS` on ``parser``, and amc's own ``--screenshots``."""
    parser.add_argument(
        "flows", nargs="+", metavar="PATH", help="flow files and folders (a workspace: its config.yaml)"
    )
    types = {"format": _format, "shard_split": _count, "shard_all": _count, "shards": _count}
    group = parser.add_argument_group("maestro test options (see docs/maestro.md for each)")
    for option in OPTIONS:
        help_text = f"[{option.kind}] {option.meaning}".replace("%", "%%")
        if option.value is None:
            if option.negation is None:
                group.add_argument(*option.names, dest=option.dest, action="store_true", help=help_text)
                continue
            # picocli's negatable flag: given either way or not at all (None)
            group.add_argument(
                *option.names, dest=option.dest, action="store_const", const=True, help=help_text
            )
            group.add_argument(
                option.negation, dest=option.dest, action="store_const", const=False, help=argparse.SUPPRESS
            )
            continue
        group.add_argument(
            *option.names,
            dest=option.dest,
            metavar=option.value,
            action="append" if option.repeat else "store",
            type=types.get(option.dest, str),
            help=help_text,
        )
    parser.add_argument(
        "--screenshots",
        choices=SCREENSHOT_POLICIES,
        default="failure",
        help="amc's own: pictures kept besides `takeScreenshot` steps: failure (the default, as "
        "Maestro), always (every step: the report's filmstrip shows the whole run) or never",
    )


def markdown_table() -> str:
    """The option table of docs/maestro.md, one row per option of :data:`OPTIONS`."""
    rows = ["| Maestro option | amc test | what it does here | declared in |", "|---|---|---|---|"]
    for option in OPTIONS:
        spelled = ", ".join(f"`{n}{' ' + option.value if option.value else ''}`" for n in option.names)
        if option.negation:
            spelled += f" (and `{option.negation}`)"
        meaning = option.meaning.replace("|", "\\|")
        rows.append(f"| {spelled} | {option.kind} | {meaning} | {option.source} |")
    return "\n".join(rows) + "\n"
