"""Give each face of the simulated device its own room: move every module of ``sim/`` into a
sub-package and rewrite every reference to it in the repository (issue 41 item 7).

    python tools/restructure_sim.py [--dry-run] [--ruff PATH]

Deterministic and re-runnable on a newer tree: every module of ``sim/`` is given a room by the
explicit table :data:`EXPLICIT` or by the prefix rules :data:`PREFIXES` (``adb_face`` ->
``sim/adb/face.py``); a module neither names is refused (exit 2, listing them), so a module added
since is placed on purpose. The files move with ``git mv``; nothing but module paths changes (no
function, class or constant is renamed: an import that bound a module's old name binds it again,
``from .wda import device_routes as wda_device_routes``). Rewritten, in every tracked text file
except real captures (``tests/fixtures/``) and archived openspec changes (history):

- imports: relative ones (inside ``sim/`` and from the other layers) recomputed from each file's
  new place, ``from amc.sim import x`` of a module, and absolute ``amc.sim.x``;
- dotted names in strings, comments and docs (``"amc.sim.adb_face.AdbFace"`` as a monkeypatch
  target, ``:mod:`sim.adb_shell```) and paths (``sim/adb_face.py``);
- ``pyproject.toml``'s package list (each room is a package); ``sim/README.md`` and the rooms'
  ``__init__.py`` are written from :data:`ROOMS`.

It refuses (exit 3) when it was already applied (a room exists, or no module is left to move) and,
unless ``--dry-run``, when the work tree has uncommitted changes. ``--ruff PATH`` runs that ruff
(``check --fix`` and ``format``) on the changed Python files, as import order changes with the paths.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIM = "sim"
PACKAGE = "amc.sim"

# room -> what it holds (the rooms' __init__ docstrings and sim/README.md)
ROOMS: dict[str, str] = {
    "phone": "The phone itself: its state machine (device, its settings and extras), the apps it has "
    "(catalog, the stand-ins of other projects' apps), what covers them, permissions, users and "
    "profiles, the system's prompts, the version profiles it plays and how it behaves in time.",
    "screens": "How the phone's state is placed and drawn: the native node tree, each platform's "
    "layout (apps, covers, prompts), the pictures drawn from it, and a Scene made from it in process.",
    "serving": "What every face shares: the background server on 127.0.0.1, the guard against "
    "browsers, fault injection, real outputs played back, and the versions of each backend in the field.",
    "adb": "The adb face: an adb server (smart sockets, host services, sync) in front of the phones, "
    "and the phone's shell as adb reaches it (am, pm, dumpsys, settings, files, input methods, logcat).",
    "u2": "The uiautomator2 face: the server's HTTP JSON-RPC behind the adb face's tcp:9008, its "
    "selectors and methods, and the window hierarchy XML it dumps.",
    "wda": "The WebDriverAgent face: its routes (device, elements and gestures, the rest), element "
    "lookup, the element tree it reports, and the Mac's simctl beside a simulated Simulator.",
    "appium": "The Appium face: an Appium 3 server's W3C routes and mobile: commands for both "
    "platforms, W3C actions, and its page source.",
}

# module -> room.module, for what no prefix rule places
EXPLICIT: dict[str, str] = {
    "device": "phone.device",
    "device_extras": "phone.device_extras",
    "device_state": "phone.device_state",
    "app_run": "phone.app_run",
    "catalog": "phone.catalog",
    "catalog_peers": "phone.catalog_peers",
    "covers": "phone.covers",
    "permissions": "phone.permissions",
    "profiles": "phone.profiles",
    "users": "phone.users",
    "prompts": "phone.prompts",
    "timing": "phone.timing",
    "nodes": "screens.nodes",
    "picture": "screens.picture",
    "scene": "screens.scene",
    "server": "serving.server",
    "http_guard": "serving.http_guard",
    "faults": "serving.faults",
    "replay": "serving.replay",
    "versions": "serving.versions",
    "dumpsys": "adb.dumpsys",
    "render_android": "u2.render",
    "render_wda": "wda.render",
    "simctl": "wda.simctl",
    "render_appium": "appium.render",
}


def _strip(prefix: str, room: str) -> Callable[[str], str | None]:
    return lambda name: f"{room}.{name[len(prefix) :]}" if name.startswith(prefix) else None


def _keep(prefix: str, room: str) -> Callable[[str], str | None]:
    return lambda name: f"{room}.{name}" if name == prefix or name.startswith(prefix + "_") else None


# prefix rules, in order: a face's prefix names its room and is dropped (the room says it)
PREFIXES: tuple[Callable[[str], str | None], ...] = (
    _strip("adb_", "adb"),
    _strip("u2_", "u2"),
    _strip("wda_", "wda"),
    _strip("appium_", "appium"),
    _keep("layout", "screens"),
    _keep("draw", "screens"),
)

# not moved: the package itself
STAYS = ("__init__",)
SKIP_TREES = ("tests/fixtures/", "openspec/changes/archive/", "build/", ".venv/")
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".yaml",
    ".yml",
    ".toml",
    ".txt",
    ".cfg",
    ".ini",
    ".json",
    ".sh",
    ".j2",
    ".rst",
}
EXIT_UNASSIGNED, EXIT_APPLIED, EXIT_DIRTY = 2, 3, 4


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Move:
    old: str  # module name under sim/ (adb_face)
    new: str  # dotted under sim/ (adb.face)

    @property
    def old_path(self) -> str:
        return f"{SIM}/{self.old}.py"

    @property
    def new_path(self) -> str:
        return f"{SIM}/{self.new.replace('.', '/')}.py"


def room_of(name: str) -> str | None:
    """Where module ``name`` of ``sim/`` goes (``room.module``), or None when nothing places it."""
    if name in EXPLICIT:
        return EXPLICIT[name]
    for rule in PREFIXES:
        placed = rule(name)
        if placed is not None:
            return placed
    return None


def plan(repo: Path) -> list[Move]:
    """Every module of ``sim/`` and its room; ``Refused`` when applied already or one is unplaced."""
    folder = repo / SIM
    rooms = sorted(r for r in ROOMS if (folder / r).exists())
    if rooms:
        raise Refused(EXIT_APPLIED, f"already applied: sim/ has the room(s) {', '.join(rooms)}")
    names = sorted(p.stem for p in folder.glob("*.py") if p.stem not in STAYS)
    if not names:
        raise Refused(EXIT_APPLIED, "already applied: sim/ has no module left to move")
    unplaced = [n for n in names if room_of(n) is None]
    if unplaced:
        raise Refused(
            EXIT_UNASSIGNED,
            "no room for sim/"
            + ", sim/".join(f"{n}.py" for n in unplaced)
            + ": add each to EXPLICIT in tools/restructure_sim.py",
        )
    moves = [Move(n, room_of(n) or "") for n in names]
    clash = {m.new for m in moves if sum(o.new == m.new for o in moves) > 1}
    if clash:
        raise Refused(EXIT_UNASSIGNED, f"two modules would become sim/{', '.join(sorted(clash))}")
    return moves


# --- rewriting ------------------------------------------------------------------------------


class Rewriter:
    """The text rules for one plan: old dotted names, bare ``sim.x`` names and ``sim/x.py`` paths."""

    def __init__(self, moves: Iterable[Move]) -> None:
        self.by_old = {m.old: m for m in moves}
        names = "|".join(sorted(map(re.escape, self.by_old), key=len, reverse=True))
        self._dotted = re.compile(rf"(?<![\w.])amc\.sim\.({names})(?!\w)")
        self._bare = re.compile(rf"(?<![\w.])sim\.({names})(?!\w)")
        self._path = re.compile(rf"(?<![\w.-])sim/({names})\.py\b")

    def module(self, absolute: str) -> str:
        """``amc.sim.adb_face[.x]`` -> ``amc.sim.adb.face[.x]``; any other name unchanged."""
        parts = absolute.split(".")
        if parts[:2] == ["amc", "sim"] and len(parts) > 2 and parts[2] in self.by_old:
            return ".".join(["amc", "sim", *self.by_old[parts[2]].new.split("."), *parts[3:]])
        return absolute

    def dotted(self, text: str) -> str:
        text = self._dotted.sub(lambda m: f"amc.sim.{self.by_old[m.group(1)].new}", text)
        return self._path.sub(lambda m: f"sim/{self.by_old[m.group(1)].new.replace('.', '/')}.py", text)

    def prose(self, text: str) -> str:
        """Dotted names and paths, and bare ``sim.x`` (for docs, strings and comments)."""
        return self._bare.sub(lambda m: f"sim.{self.by_old[m.group(1)].new}", self.dotted(text))


def _module_of(path: str, layers: Mapping[str, str]) -> tuple[list[str], bool] | None:
    """The ``amc`` module name (as parts) of the file at ``path`` and whether it is a package."""
    parts = Path(path).with_suffix("").parts
    folder = layers.get(parts[0])
    if folder is None:
        return None
    rest = list(parts[1:])
    is_package = rest[-1:] == ["__init__"]
    if is_package:
        rest.pop()
    return [*folder.split("."), *rest], is_package


def _relative(package: list[str], target: list[str]) -> str:
    """The relative import text from inside ``package`` to module ``target``."""
    common = 0
    while common < min(len(package), len(target)) and package[common] == target[common]:
        common += 1
    common = max(common, 1)  # amc: the layers reach each other through it
    return "." * (len(package) - common + 1) + ".".join(target[common:])


def _import_edits(
    source: str, old: tuple[list[str], bool] | None, new: tuple[list[str], bool] | None, rw: Rewriter
) -> list[tuple[int, int, int, int, str]]:
    """(line, col, end line, end col, text) replacements for the imports of one Python file."""
    tree = ast.parse(source)
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if old is None or new is None:
                continue
            name, is_package = old
            base = name if is_package else name[:-1]
            base = base[: len(base) - (node.level - 1)]
            module = [*base, *(node.module.split(".") if node.module else [])]
            new_name, new_is_package = new
            here = new_name if new_is_package else new_name[:-1]
        elif node.module is not None and (node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
            module, here = node.module.split("."), None
        else:
            continue
        groups = _groups(module, node.names, rw)
        old_text = ast.get_source_segment(source, node) or ""
        assert node.end_lineno is not None and node.end_col_offset is not None
        same_names = [(a.name, a.asname) for a in node.names]
        if len(groups) == 1 and groups[0][1] == same_names:
            # the same names from one module: only the module's text changes, the layout stays
            where = ".".join(groups[0][0]) if here is None else _relative(here, groups[0][0])
            head = re.match(r"from\s+([.\w]+)\s+import", old_text)
            if head is None or head.group(1) == where:
                continue
            start = node.col_offset + head.start(1)
            edits.append((node.lineno, start, node.lineno, node.col_offset + head.end(1), where))
            continue
        text = _statement(groups, here, node.col_offset)
        edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text))
    return edits


def _groups(
    module: list[str], names: list[ast.alias], rw: Rewriter
) -> list[tuple[list[str], list[tuple[str, str | None]]]]:
    """The statement's names grouped by the module each is imported from after the move."""
    target = rw.module(".".join(module)).split(".")
    groups: dict[tuple[str, ...], list[tuple[str, str | None]]] = {}
    for alias in names:
        full = rw.module(".".join([*module, alias.name]))
        if full != ".".join([*module, alias.name]):  # a moved module imported from its package
            parent, _, leaf = full.rpartition(".")
            bound = alias.asname or alias.name
            groups.setdefault(tuple(parent.split(".")), []).append((leaf, None if bound == leaf else bound))
        else:
            groups.setdefault(tuple(target), []).append((alias.name, alias.asname))
    return [(list(k), v) for k, v in groups.items()]


