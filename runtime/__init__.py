"""The agent runtime: the Observe -> Plan -> Act loop and its parts."""

from ..actions import ACTIONS, Action, Screen
from ..actions.targets import describe_scene
from ..core.steps import StepRecord
from ..semantic.models import Observation
from .context import StepView, TaskContext
from .executor import Executor
from .observer import Observer
from .planner import ObservingPlanner, Planner, ScriptedPlanner, StubPlanner
from .task import StepListener, TaskResult, TaskRunner, TaskRunnerConfig, TaskStatus

__all__ = [
    "ACTIONS",
    "Action",
    "Executor",
    "Observation",
    "Observer",
    "ObservingPlanner",
    "Planner",
    "Screen",
    "ScriptedPlanner",
    "StepListener",
    "StepRecord",
    "StepView",
    "StubPlanner",
    "TaskContext",
    "TaskResult",
    "TaskRunner",
    "TaskRunnerConfig",
    "TaskStatus",
    "describe_scene",
]
