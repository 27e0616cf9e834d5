"""A study shown: its plots as PNG files."""
