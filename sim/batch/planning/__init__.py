"""A study's design: its factors and points, its stopping rule, its plan, its study file."""
