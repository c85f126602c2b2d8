"""The --fail-under gates (``evals/results/gates``): aliases, bad syntax one line, and a figure that is
undefined or absent never passes."""

from __future__ import annotations

import pytest

from ragjury.evals.results.gates import failed_gates, parse_gates
from ragjury.rag_agent.core.input_files import InputError


def test_parse_gates_resolves_aliases() -> None:
    assert parse_gates(["kappa=0.5", "tau=0.8", "accuracy = 0.9", "graded_cohen_kappa=0.3"]) == {
        "cohen_kappa": 0.5,
        "kendall_tau": 0.8,
        "accuracy": 0.9,
        "graded_cohen_kappa": 0.3,
    }
    assert parse_gates([]) == {}


@pytest.mark.parametrize("spec", ["kappa", "=0.5", "kappa=", "kappa=high", "kappa=nan"])
def test_parse_gates_rejects_bad_syntax(spec: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_gates([spec])
    assert caught.value.source == "--fail-under"


def test_failed_gates() -> None:
    figures = {"cohen_kappa": 0.45, "accuracy": 0.9, "krippendorff_alpha": None}
    assert failed_gates(figures, {"cohen_kappa": 0.4, "accuracy": 0.9}) == []
    failures = failed_gates(figures, {"kappa": 0.5, "alpha": 0.1, "kendall_tau": 0.5})
    assert len(failures) == 3
    assert failures[0].startswith("cohen_kappa: 0.4500 < 0.5")
    assert "undefined" in failures[1]  # an unscored figure never passes
    assert "no such figure" in failures[2]  # nor does an absent one
