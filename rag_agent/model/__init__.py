"""The model client: building a pydantic-ai model for a server, calling it, reading one token's
probabilities, and stopping when the server is gone."""

__all__: list[str] = []
