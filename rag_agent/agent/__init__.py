"""The reference RAG agent: BM25 retrieval over local passages and a typed answer from the model."""

__all__: list[str] = []
