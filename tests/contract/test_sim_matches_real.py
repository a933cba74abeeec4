"""The simulated device prints what a real device of its version prints.

Each case sets a version profile's output beside the real outputs in ``tests/fixtures/real`` from
that release, and compares the lines the clients read as *shapes*: hashes, numbers, package and
component names and window titles are the same placeholder in both, so what is left is the
layout a parser depends on (``ActivityRecord{# u# C} t#}`` on Android 13, ``rootTasks=#`` on 12,
which keys ``/status`` has, which attributes an XML element carries). Every such
line the simulated device prints must have a real counterpart, and every kind of line the real
output has must be printed. Where a release's output was not collected, the case says which
release's it is compared with instead.

Only the simulated device is on trial here; the adapters reading these outputs are tested in
``test_real_android.py`` and ``test_real_wda.py``.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

import pytest
from amc.sim.adb_shell import AndroidShell
from amc.sim.catalog import NOTES_APP
from amc.sim.device import SimDevice
from amc.sim.profiles import AndroidProfile, IosProfile
from amc.sim.wda_face import WdaFace

from tests.contract.real import json_string, real_text

SETTINGS = "com.android.settings"

# Placeholders, applied in this order.
_WINDOW = re.compile(r"Window\{[0-9a-f]+ u\d+ [^}]*\}")
_COMPONENT = re.compile(r"[\w$]+(?:\.[\w$]+)*/[\w$.]+")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.\w+)+\b")
_HEXISH = re.compile(r"[0-9a-f]*\d[0-9a-f]*")
_GREP_N = re.compile(r"^\d+: ?")  # a line number a `grep -n` (or its author) put first

# The lines the clients and the adapters read, by their first word.
KEYS = frozenset(
    {
        "Window #",
        "mDisplayId",
        "mOwnerUid",
        "mBaseLayer",
        "mActivityRecord",
        "mTopFocusedDisplayId",
        "mInputMethodTarget",
        "inputMethodControlTarget",
        "imeLayeringTarget",
        "imeInputTarget",
        "imeControlTarget",
        "Minimum",
        "mInputMethodWindow",
        "mObscuringWindow",
        "mSystemBooted",
        "mCurrentFocus",
        "mFocusedApp",
        "Display:",
        "init",
        "deferred",
        "mLayoutSeq",
        "displayId",
        "mWallpaperTarget",
        "topResumedActivity",
        "mResumedActivity:",
        "Resumed:",
        "ResumedActivity:",
        "TASK",
        "ACTIVITY",
        "args:",
        "Events",
        "##",
        "data",
        "**",
        "Starting:",
        "Status:",
        "LaunchState:",
        "Activity:",
        "TotalTime:",
        "WaitTime:",
        "Complete",
    }
)


def shape(line: str, *, indented: bool = True) -> str:
    """``line`` with its variable parts replaced by placeholders (indentation kept if ``indented``)."""
    line = _GREP_N.sub("", line.rstrip())
    if not indented:
        line = line.lstrip()
    line = _WINDOW.sub("Window{W}", line)
    line = _COMPONENT.sub("C", line)
    line = _DOTTED.sub("P", line)
    return _HEXISH.sub("#", line)


def key(line: str) -> str:
    text = _GREP_N.sub("", line).strip()
    if text.startswith("Window #"):
        return "Window #"
    return re.split(r"[=\s]", text, maxsplit=1)[0] if text else ""


_CUT = "…"  # ends a real fragment's last line, which the source cut: it matches as a prefix


def shapes(
    text: str, *, kinds: frozenset[str] = KEYS, fragment: bool = False, indented: bool = True
) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        name = key(line)
        if name in kinds:
            cut = fragment and number == len(lines)
            found.setdefault(name, set()).add(shape(line, indented=indented) + (_CUT if cut else ""))
    return found


def unmatched(simulated: set[str], real: set[str]) -> list[str]:
    """The simulated shapes no real one reads as (a cut real line reads as its beginning)."""
    whole = {line for line in real if not line.endswith(_CUT)}
    starts = [line.removesuffix(_CUT) for line in real if line.endswith(_CUT)]
    return sorted(
        line for line in simulated if line not in whole and not any(line.startswith(s) for s in starts)
    )


def android_output(api: int, command: str, *, front: str | None = SETTINGS, prompt: bool = False) -> str:
    device = SimDevice("android", profile=AndroidProfile(api))
    if prompt:
        device.launch(NOTES_APP)  # asks to post notifications on its first launch
        assert device.system_prompt() is not None
    elif front is not None:
        device.launch(front)
    return AndroidShell(device).run(command).output.decode()


@dataclass(frozen=True)
class Same:
    """The simulated ``command`` on ``api`` against real outputs of that release."""

    name: str
    api: int
    command: str
    real: tuple[str, ...]  # files under android/
    compare: str = "shape"  # "shape": the lines' layouts; "keys": only which kinds of line exist
    kinds: tuple[str, ...] = ()  # the kinds of line compared (none given: every one in KEYS)
    indented: bool = True  # False: the real output lost its indentation (quoted in a comment)
    prompt: bool = False
    front: str | None = SETTINGS  # the app in front before the command (None: the home screen)
    also: tuple[tuple[str, str], ...] = ()  # (file, kind): one more real output for that kind
    note: str = ""  # which release the real output is from, where it is not the profile's

    @property
    def compared(self) -> frozenset[str]:
        return frozenset(self.kinds) if self.kinds else KEYS


WINDOWS = "dumpsys window windows"
DISPLAYS = "dumpsys window displays"
ACTIVITIES = "dumpsys activity activities"
MONKEY = f"monkey -p {SETTINGS} -c android.intent.category.LAUNCHER 1"
START = f"am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p {SETTINGS}"

# SystemUI's window owners (the trimmed Android 14 fixture keeps these lines as they were)
SYSTEM_OWNERS = (("fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt", "mOwnerUid"),)

SAME: list[Same] = [
    Same(
        "api29 windows: stackId=, AppWindowToken",
        29,
        WINDOWS,
        (
            "pixelxl-a10-dumpsys-window-windows-fragment-nexuslauncher-stackId.txt",
            "samsung-galaxyA70-a10-dumpsys-window-windows-fragment.txt",
            "unknown-a10-dumpsys-window-displays-fragment-mTopFocusedDisplayId-snapshotcache.txt",
        ),
    ),
    Same(
        "api31 windows: rootTaskId=, ActivityRecord, ime targets",
        31,
        WINDOWS,
        ("emulator-a12-api31-aosp-dumpsys-window-windows-app-window-and-tail-imeTargets.txt",),
        also=SYSTEM_OWNERS,
    ),
    Same(
        "api33 windows: ActivityRecord{…} t#}",
        33,
        WINDOWS,
        ("emulator-a13-api33-dumpsys-window-windows-head-app-window-tail.txt",),
        also=SYSTEM_OWNERS,
    ),
    Same(
        "api34 windows: as 13's",
        34,
        WINDOWS,
        ("unknown-a13or14-dumpsys-window-windows-fragment-no-mCurrentFocus.txt",),
        also=SYSTEM_OWNERS,
    ),
    Same(
        "api35 windows",
        35,
        WINDOWS,
        ("unknown-a13or14-dumpsys-window-windows-fragment-no-mCurrentFocus.txt",),
        also=SYSTEM_OWNERS,
        note="Android 15's was not collected: compared with 13/14's",
    ),
    Same(
        "api31 displays: rootTasks=, focus in the block",
        31,
        DISPLAYS,
        ("qualcomm-snapcam-a12-dumpsys-window-displays-Display-block-focus.txt",),
    ),
    Same(
        "api33 displays: (organized), mMinSizeOfResizeableTaskDp",
        33,
        DISPLAYS,
        ("unknown-a13-dumpsys-window-displays-Display-organized-head.txt",),
    ),
    Same(
        "api34 displays",
        34,
        DISPLAYS,
        ("unknown-a14-dumpsys-window-displays-two-displays-grep.txt",),
    ),
    Same(
        "api29 activities: mResumedActivity per stack",
        29,
        ACTIVITIES,
        ("korean-blog-a8or9-dumpsys-activity-mResumedActivity-ResumedActivity.txt",),
        note="Android 10's was not collected: its resumed lines are compared with 8/9's",
    ),
    Same(
        "api33 activities: topResumedActivity={…} t#}",
        33,
        ACTIVITIES,
        ("unknown-a12plus-dumpsys-activity-findstr-topResumedActivity-kuaishou-comment.txt",),
        indented=False,
        note="quoted in a code comment; the phone is 13 or later: the brace before the task",
    ),
    Same(
        "api35 activities: the resumed blocks",
        35,
        ACTIVITIES,
        ("tablet-api36-dumpsys-activity-activities-isEmbedded.txt",),
        compare="keys",
        kinds=("topResumedActivity", "Resumed:", "ResumedActivity:"),
        note="Android 16's records add isEmbedded=: only the kinds of line are compared",
    ),
    *[
        Same(
            f"api{api} activity top: TASK and ACTIVITY lines",
            api,
            "dumpsys activity top",
            (
                "amazon-firehd10-KFTRWI-fireos7-a9-dumpsys-activity-top-grep-n.txt",
                "lineageos-dumpsys-activity-top-head.txt",
            ),
        )
        for api in (29, 34)
    ],
    Same(
        "a permission prompt takes the focus from the app",
        34,
        WINDOWS,
        ("fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt",),
        kinds=("Window #", "mOwnerUid"),
        prompt=True,
        note="a test fixture its author trimmed and edited (Session, mGlobalConfiguration, the "
        "mCurrentFocus line): the window and owner lines are compared",
    ),
    Same("monkey starts an app", 34, MONKEY, ("car-monkey-events-injected.txt",)),
    Same(
        "am start -W reports the launch",
        34,
        START,
        ("am-start-W-S-status-ok-ThisTime-blog.txt",),
        compare="keys",
        kinds=("Starting:", "Status:", "Activity:", "TotalTime:", "WaitTime:", "Complete"),
        front=None,
        note="Android 9 or older (ThisTime:); the times and LaunchState: differ by release",
    ),
]


@pytest.mark.parametrize("case", SAME, ids=[c.name for c in SAME])
def test_the_simulated_output_has_the_real_lines(case: Same) -> None:
    output = android_output(case.api, case.command, front=case.front, prompt=case.prompt)
    simulated = shapes(output, kinds=case.compared, indented=case.indented)
    real: dict[str, set[str]] = {}
    for name in case.real:
        text = real_text(f"android/{name}")
        for kind, found in shapes(text, kinds=case.compared, fragment=True, indented=case.indented).items():
            real.setdefault(kind, set()).update(found)
    for name, kind in case.also:
        text = real_text(f"android/{name}")
        real.setdefault(kind, set()).update(shapes(text, kinds=frozenset({kind})).get(kind, set()))
    assert real, f"{case.real} has none of the lines compared"
    missing = sorted(set(real) - set(simulated))
    assert not missing, f"api={case.api} {case.command!r} prints no {missing} line ({case.note})"
    if case.compare == "keys":
        return
    for kind, found in simulated.items():
        if kind in real:
            assert not unmatched(found, real[kind]), (
                f"api={case.api} {case.command!r}: {unmatched(found, real[kind])} is not how a real "
                f"{kind!r} line reads: {sorted(real[kind])} ({case.note})"
            )


def _window_titles(text: str) -> list[str]:
    return re.findall(r"^  Window #\d+ Window\{[0-9a-f]+ u0 ([^}]*)\}:", text, flags=re.MULTILINE)


def test_a_prompt_is_the_window_right_above_the_app_as_on_the_real_phone() -> None:
    real = _window_titles(
        real_text("android/fixture-a14-emulator-dumpsys-window-windows-permission-dialog-trimmed.txt")
    )
    simulated = _window_titles(android_output(34, WINDOWS, prompt=True))
    grant = next(title for title in real if title.endswith("GrantPermissionsActivity"))
    assert grant in simulated, f"no window named {grant!r}: {simulated}"
    for titles, app in ((real, "com.saucelabs.mydemoapp.android"), (simulated, NOTES_APP)):
        below = titles[titles.index(grant) + 1]
        assert below.startswith(f"{app}/"), titles


def test_a_missing_app_for_monkey_reads_as_the_real_refusal() -> None:
    real = real_text("android/car-monkey-no-activities-aborted.txt").splitlines()
    simulated = android_output(34, "monkey -p com.example.missing -c android.intent.category.LAUNCHER 1")
    assert [shape(line) for line in simulated.splitlines() if line.strip()] == [
        shape(line) for line in real if line.strip()
    ]


def test_an_intent_nothing_resolves_reads_as_the_real_refusal() -> None:
    real = real_text("android/pixel2-am-start-package-unable-to-resolve-intent-fenix.txt")
    missing = "org.mozilla.fenix.performancetest"
    command = f"am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p {missing}"
    assert android_output(34, command).splitlines() == real.splitlines()


def test_the_launch_state_line_reads_as_android_10_and_later_print_it() -> None:
    """``LaunchState: UNKNOWN (-1)`` in the real slow start: the word after it is the state."""
    real = real_text("android/react-native-cold-start-am-start-W-status-timeout.txt")
    assert re.search(r"^LaunchState: [A-Z]+", real, flags=re.MULTILINE)
    simulated = android_output(34, START, front=None)
    assert re.search(r"^LaunchState: (COLD|WARM|HOT)$", simulated, flags=re.MULTILINE), simulated


def test_android_10_and_later_keep_the_focus_out_of_the_windows_tail() -> None:
    """The real tails (whole from ``mGlobalConfiguration`` on) have no ``mCurrentFocus``; neither
    has any simulated release's ``dumpsys window windows``."""
    for name in (
        "emulator-a11-api30-dumpsys-window-windows-app-window-and-tail-no-mCurrentFocus.txt",
        "emulator-a12-api31-aosp-dumpsys-window-windows-app-window-and-tail-imeTargets.txt",
        "emulator-a13-api33-dumpsys-window-windows-head-app-window-tail.txt",
    ):
        assert "mCurrentFocus" not in real_text(f"android/{name}")
    for api in (29, 31, 33, 34, 35):
        text = android_output(api, WINDOWS)
        assert "mCurrentFocus" not in text and "mFocusedApp" not in text, api


