"""The streams ``amc`` writes to, with the run's secrets hidden and every control character made visible.

Whatever a command prints (step lines, errors, log lines, JSON) passes through
:class:`VisibleStream`, which writes it with :func:`amc.core.limits.visible`: text from a device, a
model or a server cannot clear the screen, retitle the window, move the cursor over a line already
printed or reorder a line (escape sequences, carriage returns, bidirectional overrides); each such
character is shown as ``\\uXXXX``. Newlines and tabs stay: the lines are the harness's own, and the
values it puts on one line are written with :func:`amc.core.limits.one_line` where they are formatted.
Before that, the command's :class:`~amc.storage.redaction.Redactor` hides every secret it knows in
the text, and the credentials of any URL in it: the last thing done to a line before it is printed.
"""

from __future__ import annotations

from typing import Any, TextIO

from ..core.limits import visible
from ..storage.redaction import Redactor

__all__ = ["VisibleStream"]


class VisibleStream:
    """A text stream that writes to ``inner`` with ``redactor``'s secrets hidden and control
    characters made visible."""

    def __init__(self, inner: TextIO, redactor: Redactor | None = None) -> None:
        self.inner = inner
        self.redactor = redactor if redactor is not None else Redactor()

    def write(self, text: str) -> int:
        self.inner.write(visible(self.redactor.text(text)))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding …: the inner stream's
        return getattr(self.inner, name)
