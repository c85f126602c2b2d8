"""Configuration: settings from the environment and prompts with version strings."""

from ragjury.config.settings import OutputMode, RagjurySettings, ScoreWeights, get_settings

__all__ = ["OutputMode", "RagjurySettings", "ScoreWeights", "get_settings"]
