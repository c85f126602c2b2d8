"""Numbers about judges and systems: agreement, intervals, IR metrics, correlations, calibration.

Numpy only, no model and no files: the layer every report and pipeline builds on.
"""

__all__: list[str] = []
