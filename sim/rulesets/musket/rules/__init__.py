"""The musket rules' decisions: pure functions of the battle that return the events they decide."""
