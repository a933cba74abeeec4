"""Semantic enrichment: what page a Scene shows, derived without I/O."""

from semantic.enricher import DefaultEnricher, Enricher, enrich_scene, semantic_enabled, title_of
from semantic.models import SemanticScene

__all__ = ["DefaultEnricher", "Enricher", "SemanticScene", "enrich_scene", "semantic_enabled", "title_of"]
