"""Judges made of judges: a panel that votes, a fallback, and views of one task's judge as another's."""

__all__: list[str] = []
