"""A finished study checked, and any of its runs fought again as a full replay."""
