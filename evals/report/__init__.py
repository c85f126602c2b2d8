"""What a run shows: terminal tables, the predictions file, --json, the HTML report, JUnit XML.

Views only: each is a function of the measurements in ``ragjury.evals.results`` (the finished run,
the comparison of two, gates, verdict sources) and measures nothing of its own.
"""

__all__: list[str] = []
