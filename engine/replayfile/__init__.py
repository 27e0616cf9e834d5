"""A replay file: each format's exact shape, its lines read and checked, its sinks written to."""
