"""Semantic enrichment: what page a Scene shows, derived without I/O."""

from .enricher import DefaultEnricher, Enricher, enrich_scene, semantic_enabled, title_of
from .models import SemanticScene

__all__ = ["DefaultEnricher", "Enricher", "SemanticScene", "enrich_scene", "semantic_enabled", "title_of"]
