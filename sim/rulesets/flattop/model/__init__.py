"""What a flattop battle is made of: scenario, options, events, state, data, tables, hex grid."""
