"""Files a Maestro flow names besides its subflows: ``runScript`` scripts, read when the flow is
(as Maestro reads them at parse time, ``orchestra/yaml/YamlFluentCommand.kt:409-424``), relative
to the flow's folder, bounded and checked for JavaScript syntax.

A script must lie in the flow's folder tree (``MaestroReader.script_roots``: see
:mod:`amc.flows.loader`; the flow root when the caller set one, by :mod:`amc.flows.roots`' rule),
its real path once every symlink is followed, checked before the file is looked at: ``../scripts/x.js`` is
read when it stays in the tree, a path or a link that leads out of it is refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from yaml.nodes import Node

from ...core.errors import FlowError, ScriptSyntaxError
from ..roots import in_roots
from .values import MaestroReader

__all__ = ["MAX_SCRIPT_BYTES", "in_roots", "script_file"]

MAX_SCRIPT_BYTES = 256 * 1024


def script_file(r: MaestroReader, node: Node, written: str, base: str) -> tuple[str, str]:
    """The path of the script ``written`` names (relative to ``base``, the flow's folder) and its
    text, after checking that it is a regular file in the flow's folder tree of at most
    :data:`MAX_SCRIPT_BYTES` whose JavaScript parses."""
    from ..js import check_syntax

    path = Path(written) if Path(written).is_absolute() else Path(base) / written
    if not in_roots(path, r.script_roots):  # before anything is looked at: not even whether it exists
        raise r.fail(
            node,
            f"runScript {written!r} lies outside the flow's folder tree ({', '.join(r.script_roots)})",
            hint="keep scripts in the flow's folder, or in the project holding it (the `.maestro` folder, "
            "else the git repository); a symlink may not lead out either",
        )
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:
        raise r.fail(
            node,
            f"runScript {written!r}: cannot read the script ({getattr(exc, 'strerror', None) or exc})",
            hint="scripts are resolved relative to the flow's folder",
        ) from None
    real = Path(os.path.realpath(path))  # read where the check looked, not through a link again
    if not stat.S_ISREG(info.st_mode):
        raise r.fail(node, f"runScript {written!r} is not a regular file")
    if info.st_size > MAX_SCRIPT_BYTES:
        raise r.fail(node, f"runScript {written!r} is {info.st_size} bytes; the limit is {MAX_SCRIPT_BYTES}")
    try:
        with open(real, "rb") as handle:
            source = handle.read(MAX_SCRIPT_BYTES + 1).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise r.fail(node, f"runScript {written!r}: cannot read it as UTF-8 text ({exc})") from None
    try:
        check_syntax(source, os.fspath(path))
    except ScriptSyntaxError as exc:
        raise r.fail(node, f"runScript {written!r} has a JavaScript syntax error: {exc.message}") from None
    except FlowError as exc:
        raise r.fail(node, f"runScript {written!r}: {exc.message}") from None
    return os.fspath(path), source
