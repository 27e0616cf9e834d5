"""Words every layer shares.

:mod:`~sim.text.grammar` (English by count and plural names) and
:mod:`~sim.text.suggest` ("did you mean").
"""
