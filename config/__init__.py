"""Configuration: settings from the environment and prompts with version strings.

The names load on first use (PEP 562): importing ``ragjury.config.instructions`` or starting the
CLI must not pay for pydantic-settings.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["OutputMode", "RagjurySettings", "ScoreWeights", "get_settings"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'ragjury.config' has no attribute {name!r}")
    return getattr(importlib.import_module("ragjury.config.settings"), name)


if TYPE_CHECKING:
    from ragjury.config.settings import OutputMode, RagjurySettings, ScoreWeights, get_settings
