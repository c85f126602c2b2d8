"""Every judge: LLM judges (``llm``), model-free ones (``model_free``), ways to combine them
(``combined``), user-defined evaluators, and the catalogue that resolves a ``--judge`` name."""

__all__: list[str] = []
