"""Versions that a replay header records."""

ENGINE_VERSION = "0.1.0"
"""Version of the engine package (the code that writes and reads replays)."""

FORMAT_VERSION = 5
"""Version of the replay file format (see docs/replay-format.md).

2: ``engine.snapshot`` and ``engine.override`` events, the header's
``fork``, gzip-compressed files.  3: the event types that record their
``cause`` (breaks, ends, comings-to, morale checks, bout rounds, grounded
strikes) at schema version 2.  4: random draws written as ``[stream, i, u]``
arrays (cheaper to build and write than objects).  5: format 4's shape with
the dice of random derivation 2 (one BLAKE2b-512 block per eight draws, see
engine/rng.py).  Older files are read as they are, and re-simulated with
their own dice (engine/replayfile/formats.py).
"""
