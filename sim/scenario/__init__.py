"""Scenario files: loading and checking them, their schema, the shipped ones.

:mod:`~sim.scenario.load` (safe YAML with lines, validation),
:mod:`~sim.scenario.diagnose` (one-pass validation, "did you mean"),
:mod:`~sim.scenario.schema` (the JSON Schema), :mod:`~sim.scenario.catalog`
(shipped scenarios, templates, ``new``).
"""
