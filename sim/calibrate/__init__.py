"""Calibration: fit a scenario's free factors to historical targets (``battlesim calibrate``).

A calibration file (:mod:`sim.calibrate.spec`) names a scenario or campaign,
free factors with ranges and targets — each a measure
(:mod:`sim.calibrate.measures`), the historical value or range and a weight.
The search (:mod:`sim.calibrate.search`) asks optuna's seeded TPE sampler for
points and fights each with the batch engine on the same seeds (common
random numbers); :mod:`sim.calibrate.report` prints the best point against
the targets and writes the patch and the plot, and :mod:`sim.calibrate.calibrated`
the scenario (or campaign) with the best point set. optuna is imported only when
a search runs (the ``study`` extra).
"""

from __future__ import annotations

from sim.calibrate.measures import Estimate, Measure, MeasureError, parse_measure
from sim.calibrate.search import CalibrationError, Trial, best_of, calibrate
from sim.calibrate.spec import CalibrationSpec, Goal, load_calibration

__all__ = [
    "CalibrationError",
    "CalibrationSpec",
    "Estimate",
    "Goal",
    "Measure",
    "MeasureError",
    "Trial",
    "best_of",
    "calibrate",
    "load_calibration",
    "parse_measure",
]
