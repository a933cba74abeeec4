"""The UI-tree parsers: any page source a phone answers with, turned into a ``Scene``.

:func:`parse_source` (in :mod:`.source`) detects the format and hands it to the platform's parser
(:mod:`.android`, :mod:`.ios`, :mod:`.ios_json`). XML is read by the safe lxml parser of
:mod:`.xml_source`, whose tree stays behind the Scene; elements are built when they are read
(:mod:`core.lazy`), from one attribute table per format (:mod:`.schema`; :mod:`.json_source` for WDA
JSON), and the whole-tree questions a step asks are answered from the document.
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
