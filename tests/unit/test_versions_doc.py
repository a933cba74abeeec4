"""docs/versions.md holds the version matrix as sim/versions.py builds it (one table, one place)."""

from __future__ import annotations

from pathlib import Path

from amc.sim.versions import ADB_SERVERS, matrix_markdown, matrix_rows

DOC = Path(__file__).resolve().parents[2] / "docs" / "versions.md"


def test_the_doc_table_is_the_code_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- versions:begin -->\n", 1)[1].split("<!-- versions:end -->", 1)[0]
    assert table == matrix_markdown(), "regenerate docs/versions.md as its first lines say"


def test_every_played_adb_server_is_a_row() -> None:
    rows = [version for backend, version, _, _ in matrix_rows() if backend == "adb server"]
    assert rows == [f"adb={s.key} ({s.tools})" for s in ADB_SERVERS.values()]
