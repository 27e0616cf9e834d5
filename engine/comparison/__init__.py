"""Verify's re-simulation compared with the recorded replay, and a diff of plain JSON."""
