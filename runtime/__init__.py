"""The agent runtime: the Observe -> Plan -> Act loop and its parts."""

from .context import StepRecord, TaskContext
from .executor import ACTIONS, Action, Executor, describe_scene
from .planner import Planner, ScriptedPlanner, StubPlanner
from .task import StepListener, TaskResult, TaskRunner, TaskRunnerConfig, TaskStatus

__all__ = [
    "ACTIONS",
    "Action",
    "Executor",
    "Planner",
    "ScriptedPlanner",
    "StepListener",
    "StepRecord",
    "StubPlanner",
    "TaskContext",
    "TaskResult",
    "TaskRunner",
    "TaskRunnerConfig",
    "TaskStatus",
    "describe_scene",
]
