"""Scenario discovery: where in the factors an outcome of a run holds."""
