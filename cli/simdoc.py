"""``docs/simulated-device.md`` and its pictures (``docs/sim/*.svg``), generated from the simulated
device itself: its catalog (``sim/catalog.py``, the stand-ins of ``sim/catalog_peers.py``), the
profiles it plays (``sim/profiles.py``), the spec's query (``drivers/connect.py``) and the faces.

Every picture is drawn from the node tree the faces serve (:meth:`amc.sim.device.SimDevice.tree`),
so what it shows is what a client reads: the ids in each table are the ids in that tree, taken from
a device with a window tall enough to hold every widget of the screen at once.

Regenerate (one command; ``--check`` exits 1 naming each stale file instead of writing)::

    .venv/bin/python -m amc.cli.simdoc docs
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..connect import SIM_QUERY
from ..core.models import Platform
from ..sim.catalog import DEMO_PASSWORD, DEMO_USER, AppSpec, Screen, Widget, catalog
from ..sim.catalog_peers import stand_ins
from ..sim.device import SimDevice
from ..sim.nodes import SimNode
from ..sim.profiles import ANDROID_APIS, DEFAULT_ANDROID, DEFAULT_IOS, IOS_VERSIONS, WDA_GENERATIONS
from ..sim.timing import TIMINGS
from .simdoc_svg import svg

__all__ = ["DOC", "PICTURES", "main", "render"]

DOC = "simulated-device.md"
PICTURES = "sim"
PLATFORMS: tuple[Platform, ...] = ("android", "ios")
TALL = 60_000  # a window height (px on Android, pt on iOS) that holds every widget of any screen
_MANY = 24  # a screen with more widgets lists its first 20 and its last 2

# What each face is: the spec, the protocol and the real client that reads it (each face module's
# docstring says from which real server it is modelled).
FACES: Mapping[str, str] = {
    "sim": "in process, no socket: the `Driver` protocol on the state machine (`connect/simulated.py`)",
    "sim+adb": "an adb server on 127.0.0.1 (smart-socket protocol, shell, sync) with the uiautomator2 "
    "server's HTTP JSON-RPC behind `tcp:9008`, read by adbutils and uiautomator2 (`sim/adb_face.py`, "
    "`sim/u2_rpc.py`)",
    "sim+wda": "WebDriverAgent's HTTP routes on 127.0.0.1, read by facebook-wda (`sim/wda_face.py`)",
    "sim+appium": "a W3C WebDriver / Appium 3 server on 127.0.0.1 (UiAutomator2 or XCUITest "
    "shapes), read by Appium-Python-Client and Selenium Grid (`sim/appium_face.py`)",
}
_FACE_PLATFORMS = {
    "sim": "android, ios",
    "sim+adb": "android",
    "sim+wda": "ios",
    "sim+appium": "android, ios",
}


@dataclass(frozen=True)
class Shot:
    """One picture: an app's screen (``screen`` None: the home screen), its state."""

    platform: Platform
    app_id: str | None
    screen: str | None
    prompt: bool = False

    @property
    def file(self) -> str:
        base = self.app_id or "home"
        part = f"-{self.screen}" if self.screen else ""
        return f"{self.platform}-{base}{part}{'-prompt' if self.prompt else ''}.svg"


def _apps(platform: Platform) -> dict[str, AppSpec]:
    return {**catalog(platform), **stand_ins(platform)}


def _device(platform: Platform, tall: bool = False) -> SimDevice:
    width = SimDevice(platform).window_size[0]
    return SimDevice(platform, apps=_apps(platform), window_size=(width, TALL) if tall else None)


def _show(device: SimDevice, shot: Shot) -> SimNode:
    """The tree of ``device`` showing ``shot`` (an app's screen, opened as a user reaches it)."""
    if shot.app_id is None:
        device.home()
        return device.tree()
    device.launch(shot.app_id)
    run = device.current_run()
    assert run is not None
    if not shot.prompt:
        run.prompt = None
    spec = run.spec
    name = shot.screen or spec.start
    run.stack[:] = [spec.start] if name == spec.start else [spec.start, name]
    if name == spec.signed_in_screen:
        run.user = DEMO_USER
    return device.tree()


def _shots(platform: Platform) -> Iterator[Shot]:
    yield Shot(platform, None, None)
    for app in _apps(platform).values():
        if app.asks is not None:
            yield Shot(platform, app.app_id, app.start, prompt=True)
        for name in app.screens:
            yield Shot(platform, app.app_id, name)


def _cell(text: str | None) -> str:
    if not text:
        return ""
    shown = text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n")
    return f"`{shown}`" if shown.strip() else ""


