"""What a study keeps: its DuckDB file, tables and views, opened, resumed and committed to."""
