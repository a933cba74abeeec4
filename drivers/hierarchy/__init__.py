"""The UI-tree parsers: any page source a phone answers with, turned into a ``Scene``.

:func:`parse_source` (in :mod:`.source`) detects the format and hands it to the platform's parser
(:mod:`.android`, :mod:`.ios`, :mod:`.ios_json`), which share the caps and helpers of :mod:`.common`.
"""

from .source import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ELEMENTS,
    FORMATS,
    SourceFormat,
    decode_source,
    detect_format,
    parse_source,
    parse_tree,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ELEMENTS",
    "FORMATS",
    "SourceFormat",
    "decode_source",
    "detect_format",
    "parse_source",
    "parse_tree",
]
