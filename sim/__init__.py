"""The battle domain on top of :mod:`engine`: scenarios, rulesets, the CLI."""
