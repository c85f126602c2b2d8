"""``evaluate_dataset`` as a library: the finished ``DatasetEvaluation`` owns its figures, gates,
predictions file, JSON payload and HTML report (no CLI involved), and ``Gates`` checks
``--fail-under`` thresholds and the fallback limit together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.pipelines.dataset_evaluation import DatasetFiles, DatasetEvaluation, evaluate_dataset
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.evals.results.gates import BINARY_TASK_FIGURES, Gates
from ragjury.evals.report.run_report import build_report, report_payload
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
CORRECTNESS = FIXTURES / "pipeline_correctness.jsonl"  # 20 evouna-nq rows, 4 questions x 5 systems


class DownOnNobel(BaseJudge[CorrectnessItem, bool]):
    """A stand-in model judge: unscored on the Nobel question (5 of the 20 rows), so the
    ``contains`` fallback produces a quarter of the verdicts."""

    name = "fake_model"

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model="fake-model-1", prompt_version="fake@1")

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        if "nobel" in item.question:
            return self.unscored("model server unreachable (test)")
        return self.scored(item.references[0].lower() in item.answer.lower())


async def contains_run() -> DatasetEvaluation:
    judge = build_judge("correctness", "contains")
    return await evaluate_dataset("correctness", CORRECTNESS, judge, progress=False)


async def test_the_result_owns_its_figures_and_gates() -> None:
    result = await contains_run()
    figures = result.figures()
    assert set(figures) == set(BINARY_TASK_FIGURES)
    assert figures["accuracy"] == pytest.approx(0.65) and figures["coverage"] == 1.0
    assert figures["cohen_kappa"] == pytest.approx(0.3269, abs=1e-4)
    assert result.gate(Gates.parse(["kappa=0.99"])) == ["cohen_kappa: 0.3269 < 0.99"]
    assert result.gate(Gates.parse(["kappa=0.3", "coverage=1"])) == []
    assert result.gate(Gates.parse(["tau=0.99", "acc=0.7"])) == [
        f"kendall_tau: {figures['kendall_tau']:.4f} < 0.99",
        "accuracy: 0.6500 < 0.7",
    ]
    assert result.verdict_judges == "contains" and result.why_unscored is None
    assert result.identity is not None and result.identity.name == "contains"


async def test_the_json_payload_names_inputs_outputs_and_failed_gates(tmp_path: Path) -> None:
    result = await contains_run()
    preds, html = tmp_path / "p.jsonl", tmp_path / "r.html"
    files = DatasetFiles(CORRECTNESS, predictions=preds, html=html)
    payload = result.payload(files, input_mapping={"format": "ragjury"}, gate_failures=["x"])
    assert payload["mode"] == "dataset" and payload["gate_failures"] == ["x"]
    assert payload["inputs"] == {"data": str(CORRECTNESS)}
    assert payload["outputs"] == {"predictions": str(preds), "html": str(html)}
    assert payload["input_mapping"] == {"format": "ragjury"}
    assert (payload["n"], payload["scored"], payload["labelled"]) == (20, 20, 20)
    assert payload["judges"] == {"contains": 20} and payload["fallback"]["count"] == 0
    assert payload["agreement"]["confusion"] == [[8, 1], [6, 5]]
    assert payload["ranking"]["correlation"]["kendall_tau"] == payload["figures"]["kendall_tau"]
    assert list(payload)[-5:] == ["mode", "inputs", "input_mapping", "outputs", "gate_failures"]


async def test_write_puts_gate_failures_in_the_html_and_rows_in_the_predictions(tmp_path: Path) -> None:
    result = await contains_run()
    failures = result.gate(Gates.parse(["kappa=0.99"]))
    preds, html = tmp_path / "p.jsonl", tmp_path / "r.html"
    result.write(DatasetFiles(CORRECTNESS, predictions=preds, html=html), gate_failures=failures)
    rows = [json.loads(line) for line in preds.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 20 and rows[0]["id"] == "nq-0-fid" and rows[0]["label"] is False
    assert rows[0]["gold"] is True and rows[0]["item"]["references"] == ["Wilhelm Conrad Röntgen"]
    page = html.read_text(encoding="utf-8")
    assert "<h1>ragjury evaluate: correctness judged by contains</h1>" in page
    assert "Gates failed" in page and "cohen_kappa: 0.3269 &lt; 0.99" in page
    assert "contains · no model · prompt contains@1.0" in page  # the judge's identity
    # The predictions file alone rebuilds the same figures (``ragjury report``).
    run = load_predictions(preds)
    _report, (rebuilt,) = build_report([run])
    assert rebuilt.figures() == pytest.approx(result.figures())
    payload = report_payload([rebuilt], [preds])
    assert payload["runs"][0]["figures"] == rebuilt.figures() and "comparison" not in payload
    assert payload["runs"][0]["ranking"] == result.ranking.as_dict()  # type: ignore[union-attr]


async def test_fallback_verdicts_fail_a_gated_run_unless_allowed() -> None:
    judge = FallbackJudge(DownOnNobel(), ContainsJudge())
    result = await evaluate_dataset("correctness", CORRECTNESS, judge, progress=False)
    assert result.sources.fallback == 5 and result.figures()["coverage"] == 1.0
    (failure,) = result.gate(Gates.parse(["coverage=0.5"]))
    assert failure.startswith("5 of 20 verdicts (25 %) came from the fallback judge 'contains'")
    assert "--max-fallback 0, the default with --fail-under" in failure
    assert result.gate(Gates.parse(["coverage=0.5"], max_fallback=1.0)) == []
    assert result.gate(Gates.parse([])) == []  # ungated runs only report
    (explicit,) = result.gate(Gates.parse([], max_fallback=0.2))
    assert "(--max-fallback 0.2)" in explicit
    note = result.html_report(CORRECTNESS).notes[0]
    assert "5 of 20 verdicts (25 %)" in note and "model server unreachable (test)" in note


async def test_an_unscored_run_says_why(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"question": "q", "answer": "x", "references": ["?!"], "label": True}) + "\n")  # nothing to match
    result = await evaluate_dataset("correctness", data, ContainsJudge(), progress=False)
    assert result.stats.scored == 0 and result.predictions[0].label is None
    assert (result.why_unscored or "").startswith("every judgment is unscored, e.g.: ")
    assert result.figures()["coverage"] == 0.0
    # the unscored gate allowed deliberately: this checks that an undefined figure fails its own gate
    assert result.gate(Gates.parse(["accuracy=0.1"], max_unscored=1)) == ["accuracy: undefined (unscored); required >= 0.1"]


def test_gates_parse_defaults_and_names() -> None:
    gated = Gates.parse(["kappa=0.4"])
    assert gated.thresholds == {"cohen_kappa": 0.4} and gated.max_fallback == 0.0
    assert not gated.explicit_fallback
    assert Gates.parse([]).max_fallback is None
    assert Gates.parse([], 0.3) == Gates({}, 0.3, explicit_fallback=True)
    gated.check_names(BINARY_TASK_FIGURES)
    with pytest.raises(InputError, match="unknown figure 'kapa'"):
        Gates.parse(["kapa=0.4"]).check_names(BINARY_TASK_FIGURES)
    with pytest.raises(InputError, match="expected METRIC=VALUE"):
        Gates.parse(["kappa"])
