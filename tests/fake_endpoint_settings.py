"""Settings and items for runs against fake endpoints: short deadlines, no SDK retries, a breaker
that opens after two failures, two requests per server; so fault tests stay fast."""

from __future__ import annotations

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import CorrectnessItem


def pool_settings(urls: list[str], **extra: object) -> RagjurySettings:
    options: dict[str, object] = {"http_retries": 0, "timeout_s": 10, "breaker_failures": 2, "concurrency": 2, **extra}
    return RagjurySettings(_env_file=None, base_url=",".join(urls), judge_model="phi3:mini", **options)


def some_items(count: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"q{i}", answer=f"a{i}", references=[f"r{i}"]) for i in range(count)]
