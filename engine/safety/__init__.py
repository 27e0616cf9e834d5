"""Files and text that may be hostile: bounded reads, atomic writes, strict JSON, controls."""
