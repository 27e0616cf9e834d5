"""What the generic tools read and show of a becmi fight: report, view, engagements, exact odds."""