def _statement(
    groups: list[tuple[list[str], list[tuple[str, str | None]]]], here: list[str] | None, col: int
) -> str:
    out = []
    for module, names in groups:
        where = ".".join(module) if here is None else _relative(here, module)
        listed = ", ".join(n if a is None else f"{n} as {a}" for n, a in names)
        out.append(f"from {where} import {listed}")
    return ("\n" + " " * col).join(out)


def _apply(source: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(line: int, col: int) -> int:
        return offsets[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8"))

    for line, col, end_line, end_col, text in sorted(edits, reverse=True):
        source = source[: at(line, col)] + text + source[at(end_line, end_col) :]
    return source


def _tokens_rewritten(source: str, rw: Rewriter) -> str:
    """Dotted names everywhere; bare ``sim.x`` only in strings and comments (never code like
    ``sim.device`` on a variable named ``sim``)."""
    source = rw.dotted(source)
    out: list[tuple[int, int, int, int, str]] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(
            tokenize, "FSTRING_MIDDLE", -1
        ):
            new = rw.prose(tok.string)
            if new != tok.string:
                out.append((*tok.start, *tok.end, new))
    return _apply_positions(source, out)


def _apply_positions(source: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for line, col, end_line, end_col, text in sorted(edits, reverse=True):
        start, end = offsets[line - 1] + col, offsets[end_line - 1] + end_col
        source = source[:start] + text + source[end:]
    return source


def rewrite_python(source: str, old_path: str, new_path: str, layers: Mapping[str, str], rw: Rewriter) -> str:
    edits = _import_edits(source, _module_of(old_path, layers), _module_of(new_path, layers), rw)
    return _tokens_rewritten(_apply(source, edits), rw)


# --- the repository -------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def _layers(repo: Path) -> dict[str, str]:
    import tomllib

    setup = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return {folder: package for package, folder in setup["package-dir"].items()}


def _text_files(repo: Path) -> list[str]:
    files = _git(repo, "ls-files", "-z").split("\0")
    return sorted(
        f
        for f in files
        if f
        and (Path(f).suffix in TEXT_SUFFIXES or f.startswith(".ci/"))
        and not f.startswith(SKIP_TREES)
        and (repo / f).is_file()
    )


def _pyproject(text: str, moves: list[Move]) -> str:
    rooms = sorted({m.new.split(".")[0] for m in moves})
    anchor = '    "amc.sim",\n'
    if anchor not in text:
        raise Refused(EXIT_UNASSIGNED, 'pyproject.toml lists no "amc.sim" package to add the rooms after')
    added = "".join(f'    "amc.sim.{room}",\n' for room in rooms if f'"amc.sim.{room}"' not in text)
    return text.replace(anchor, anchor + added, 1)


def _room_init(room: str, moves: list[Move]) -> str:
    modules = sorted(m.new.split(".", 1)[1] for m in moves if m.new.startswith(room + "."))
    body = _wrap(ROOMS[room])
    listed = _wrap("Modules: " + ", ".join(f"``{m}``" for m in modules) + ".")
    return f'"""{body}\n\n{listed}\n"""\n'


def _wrap(text: str, width: int = 100) -> str:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def _readme(moves: list[Move]) -> str:
    out = [
        "# sim/: the simulated device, one room a part",
        "",
        "The phone's state and its screens live apart from the protocols that show them: `phone/` and",
        "`screens/` are the device; `adb/`, `u2/`, `wda/` and `appium/` are its faces, each a real",
        "backend's wire protocol on 127.0.0.1, read by that backend's real client; `serving/` is what",
        "the faces share. A face imports the device and `serving/`, never another layer's adapter",
        "(`amc.drivers`); the composition root `amc.connect` wires a face to its adapter.",
        "Written by `tools/restructure_sim.py` from its table of rooms.",
        "",
        "| room | what it holds | modules |",
        "|---|---|---|",
    ]
    for room in ROOMS:
        mods = sorted(m.new.split(".", 1)[1] for m in moves if m.new.startswith(room + "."))
        if mods:
            out.append(f"| `{room}/` | {ROOMS[room]} | {', '.join(f'`{m}`' for m in mods)} |")
    return "\n".join(out) + "\n"


def run(repo: Path, *, dry_run: bool, ruff: str | None, say: Callable[[str], None] = print) -> int:
    moves = plan(repo)
    if not dry_run and _git(repo, "status", "--porcelain", "--untracked-files=no").strip():
        raise Refused(EXIT_DIRTY, "the work tree has uncommitted changes: commit or stash them first")
    rw = Rewriter(moves)
    layers = _layers(repo)
    renamed = {m.old_path: m.new_path for m in moves}
    changed: dict[str, str] = {}
    for path in _text_files(repo):
        text = (repo / path).read_text(encoding="utf-8", errors="surrogateescape")
        if path.endswith(".py"):
            try:
                new = rewrite_python(text, path, renamed.get(path, path), layers, rw)
            except (SyntaxError, tokenize.TokenError):
                new = rw.prose(text)
        elif path == "pyproject.toml":
            new = rw.prose(_pyproject(text, moves))
        else:
            new = rw.prose(text)
        if new != text:
            changed[renamed.get(path, path)] = new
    for move in moves:
        say(f"git mv {move.old_path} {move.new_path}")
    for path in sorted(changed):
        say(f"rewrite {path}")
    if dry_run:
        say(f"dry run: {len(moves)} modules to move, {len(changed)} files to rewrite")
        return 0
    rooms = sorted({m.new.split(".")[0] for m in moves})
    for room in rooms:
        (repo / SIM / room).mkdir()
        (repo / SIM / room / "__init__.py").write_text(_room_init(room, moves), encoding="utf-8")
    for move in moves:
        _git(repo, "mv", move.old_path, move.new_path)
    for path, text in changed.items():
        (repo / path).write_text(text, encoding="utf-8", errors="surrogateescape")
    (repo / SIM / "README.md").write_text(_readme(moves), encoding="utf-8")
    _git(repo, "add", "--", SIM, *changed)
    python = sorted({p for p in changed if p.endswith(".py")} | {f"{SIM}/{r}/__init__.py" for r in rooms})
    if ruff and python:
        subprocess.run([ruff, "check", "--fix", "-q", *python], cwd=repo, check=False)
        subprocess.run([ruff, "format", "-q", *python], cwd=repo, check=False)
        _git(repo, "add", "--", *python)
    say(f"moved {len(moves)} modules into {len(rooms)} rooms, rewrote {len(changed)} files")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--dry-run", action="store_true", help="print the moves and rewrites, change nothing")
    parser.add_argument(
        "--ruff", metavar="PATH", help="run this ruff (check --fix, format) on the changed files"
    )
    parser.add_argument("--repo", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        return run(args.repo, dry_run=args.dry_run, ruff=args.ruff)
    except Refused as exc:
        print(f"restructure_sim: {exc}", file=sys.stderr)
        return exc.code


if __name__ == "__main__":
    raise SystemExit(main())