def _does(widget: Widget, app: AppSpec) -> str:
    parts = []
    if widget.goto is not None:
        parts.append(f"opens `{widget.goto}`")
    if widget.action is not None:
        what = {
            "alert": f"shows the alert {_cell(widget.alert.title if widget.alert else '')}",
            "toast": f"shows the toast {_cell(widget.toast)}",
            "login": f"signs in (`{DEMO_USER}` / `{DEMO_PASSWORD}`)",
            "clear": f"empties `{widget.target}`",
            "sum": f"writes the sum of {', '.join(f'`{k}`' for k in widget.sums)} into `{widget.target}`",
            "increment": f"adds one to `{widget.target}`",
            "toggle": "switches it",
            "copy": f"copies `{widget.sums[0] if widget.sums else ''}` into `{widget.target}`",
        }.get(widget.action, widget.action)
        parts.append(what)
    if widget.on_long_press is not None:
        parts.append(f"long press: the alert {_cell(widget.on_long_press.title)}")
    if widget.on_double_tap is not None:
        parts.append(f"double tap: the alert {_cell(widget.on_double_tap.title)}")
    flags = [
        name
        for name, on in (
            ("off", widget.role == "switch_row" and not widget.on),
            ("on", widget.role == "switch_row" and widget.on),
            ("disabled", not widget.enabled),
            ("hidden", widget.hidden),
            ("selected", widget.selected),
        )
        if on
    ]
    return "; ".join(parts + flags)


def _ids(tree: SimNode, screen: Screen) -> dict[str, str]:
    """Each widget's id as the tree shows it: the id of the node a tap on it reaches, else of the
    node that carries its key (a text); none for an Android row (it is found by its text)."""
    by_ref = {
        n.ref.removeprefix("widget:"): n.ident or ""
        for n in tree.iter()
        if n.ref and n.ref.startswith("widget:")
    }
    idents = [n.ident for n in tree.iter() if n.ident]
    found: dict[str, str] = {}
    for widget in screen.widgets:
        if widget.key in by_ref:
            found[widget.key] = by_ref[widget.key]
        else:
            found[widget.key] = next(
                (i for i in idents if i == widget.key or i.endswith(f":id/{widget.key}")), ""
            )
    return found


def _screen_table(screen: Screen, app: AppSpec, ids: Mapping[str, str]) -> list[str]:
    lines = ["| id | role | text | label / hint | a tap |", "|---|---|---|---|---|"]
    widgets = list(screen.widgets)
    shown = widgets if len(widgets) <= _MANY else widgets[:20] + widgets[-2:]
    for i, w in enumerate(shown):
        if len(widgets) > _MANY and i == 20:
            lines.append(f"| … | | {len(widgets) - 22} more {w.role}s like these | | |")
        text = " — ".join(t for t in (w.text, w.summary or "") if t)
        extra = " / ".join(t for t in (w.label or "", w.hint or "") if t)
        ident = _cell(ids.get(w.key)) or "—"
        lines.append(f"| {ident} | {w.role} | {_cell(text)} | {_cell(extra)} | {_does(w, app)} |")
    return lines


def _app_section(platform: Platform, app: AppSpec, stand_in: bool) -> list[str]:
    tall = _device(platform, tall=True)
    where = f"Installed with `install={app.app_id}`" if stand_in else "Installed"
    out = [f"### {app.name} — `{app.app_id}` ({platform})", ""]
    facts = [f"{where}; starts on `{app.start}`"]
    if app.schemes:
        facts.append("opens the URL schemes " + ", ".join(f"`{s}://`" for s in app.schemes))
    if app.asks:
        facts.append(f"asks for `{app.asks}` on its first launch")
    if app.signed_in_screen:
        facts.append(f"keeps a signed-in user on `{app.signed_in_screen}` until its data is cleared")
    out += ["; ".join(facts) + ".", ""]
    if app.asks:
        file = Shot(platform, app.app_id, app.start, prompt=True).file
        out += [f"First launch, the prompt: ![{app.name}: the {app.asks} prompt]({PICTURES}/{file})", ""]
    for name, screen in app.screens.items():
        ids = _ids(_show(tall, Shot(platform, app.app_id, name)), screen)
        activity = f", activity `{screen.activity}`" if screen.activity else ""
        late = "; its rows load late (a progress indicator first)" if screen.loads_late else ""
        out += [f"#### `{name}`: “{screen.title}”{activity}{late}", ""]
        out += [f"![{app.name}, {name}]({PICTURES}/{Shot(platform, app.app_id, name).file})", ""]
        out += [*_screen_table(screen, app, ids), ""]
    return out


