"""Whole jobs from data to finished results, one module a job; the CLI commands call these."""

__all__: list[str] = []
