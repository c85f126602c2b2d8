"""Training a judge on people's labels (``ragjury train``): torch is imported only in here, on use.

Below the runs and the pipelines: it knows text pairs and targets, not datasets or commands.
"""

__all__: list[str] = []