def _profiles() -> list[str]:
    rows = ["| key | values | default |", "|---|---|---|"]
    rows.append(
        f"| `api` (Android) | {', '.join(f'{a} (Android {r})' for a, r in ANDROID_APIS.items())} | "
        f"{DEFAULT_ANDROID.api} |"
    )
    rows.append(f"| `ios` | {', '.join(f'{k} ({v})' for k, v in IOS_VERSIONS.items())} | {DEFAULT_IOS.ios} |")
    rows.append(
        f"| `wda` | {', '.join(f'{k} ({v})' for k, v in WDA_GENERATIONS.items())} | {DEFAULT_IOS.wda} |"
    )
    rows.append(f"| `timing` | {', '.join(TIMINGS)} | realistic |")
    rows.append("| `locked` | true, false | false |")
    rows.append("| `id` | a device name (letters, digits, `._:-`) | the platform's |")
    for platform in PLATFORMS:
        rows.append(f"| `install` ({platform}) | {', '.join(f'`{a}`' for a in stand_ins(platform))} | none |")
    keys = {p: ", ".join(f"`{k}`" for k in SIM_QUERY[p]) for p in PLATFORMS}
    return [*rows, "", f"Keys a spec takes: Android {keys['android']}; iOS {keys['ios']}.", ""]


def _faces() -> list[str]:
    rows = ["| spec | platforms | what it is |", "|---|---|---|"]
    rows += [f"| `{scheme}:` | {_FACE_PLATFORMS[scheme]} | {what} |" for scheme, what in FACES.items()]
    return [*rows, ""]


HEADER = """# The simulated device

Generated from the simulated device by `cli/simdoc.py`; do not edit by hand. Regenerate with

    .venv/bin/python -m amc.cli.simdoc docs

(`tests/unit/test_simulated_device_doc.py` fails when this page or a picture in `docs/sim/` is not
what that command writes). The simulated phones are what `sim:android`, `sim:ios` and the faces
(`sim+adb:`, `sim+wda:`, `sim+appium:`) play: the apps below with their screens, element ids and
texts. Each picture is drawn from the node tree the faces serve, the first screenful of the screen;
each table lists every widget, with its id as a client reads it (Android's resource-id, iOS's
accessibility identifier; — where it has none, as an Android list row: it is found by its text).
The release each face plays is in [versions.md](versions.md).
"""


def render() -> dict[str, str]:
    """Every file the command writes, by path under the docs folder."""
    lines = [HEADER, "## The spec's query: profiles and options", "", *_profiles()]
    lines += ["## The faces", "", *_faces()]
    for platform in PLATFORMS:
        lines += [f"## {'Android' if platform == 'android' else 'iOS'}", ""]
        home = Shot(platform, None, None)
        lines += [f"The home screen: ![{platform} home screen]({PICTURES}/{home.file})", ""]
        installed = catalog(platform)
        for app in installed.values():
            lines += _app_section(platform, app, stand_in=False)
        lines += [f"### Stand-ins of other projects' test apps ({platform})", ""]
        lines += [
            "Installed with the spec's `install=` (`sim/catalog_peers.py` says from which source each "
            "is modelled).",
            "",
        ]
        for app in stand_ins(platform).values():
            lines += _app_section(platform, app, stand_in=True)
    files = {DOC: "\n".join(lines).rstrip("\n") + "\n"}
    for platform in PLATFORMS:
        for shot in _shots(platform):
            device = _device(platform)
            files[f"{PICTURES}/{shot.file}"] = svg(_show(device, shot), device.window_size, platform)
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amc.cli.simdoc", description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", type=Path, help="the docs folder (docs)")
    parser.add_argument("--check", action="store_true", help="name each stale file and exit 1; write nothing")
    args = parser.parse_args(argv)
    files = render()
    stale = [
        p for p, text in files.items() if not (args.docs / p).is_file() or (args.docs / p).read_text() != text
    ]
    pictures = args.docs / PICTURES
    extra = (
        sorted(f"{PICTURES}/{p.name}" for p in pictures.glob("*.svg") if f"{PICTURES}/{p.name}" not in files)
        if pictures.is_dir()
        else []
    )
    if args.check:
        for path in stale + extra:
            print(f"stale: {args.docs / path}", file=sys.stderr)
        return 1 if stale or extra else 0
    for path in stale:
        target = args.docs / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[path])
    for path in extra:
        (args.docs / path).unlink()
    print(f"wrote {len(stale)} of {len(files)} files, removed {len(extra)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
