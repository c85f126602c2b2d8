"""Running judges over many items: the runner, the judgment cache, progress and dry runs."""

__all__: list[str] = []
