"""The labelling tool: a person labels items blind to the judge (``ragjury label``).

The session (order, resume, overlap, rechecks) and the summary measure; the page (Starlette) and
the terminal (Textual) are its views. The labels file itself is an input format: ``evals/io/label_acts``.
"""

__all__: list[str] = []
