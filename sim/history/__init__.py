"""Historical cases: battles set up from the record, fought and compared with history.

A case (:mod:`sim.history.case`, docs/history.md) names a scenario or
campaign, the quantities of the real battle with their sources, and the
range a designer accepts; :func:`run_case` fights it as a study through the
batch engine (:mod:`sim.history.run`), doubling its runs while a verdict is
inconclusive; :mod:`sim.history.render` prints the table ``battlesim
history`` shows, the fitting and held-out cases apart
(:mod:`sim.history.split`: the lot rule) and each musket case's loss ratio
beside its CDB90 band (:mod:`sim.history.bands`), and where each record
falls among its case's runs (:mod:`sim.history.predictive`). :mod:`sim.history.fit`
makes the cases a calibration's targets (``battlesim calibrate`` with
``history:``).
"""

from sim.history.case import SUITE, Case, load_case, load_suite
from sim.history.render import as_json, table
from sim.history.run import CaseResult, MeasureResult, run_case, run_suite

__all__ = [
    "SUITE",
    "Case",
    "CaseResult",
    "MeasureResult",
    "as_json",
    "load_case",
    "load_suite",
    "run_case",
    "run_suite",
    "table",
]
