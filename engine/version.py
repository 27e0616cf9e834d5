"""Versions that a replay header records."""

ENGINE_VERSION = "0.1.0"
"""Version of the engine package (the code that writes and reads replays)."""

FORMAT_VERSION = 1
"""Version of the replay file format (see docs/replay-format.md)."""
