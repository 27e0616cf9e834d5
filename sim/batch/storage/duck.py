"""DuckDB, imported with a Ctrl-C held until it is in: every module of battlesim that uses
DuckDB imports it from here (``from sim.batch.storage.duck import duckdb``).

DuckDB's module is C++ (pybind11). A ``KeyboardInterrupt`` raised in the Python code its
initialisation calls (the creation of an enum) escapes as a C++ exception that nothing
catches, and the process aborts (SIGABRT) after printing the traceback: one Ctrl-C in 40,
sent at a random moment of ``battlesim calibrate``'s first seconds, did so. Held back
(:func:`~sim.batch.execution.signals.interrupts_deferred`), the Ctrl-C is taken once the module
is in, as the command's own interrupt.
"""

from __future__ import annotations

from sim.batch.execution.signals import interrupts_deferred

with interrupts_deferred():
    import duckdb

__all__ = ["duckdb"]
