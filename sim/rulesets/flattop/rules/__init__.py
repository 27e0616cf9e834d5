"""The flattop rules' decisions: the battle's context and pure functions that return events."""
