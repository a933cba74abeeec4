"""The one rule for every file a flow reaches: inside the root, when the caller set one.

A flow names files besides itself: the flows it runs (``run_flow`` / Maestro's ``runFlow``), its
scripts (``runScript``), media (``addMedia``), reference pictures (``assertScreenshot``). When the
caller sets roots (``amc mcp --flow-root R``: an agent's ``run_flow`` may reach only files in
``R``), each of those files must lie in one of them **before it is opened, read or even looked
at**, its real path once every symlink is followed, whether it was written relative (``../x``) or
absolute. A file outside is refused with a ``FlowError`` that names the path as the flow wrote it
and the roots, and says nothing of the file itself (not whether it exists, nor a word of it).
Without roots every path is allowed (``amc run`` of a user's own flow), except that ``runScript``
keeps to the flow's folder tree (:func:`amc.flows.loader.script_roots`).

Call :func:`file_in_roots` wherever a flow's file is resolved::

    path = file_in_roots(written, base=flow_folder, roots=roots, what="addMedia")
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.errors import FlowError

__all__ = ["FileOutsideRoot", "file_in_roots", "in_roots"]


class FileOutsideRoot(FlowError):
    """A file a flow names lies outside the roots the caller set (see the module docstring)."""


def in_roots(path: str | os.PathLike[str], roots: tuple[str, ...]) -> bool:
    """Whether ``path``, every symlink followed, lies in one of ``roots`` (no roots: anywhere)."""
    if not roots:
        return True
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):  # a NUL byte, a loop of links: not provably inside
        return False
    return any(real.is_relative_to(os.path.realpath(root)) for root in roots)


def file_in_roots(
    written: str, *, base: str | os.PathLike[str], roots: tuple[str, ...], what: str, file: str | None = None
) -> Path:
    """The path of the file a flow wrote as ``written`` (relative to ``base``, the folder of the
    flow that names it), checked against ``roots``: ``FileOutsideRoot`` when it leads out of them
    (``what`` names the command, ``file`` the flow file, for the message). The path is returned as
    written (joined to ``base``), not resolved: open it right after (a link swapped in between is
    the caller's to refuse, e.g. with ``O_NOFOLLOW``)."""
    path = Path(written) if Path(written).is_absolute() else Path(base) / written
    if not in_roots(path, roots):
        raise FileOutsideRoot(
            f"{what} {written[:200]!r} lies outside the flow root ({', '.join(roots)})",
            file=file,
            hint="a flow run under a flow root may reach only files inside it (a symlink may not lead out)",
        )
    return path
