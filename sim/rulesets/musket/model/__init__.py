"""What a musket battle is made of: scenario, options, events, state, rules tables, hex map."""
