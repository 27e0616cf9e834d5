"""The becmi rules' decisions: pure functions of a fight's view that return events; the dice."""
