"""Semantic enrichment: what page a Scene shows and what covers it, derived without I/O."""

from .enricher import DefaultEnricher, Enricher, enrich_scene, semantic_enabled, title_of
from .models import Observation, SemanticScene
from .screen import Cover, alert_of, cover_of, keyboard_visible

__all__ = [
    "Cover",
    "DefaultEnricher",
    "Enricher",
    "Observation",
    "SemanticScene",
    "alert_of",
    "cover_of",
    "enrich_scene",
    "keyboard_visible",
    "semantic_enabled",
    "title_of",
]