def test_base_is_printed_only_for_an_overridden_display() -> None:
    """On the real Android 14 phone only the display whose density differs from its initial one has
    ``base=``; the simulated phone overrides nothing."""
    real = real_text("android/unknown-a14-dumpsys-window-displays-two-displays-grep.txt")
    inits = [line.split() for line in real.splitlines() if line.strip().startswith("init=")]
    for words in inits:
        initial = words[0].removeprefix("init="), words[1]
        base = next((words[n : n + 2] for n, w in enumerate(words) if w.startswith("base=")), None)
        if base is not None:
            assert (base[0].removeprefix("base="), base[1]) != initial
    assert any("base=" in " ".join(words) for words in inits)
    assert any("base=" not in " ".join(words) for words in inits)
    for api in (33, 34, 35):
        assert "base=" not in android_output(api, DISPLAYS), api


def test_android_10_names_its_focused_app_as_its_snapshot_cache_does() -> None:
    """Android 10's display block was not collected; its ``AppWindowToken`` form is, in the same
    dump's snapshot cache (``topApp=``)."""
    real = real_text(
        "android/unknown-a10-dumpsys-window-displays-fragment-mTopFocusedDisplayId-snapshotcache.txt"
    )
    tokens = {shape(line.split("=", 1)[1]) for line in real.splitlines() if "topApp=" in line}
    simulated = android_output(29, DISPLAYS)
    focused = [line.split("=", 1)[1] for line in simulated.splitlines() if "mFocusedApp=" in line]
    assert focused and {shape(value) for value in focused} <= tokens, (focused, tokens)


