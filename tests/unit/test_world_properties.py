"""Properties of the world model over inputs nobody wrote a test for."""

from __future__ import annotations

from typing import Any

from amc.core.models import PlannedStep, StepResult
from amc.semantic.models import SemanticScene
from amc.world.config import WorldConfig
from amc.world.model import WorldModel
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.fakes import scene


def _seen(scene: Any, semantic: Any = None) -> tuple[Any, Any]:
    """A look's two halves as the loop passes them to ``observe(scene, semantic_scene, step,
    result)``; tests put malformed values inside them on purpose."""
    return scene, semantic


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
args = st.dictionaries(
    st.sampled_from(["app_id", "bundle_id", "package", "remember", "secret", "text", "x", "y"])
    | st.text(max_size=6),
    json_values,
    max_size=5,
)
actions = st.sampled_from(["launch_app", "terminate_app", "tap", "type_text", "describe_screen"]) | st.text(
    min_size=1, max_size=12
).filter(str.strip)
steps = st.builds(PlannedStep, action=actions, args=args, rationale=st.none() | st.text(max_size=30))
results = st.builds(StepResult, success=st.booleans(), error=st.none() | st.text(max_size=20))
semantics = st.none() | st.builds(SemanticScene, page=st.text(min_size=1, max_size=20).filter(str.strip))
anything: st.SearchStrategy[Any] = st.none() | st.integers() | st.text(max_size=5) | json_values
scenes = st.none() | st.builds(lambda app: scene("x", app=app), st.none() | st.text(max_size=10))


@settings(max_examples=150, deadline=None)
@given(
    size=st.integers(min_value=1, max_value=5),
    inputs=st.lists(
        st.tuples(scenes | anything, semantics | anything, steps | anything, results | anything), max_size=25
    ),
)
def test_observe_never_raises_and_history_stays_bounded(
    size: int, inputs: list[tuple[Any, Any, Any, Any]]
) -> None:
    model = WorldModel(WorldConfig(history_size=size))
    for n, (sc, sem, step, result) in enumerate(inputs, start=1):
        model.observe(*_seen(sc, sem), step, result)
        assert len(model.state.history) == min(n, size)
        state = model.state
        assert state.current_app is None or isinstance(state.current_app, str)
        assert state.current_page is None or (
            isinstance(state.current_page, str) and state.current_page.strip()
        )
        assert all(isinstance(k, str) for k in state.variables)
        state.to_dict()  # always serialisable for timelines
