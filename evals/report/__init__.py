"""What a run shows: terminal tables, gates, and the self-contained HTML report."""

__all__: list[str] = []
