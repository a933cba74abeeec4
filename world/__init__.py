"""The per-task world model: what the harness believes about the device, step by step."""

from .config import WorldConfig
from .model import WorldModel
from .models import WorldEvent, WorldState

__all__ = ["WorldConfig", "WorldEvent", "WorldModel", "WorldState"]
