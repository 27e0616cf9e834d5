"""Running and reading battles: run, verify, validate, schema, show and the replay tools."""
