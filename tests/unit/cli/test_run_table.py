"""The run summary shows no rate for an all-cached run and counts what an interrupted run never reached."""

from __future__ import annotations

from rich.console import Console

from ragjury.commands.evaluate_output import run_table


def shown(stats: dict) -> str:
    console = Console(width=100, record=True)
    console.print(run_table("run", stats))
    return console.export_text()


def test_an_all_cached_run_shows_no_rate() -> None:
    text = shown({"n": 10, "scored": 10, "unscored": 0, "cached": 10, "judged": 0, "wall_s": 0.1, "judgments_per_s": 0.0})
    assert "judgments/s" not in text and "not_judged" not in text


def test_an_interrupted_run_shows_what_it_never_reached() -> None:
    text = shown({"n": 100, "scored": 14, "unscored": 0, "not_judged": 86, "cached": 0, "judged": 14, "wall_s": 7.0,
                  "judgments_per_s": 2.0})
    assert "not_judged" in text and "86" in text and "judgments/s" in text
