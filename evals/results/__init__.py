"""The measurements of a finished run and of a comparison of two: figures, gates, verdict sources.

Below every view: the views (the ``report`` package beside this one: terminal tables, the
predictions file, ``--json``, the HTML page, JUnit) are functions of these and measure nothing.
"""

__all__: list[str] = []
