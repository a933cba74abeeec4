"""The streams ``amc`` writes to, with every control character made visible.

Whatever a command prints (step lines, errors, log lines, JSON) passes through
:class:`VisibleStream`, which writes it with :func:`amc.core.limits.visible`: text from a device, a
model or a server cannot clear the screen, retitle the window, move the cursor over a line already
printed or reorder a line (escape sequences, carriage returns, bidirectional overrides); each such
character is shown as ``\\uXXXX``. Newlines and tabs stay: the lines are the harness's own, and the
values it puts on one line are written with :func:`amc.core.limits.one_line` where they are formatted.
"""

from __future__ import annotations

from typing import Any, TextIO

from ..core.limits import visible

__all__ = ["VisibleStream"]


class VisibleStream:
    """A text stream that writes to ``inner`` with control characters made visible."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(visible(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding …: the inner stream's
        return getattr(self.inner, name)
