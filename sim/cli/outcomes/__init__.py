"""Studying outcomes: batch studies, reruns, exports, campaigns, discovery, calibration, history."""
