"""Reproductions of the seed papers' experiments (tables as Markdown, plots as PNG)."""
