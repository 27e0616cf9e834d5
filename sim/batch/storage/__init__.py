"""What a study keeps: its DuckDB file, tables and views, opened, resumed and committed to.

The errors of a study's store are here, where importing them loads no DuckDB (``sim.api``
re-exports them for a notebook's ``except``).
"""

from __future__ import annotations

__all__ = ["StoreDamaged", "StoreError"]


class StoreError(RuntimeError):
    """A study database that cannot be opened or used."""


class StoreDamaged(StoreError):
    """A DuckDB database file (its header says so) that DuckDB cannot read through:
    truncated, or overwritten in part. ``verify`` calls the study damaged (exit 1)."""
