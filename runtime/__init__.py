"""The agent runtime: the Observe -> Plan -> Act loop and its parts."""

from ..core.steps import StepRecord
from ..semantic.models import Observation
from .context import StepView, TaskContext
from .executor import ACTIONS, Action, Executor, Screen, describe_scene
from .observer import Observer
from .planner import Planner, ScriptedPlanner, StubPlanner
from .task import StepListener, TaskResult, TaskRunner, TaskRunnerConfig, TaskStatus

__all__ = [
    "ACTIONS",
    "Action",
    "Executor",
    "Observation",
    "Observer",
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
