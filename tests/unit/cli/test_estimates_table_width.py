"""estimate's table at 80 columns (piped) keeps the system column readable when clipped cells
like ``1.000+.000/−.278`` are wide (issue 35 item 15: it was squeezed to zero width)."""

from __future__ import annotations

from types import SimpleNamespace

from rich.console import Console

from ragjury.commands.estimates_output import estimates_table


def estimate(value: float, low: float, high: float) -> SimpleNamespace:
    return SimpleNamespace(value=value, low=low, high=high)


def test_the_system_names_survive_80_columns() -> None:
    systems = [
        SimpleNamespace(system=name, n_labels=50, n_items=1500, judge=estimate(1.0, 0.722, 1.0),
                        human_only=estimate(0.98, 0.894, 1.0), prediction_powered=estimate(0.999, 0.8, 1.0),
                        bias=0.021, effective_labels=123)
        for name in ("chatgpt-4o", "fid-large", "newbing")
    ]
    result = SimpleNamespace(level=0.95, judge="contains", n_labels=150, systems=systems)
    console = Console(width=80, record=True, force_terminal=False)
    console.print(estimates_table(result))
    text = console.export_text()
    for name in ("chatgpt-4o", "fid-large", "newbing"):
        assert f"│ {name}" in text  # whole, in its own column
    assert all(len(line) <= 80 for line in text.splitlines()) and text.splitlines()[1].endswith("┓")  # not cropped
