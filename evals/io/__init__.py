"""Input files and output formats: datasets, TREC files, predictions, the ``--json`` contract."""

__all__: list[str] = []