# --- WebDriverAgent ------------------------------------------------------------------------------


@contextmanager
def wda(ios: str, generation: str, kind: str = "simulator") -> Iterator[WdaFace]:
    face = WdaFace(SimDevice("ios", profile=IosProfile(ios, generation, kind))).start()
    try:
        yield face
    finally:
        face.stop()


def request(face: WdaFace, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(face.url + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def key_paths(value: Any, prefix: str = "") -> set[str]:
    if not isinstance(value, dict):
        return {prefix}
    paths: set[str] = set()
    for name, inner in value.items():
        paths |= key_paths(inner, f"{prefix}.{name}" if prefix else name)
    return paths


def _status_2023() -> Any:
    return json.loads(real_text("ios/wda-status-2023-05-ios15.4.1-sessionId-null.json"))


def _status_611() -> Any:
    """facebook-wda printed the value with ``sessionId`` folded in; put it back in the envelope."""
    flat = json.loads(real_text("ios/wda-6.1.1-status-iphone13pro-ios16.3.1-facebookwda-flattened.json"))
    session = flat.pop("sessionId")
    return {"value": flat, "sessionId": session}


@pytest.mark.parametrize(
    ("ios", "generation", "real", "added"),
    [
        ("15", "4", _status_2023(), set()),  # built May 2023, before 5.9
        ("17", "5", _status_611(), set()),
        # 8.3.0 added build.version (WDA PR #878); no later /status was collected
        ("18", "9", _status_611(), {"value.build.version"}),
        ("18", "10", _status_611(), {"value.build.version"}),
    ],
    ids=["wda4-vs-5.1.6", "wda5-vs-6.1.1", "wda9", "wda10"],
)
def test_status_has_the_keys_of_its_generation(ios: str, generation: str, real: Any, added: set[str]) -> None:
    """The captures are of physical iPhones; a Simulator's status adds ``ios.simulatorVersion``
    (FBSessionCommands.m, under ``TARGET_OS_SIMULATOR``)."""
    with wda(ios, generation, "device") as face:
        code, simulated = request(face, "GET", "/status")
    assert code == 200
    assert key_paths(simulated) == key_paths(real) | added
    with wda(ios, generation) as face:
        _, on_simulator = request(face, "GET", "/status")
    assert key_paths(on_simulator) == key_paths(real) | added | {"value.ios.simulatorVersion"}
    assert on_simulator["value"]["ios"]["simulatorVersion"] == on_simulator["value"]["os"]["version"]


def _attributes(xml: str, tag: str) -> list[str]:
    """The attribute names, in order, of the first ``tag`` element of ``xml`` (read as text: the
    order is part of what WDA writes, and a cut fragment need not parse)."""
    match = re.search(rf"<{tag}\s([^>]*?)/?>", xml)
    assert match is not None, f"no <{tag}> in the source"
    return re.findall(r'([A-Za-z]+)=\\?"', match.group(1))


def _source(face: WdaFace) -> str:
    code, body = request(face, "GET", "/source")
    assert code == 200
    ElementTree.fromstring(body["value"].encode())  # whole and well formed
    return str(body["value"])


WDA_16 = "ios/wda-16.2.0-ios26.6-iphone17pro-source-xml-root-processId-bundleId.txt"
WDA_2024 = "ios/wda-2024-source-springboard-icons-accessible-index.txt"


def test_wda_10_writes_the_application_attributes_of_wda_16() -> None:
    """WDA 10.1.0 added ``processId``/``bundleId`` (PR #1055); 16.2.0's root has them last."""
    with wda("18", "10") as face:
        simulated = _attributes(_source(face), "XCUIElementTypeApplication")
    assert simulated == _attributes(real_text(WDA_16), "XCUIElementTypeApplication")


def test_wda_9_writes_the_application_attributes_without_the_app() -> None:
    with wda("18", "9") as face:
        simulated = _attributes(_source(face), "XCUIElementTypeApplication")
    real = _attributes(real_text(WDA_16), "XCUIElementTypeApplication")
    assert simulated == [name for name in real if name not in {"processId", "bundleId"}]


def test_element_attributes_per_generation() -> None:
    """An icon's attributes before ``traits`` (appium WDA 2024, ≥3.8) and a button's with them
    (16.2.0)."""
    with wda("15", "4") as face:
        old = _attributes(_source(face), "XCUIElementTypeIcon")
    assert old == _attributes(real_text(WDA_2024), "XCUIElementTypeIcon")
    with wda("18", "10") as face:
        new = _attributes(_source(face), "XCUIElementTypeIcon")
    assert new == _attributes(real_text(WDA_16), "XCUIElementTypeButton")


def _nserror_shape(message: str, bundle: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x#", message.replace(bundle, "<bundle>"))


def test_a_missing_app_is_refused_as_wda_5_1_4_refuses_it() -> None:
    name = "ios/wda-5.1.4-apps-launch-not-installed-invalid-argument.txt"  # its traceback is cut
    real_keys = set(re.findall(r'^    "(\w+)" :', real_text(name), flags=re.MULTILINE))
    missing = "com.example.missing"
    with wda("17", "5") as face:
        _, session = request(face, "POST", "/session", {"capabilities": {}})
        code, simulated = request(
            face, "POST", f"/session/{session['sessionId']}/wda/apps/launch", {"bundleId": missing}
        )
    assert code == 400
    assert set(simulated["value"]) == real_keys == {"error", "message", "traceback"}
    assert simulated["value"]["error"] == json_string(name, "error")
    assert _nserror_shape(simulated["value"]["message"], missing) == _nserror_shape(
        json_string(name, "message"), "com.google.chrome.io"
    )


def test_the_reply_envelope_is_the_real_one() -> None:
    """A real Appium-proxied WDA answer and the face's carry the same top-level keys."""
    log = real_text("ios/wda-2020-window-size-375x812-appium-log.txt").splitlines()
    start = next(n for n, line in enumerate(log) if "Got response with status 200" in line)
    body = [log[start].split(": ", 1)[1]] + [
        line.split("WD Proxy", 1)[1] for line in log[start + 1 : start + 7]
    ]
    real = json.loads("\n".join(body))
    with wda("18", "10") as face:
        _, session = request(face, "POST", "/session", {"capabilities": {}})
        code, simulated = request(face, "GET", f"/session/{session['sessionId']}/window/size")
    assert code == 200
    assert set(simulated) == set(real)
    assert set(simulated["value"]) == set(real["value"])
