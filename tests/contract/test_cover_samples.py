"""The cover rules on real outputs (``tests/contract/cover_samples.py``), on the samples they were
written from and on the third set aside before: ``pytest tests/contract/test_cover_samples.py -rA``
prints both counts per rule."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from amc.drivers.frontboard import launch_refusal
from amc.drivers.hierarchy import parse_source
from amc.drivers.u2.focus import keyguard_state, parse_focus
from amc.semantic.enricher import enrich_scene
from amc.semantic.screen import cover_of

from tests.contract.cover_samples import FOCUS, KEYGUARD, LAUNCH, TREE, Sample, split
from tests.contract.real import real_text


def _focus(text: str) -> object:
    reading = parse_focus(text)
    return (
        reading.cover.kind if reading.cover is not None else None,
        reading.foreground.package if reading.foreground is not None else None,
    )


def _tree(text: str) -> object:
    scene = parse_source(text, platform="android")
    semantic = enrich_scene(scene)
    return (cover_of(scene).kind, semantic.alert if semantic is not None else None)


def _launch(text: str) -> object:
    refusal = launch_refusal(text)
    return refusal.kind if refusal is not None else None


RULES: dict[str, tuple[tuple[Sample, ...], Callable[[str], object]]] = {
    "focus (drivers.u2.focus.parse_focus)": (FOCUS, _focus),
    "keyguard (drivers.u2.focus.keyguard_state)": (KEYGUARD, keyguard_state),
    "tree (semantic.screen.cover_of and the enricher)": (TREE, _tree),
    "launch on a locked iPhone (drivers.frontboard.launch_refusal)": (LAUNCH, _launch),
}


def _wrong(samples: tuple[Sample, ...], rule: Callable[[str], object]) -> list[str]:
    return [
        f"{s.path}: {got!r}, expected {s.expected!r}"
        for s in samples
        if (got := rule(real_text(s.path))) != s.expected
    ]


@pytest.mark.parametrize("name", list(RULES))
def test_each_rule_reads_the_samples_it_was_written_from_and_the_third_set_aside(name: str) -> None:
    group, rule = RULES[name]
    written_from, held_out = split(group)
    wrong_seen, wrong_held = _wrong(written_from, rule), _wrong(held_out, rule)
    print(
        f"{name}: {len(written_from) - len(wrong_seen)}/{len(written_from)} of the samples it was "
        f"written from, {len(held_out) - len(wrong_held)}/{len(held_out)} of the third set aside"
    )
    assert not wrong_seen and not wrong_held, wrong_seen + wrong_held
