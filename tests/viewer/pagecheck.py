"""Checks of a viewer page as text: the shipped ones of :mod:`sim.conformance.page`."""

from __future__ import annotations

from sim.conformance.page import NETWORK, embedded, well_formed

__all__ = ["NETWORK", "embedded", "well_formed"]
