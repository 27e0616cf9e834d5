"""What the generic tools read of a flattop battle: report, view, engagements, audit, odds."""
