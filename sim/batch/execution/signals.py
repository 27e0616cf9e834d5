"""A Ctrl-C (or SIGTERM) held back while something must not be cut in half: the engine's
(:mod:`engine.safety.signals`), which the batch layer's pool and DuckDB's import use."""

from __future__ import annotations

from engine.safety.signals import interrupts_deferred

__all__ = ["interrupts_deferred"]
