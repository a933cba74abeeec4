"""Every entry of the backend error catalogue, over the wire: the face answers as the backend's
source says it does, the real client library and adapter meet it through ``connect()``, and the
user sees the typed error the entry names (class, transient flag, words of the hint and message),
with the raw answer quoted at most once and the message bounded.

The held-out third of the catalogue (``held_out: true``, chosen before the classifiers were
adjusted) carries the ``held_out`` mark: ``pytest -m held_out tests/backend_errors`` runs it alone.
"""

from __future__ import annotations

import pytest

from tests.backend_errors.catalogue import BACKENDS, Entry, load
from tests.backend_errors.replay import faces_of, play, problems

pytestmark = pytest.mark.timeout(60)


def _cases() -> list[object]:
    cases: list[object] = []
    for backend in BACKENDS:
        for entry in load(backend):
            for face in faces_of(entry):
                name = entry.name if face in ("adb", "wda") or entry.backend != "intermediary" else ""
                name = name or f"{entry.name}@{face}"
                marks = [pytest.mark.held_out] if entry.held_out else []
                cases.append(pytest.param(entry, face, id=name, marks=marks))
    return cases


@pytest.mark.parametrize(("entry", "face"), _cases())
def test_a_backend_answer_reaches_the_user_as_its_typed_error(entry: Entry, face: str) -> None:
    outcome = play(entry, face)
    assert problems(entry, outcome) == [], f"{entry.name} ({entry.source.repo} {entry.source.path})"


def test_the_catalogue_names_where_every_entry_comes_from() -> None:
    entries = [entry for backend in BACKENDS for entry in load(backend)]
    assert len(entries) >= 150
    for entry in entries:
        assert "/" in entry.source.repo and entry.source.path and entry.source.ref, entry.name
    held_out = [e for e in entries if e.held_out]
    assert len(held_out) * 3 >= len(entries) - len(BACKENDS) * 2
