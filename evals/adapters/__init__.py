"""ragjury judges inside other evaluation frameworks.

One small module per framework (pydantic-evals, Inspect, pytest), because each framework is
optional and importing one adapter must not import the others'. What they share is in
``evals.adapters.judging``; in all, an unscored judgment fails with its reason, never a 0.
"""

__all__: list[str] = []
