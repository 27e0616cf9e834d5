"""What the generic tools read of a musket battle: report, view, engagements, audit, odds, reach."""
