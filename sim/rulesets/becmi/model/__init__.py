"""What a becmi fight is made of: scenario, options, events, state, tables, to-hit arithmetic."""
