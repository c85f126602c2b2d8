"""Honest defaults (issue 10, item 8): when verdicts came from the fallback judge, the gates say so
(``--max-fallback``, 0 by default under any ``--fail-under``) and every summary names the judge
that actually produced the verdicts, never the policy ("auto").

Judges are plug-ins written into the test's folder (``--judge python:honesty_judges:...``): a
fake model judge wrapped in the real ``FallbackJudge``, with the real ``contains`` (correctness)
or heuristic score judge as the fallback. The fake model "fails" on the Nobel question, which
is 5 of the 20 rows of ``pipeline_correctness.jsonl``, so 25 % of the verdicts come from the
fallback; a second one fails on every row.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.results.formatting import percent
from ragjury.evals.results.gates import fallback_failure, max_fallback_limit
from ragjury.evals.report.page import HtmlReport, render_html
from ragjury.evals.results.sources import VerdictSources
from ragjury.rag_agent.core.results import Judgment

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CORRECTNESS = FIXTURES / "pipeline_correctness.jsonl"  # 20 rows, 4 questions x 5 systems
PASSAGES = FIXTURES / "pipeline_passages.jsonl"
TOPICS = FIXTURES / "pipeline_topics.jsonl"

PLUGIN = '''
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
from ragjury.rag_agent.judges.model_free.score import HeuristicScoreJudge
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.core.items import CorrectnessItem, ScoreItem
from ragjury.rag_agent.core.schemas import JudgeScore
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity


class FakeModel(BaseJudge[CorrectnessItem, bool]):
    """Stands in for a model judge: unscored ("server down") on the Nobel question, or always."""

    def __init__(self, name, always_down=False):
        self.name = name
        self.always_down = always_down

    @property
    def identity(self):
        return JudgeIdentity(name=self.name, model="fake-model-1", prompt_version="fake@1")

    async def _judge(self, item):
        if self.always_down or "nobel" in item.question:
            return self.unscored("model server unreachable (test)")
        return self.scored(item.references[0].lower() in item.answer.lower())


class DownScore(BaseJudge[ScoreItem, JudgeScore]):
    name = "fake_scorer"

    @property
    def identity(self):
        return JudgeIdentity(name=self.name, model="fake-model-1", prompt_version="fake@1")

    async def _judge(self, item):
        return self.unscored("model server unreachable (test)")


def PartlyFallback(settings=None):
    return FallbackJudge(FakeModel("fake_model"), ContainsJudge())


def AllFallback(settings=None):
    return FallbackJudge(FakeModel("fake_model_down", always_down=True), ContainsJudge())


def ScoreAllFallback(settings=None):
    return FallbackJudge(DownScore(), HeuristicScoreJudge(settings))
'''
PARTLY = "python:honesty_judges:PartlyFallback"
ALL = "python:honesty_judges:AllFallback"
SCORE_ALL = "python:honesty_judges:ScoreAllFallback"

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No model server, no .env, a cache and the plug-in judges inside the test's folder."""
    plugins = offline_cli / "plugins"
    plugins.mkdir()
    (plugins / "honesty_judges.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(plugins))
    yield
    sys.modules.pop("honesty_judges", None)


def evaluate(*args: object):  # type: ignore[no-untyped-def]
    return runner.invoke(
        app, ["evaluate", "--task", "correctness", "--data", str(CORRECTNESS), "--no-progress", *map(str, args)]
    )


def gate_line(result) -> str:  # type: ignore[no-untyped-def]
    """The one ``gate failed:`` line about the fallback (exactly one such line)."""
    lines = [line for line in result.output.splitlines() if line.startswith("gate failed:") and "came from the fallback judge" in line]
    assert len(lines) == 1, result.output
    return lines[0]


# -- gates -------------------------------------------------------------------------------------------


def test_a_gated_run_fails_when_part_of_the_verdicts_came_from_the_fallback() -> None:
    result = evaluate("--judge", PARTLY, "--fail-under", "coverage=0.5")
    assert result.exit_code == 1, result.output
    line = gate_line(result)
    assert line.startswith("gate failed: 5 of 20 verdicts (25 %) came from the fallback judge 'contains'")
    assert "(--max-fallback 0, the default with --fail-under)" in line
    assert "measure the fallback, not the model" in line and "Pass --max-fallback 1" in line


def test_max_fallback_sets_the_share_a_gated_run_may_have() -> None:
    assert evaluate("--judge", PARTLY, "--fail-under", "coverage=0.5", "--max-fallback", "1").exit_code == 0
    assert evaluate("--judge", PARTLY, "--fail-under", "coverage=0.5", "--max-fallback", "0.25").exit_code == 0
    stricter = evaluate("--judge", PARTLY, "--fail-under", "coverage=0.5", "--max-fallback", "0.2")
    assert stricter.exit_code == 1
    assert "(--max-fallback 0.2)" in gate_line(stricter)


def test_max_fallback_applies_without_a_gate_only_when_given() -> None:
    assert evaluate("--judge", PARTLY).exit_code == 0  # no gate: report, never fail
    limited = evaluate("--judge", PARTLY, "--max-fallback", "0.1")
    assert limited.exit_code == 1 and "(--max-fallback 0.1)" in gate_line(limited)


def test_max_fallback_outside_zero_to_one_is_bad_input() -> None:
    result = evaluate("--judge", PARTLY, "--max-fallback", "1.5")
    assert result.exit_code == 2 and "--max-fallback" in result.output


def test_a_run_without_fallback_verdicts_passes_its_gates() -> None:
    result = evaluate("--judge", "contains", "--fail-under", "coverage=0.5", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["judges"] == {"contains": 20} and summary["gate_failures"] == []
    assert summary["fallback"] == {"count": 0, "share": 0.0, "judge": None}


def test_a_run_judged_entirely_by_the_fallback_says_so() -> None:
    result = evaluate("--judge", ALL, "--fail-under", "coverage=0.5")
    assert result.exit_code == 1
    assert gate_line(result).startswith("gate failed: 20 of 20 verdicts (100 %) came from the fallback judge")
    assert "verdicts by: contains as fallback for 100 %" in result.stdout
    assert "correctness judged by contains on" in " ".join(result.stdout.split())  # the table title


# -- what the summaries say ----------------------------------------------------------------------------


def test_json_names_the_judges_and_the_fallback_share() -> None:
    result = evaluate("--judge", PARTLY, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["judge"] == PARTLY  # what was asked for ...
    assert summary["judges"] == {"fake_model": 15, "contains": 5}  # ... and who answered
    assert summary["fallback"] == {"count": 5, "share": 0.25, "judge": "contains"}
    assert summary["verdicts_by"] == "fake_model (model fake-model-1, prompt fake@1) for 75 %, contains as fallback for 25 %"
    assert summary["gate_failures"] == []


def test_json_of_a_gated_run_lists_the_fallback_gate_failure() -> None:
    result = evaluate("--judge", PARTLY, "--fail-under", "coverage=0.5", "--json")
    assert result.exit_code == 1
    failures = json.loads(result.stdout)["gate_failures"]
    assert len(failures) == 1 and failures[0].startswith("5 of 20 verdicts (25 %)")


def test_human_summary_names_the_judge_that_produced_the_verdicts() -> None:
    result = evaluate("--judge", PARTLY)
    assert result.exit_code == 0, result.output
    assert "verdicts by: fake_model (model fake-model-1, prompt fake@1) for 75 %, contains as fallback for 25 %" in result.stdout
    title = " ".join(result.stdout.split())  # the table title may wrap
    assert "judged by fake_model, contains on" in title and "judged by python:" not in title


def test_html_report_names_the_fallback_in_its_header(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    result = evaluate("--judge", PARTLY, "--html", html, "--fail-under", "coverage=0.5")
    assert result.exit_code == 1
    page = html.read_text(encoding="utf-8")
    header = page[: page.index("<h2>")]  # everything above the first section
    assert "contains as fallback for 25 %" in header
    assert "judged by fake_model, contains</h1>" in header
    assert "5 of 20 verdicts (25 %) came from the fallback judge &#x27;contains&#x27;" in header
    assert "model server unreachable (test)" in header  # why the fallback was needed
    assert "Gates failed" in header and "--max-fallback 0" in header


# -- evaluate --agent ----------------------------------------------------------------------------------


@pytest.fixture
def fake_agent_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference agent answers through a FunctionModel: no model server needed."""
    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import FunctionModel

    import ragjury.rag_agent.agent.reference_agent as agent_module
    def answer(messages, info):  # type: ignore[no-untyped-def]
        text = json.dumps(
            {
                "answer": "Tides are caused by the gravitational pull of the moon.",
                "confidence": 0.7,
                "sources_used": [],
                "reasoning": "from the passages",
            }
        )
        return ModelResponse(parts=[TextPart(text)])

    real = agent_module.RAGAgent
    monkeypatch.setattr(
        agent_module, "RAGAgent", lambda corpus, **kw: real(corpus, **{**kw, "model": FunctionModel(answer)})
    )


def agent_run(*args: object):  # type: ignore[no-untyped-def]
    return runner.invoke(
        app,
        [
            "evaluate",
            "--agent",
            "--corpus",
            str(PASSAGES),
            "--data",
            str(TOPICS),
            "--retrieval",
            "pre",
            "--judge",
            SCORE_ALL,
            "--faithfulness-judge",
            "token-overlap",
            "--no-progress",
            *map(str, args),
        ],
    )


@pytest.mark.usefixtures("fake_agent_model")
def test_agent_gate_fails_per_stage_whose_verdicts_came_from_the_fallback(tmp_path: Path) -> None:
    gated = agent_run("--fail-under", "answered=0.5")
    assert gated.exit_code == 1, gated.output
    line = gate_line(gated)
    assert "score: 2 of 2 verdicts (100 %) came from the fallback judge 'heuristic'" in line
    assert "score verdicts by: heuristic as fallback for 100 %" in gated.stdout
    assert "faithfulness verdicts by: token-overlap for 100 %" in gated.stdout

    assert agent_run("--fail-under", "answered=0.5", "--max-fallback", "1").exit_code == 0
    assert agent_run().exit_code == 0

    html = tmp_path / "agent.html"
    summary = json.loads(agent_run("--json", "--html", html).stdout)
    assert summary["score"]["judges"] == {"heuristic": 2}
    assert summary["score"]["fallback"] == {"count": 2, "share": 1.0, "judge": "heuristic"}
    assert summary["faithfulness"]["fallback"]["count"] == 0
    assert "heuristic as fallback for 100 %" in html.read_text(encoding="utf-8")


# -- judge-evaluate --------------------------------------------------------------------------------------


def judge_one(*args: str):  # type: ignore[no-untyped-def]
    """``--judge auto`` with the model server down: the model-free fallback answers."""
    return runner.invoke(
        app, ["judge-evaluate", "What is RAG?", "--answer", "RAG combines retrieval with generation.", *args]
    )


def test_judge_evaluate_gate_fails_on_a_fallback_verdict() -> None:
    gated = judge_one("--fail-under", "0.01")
    assert gated.exit_code == 1, gated.output
    assert "1 of 1 verdicts (100 %) came from the fallback judge 'heuristic'" in gate_line(gated)
    assert "as fallback" in gated.stdout
    assert judge_one("--fail-under", "0.01", "--max-fallback", "1").exit_code == 0
    assert judge_one().exit_code == 0


def test_judge_evaluate_json_names_the_fallback() -> None:
    result = judge_one("--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["judge"] == "heuristic" and payload["fallback_used"] is True
    assert payload["judges"] == {"heuristic": 1}
    assert payload["fallback"] == {"count": 1, "share": 1.0, "judge": "heuristic"}


# -- the pieces ------------------------------------------------------------------------------------------


def _judgment(judge: str, *, fallback: bool = False, scored: bool = True, model: str | None = None) -> Judgment:
    if not scored:
        return Judgment(judge=judge, unscored=True, unscored_reason="down", fallback_used=fallback)
    return Judgment(value=True, judge=judge, model=model, fallback_used=fallback, fallback_reason="down" * fallback)


def test_verdict_sources_count_scored_verdicts_only() -> None:
    sources = VerdictSources.of(
        [
            _judgment("contains", fallback=True),
            _judgment("answer_correctness", model="qwen"),
            _judgment("answer_correctness", model="qwen"),
            _judgment("contains", fallback=True, scored=False),  # no verdict: not counted
        ]
    )
    assert (sources.scored, sources.fallback, sources.fallback_judge) == (3, 1, "contains")
    assert sources.judges == {"answer_correctness": 2, "contains": 1}
    assert sources.describe() == "answer_correctness (model qwen) for 66.7 %, contains as fallback for 33.3 %"
    empty = VerdictSources.of([_judgment("x", scored=False)])
    assert empty.share is None and empty.as_dict()["fallback"] == {"count": 0, "share": None, "judge": None}


def test_fallback_failure_limits_and_defaults() -> None:
    assert max_fallback_limit(None, gated=False) is None
    assert max_fallback_limit(None, gated=True) == 0.0
    assert max_fallback_limit(0.5, gated=False) == 0.5
    one_in_three = VerdictSources.of([_judgment("a"), _judgment("a"), _judgment("b", fallback=True)])
    assert fallback_failure(one_in_three, None, explicit=False) is None
    assert fallback_failure(one_in_three, 1 / 3, explicit=True) is None  # at the limit passes
    message = fallback_failure(one_in_three, 0.3, explicit=True, stage="score")
    assert message is not None and message.startswith("score: 1 of 3 verdicts (33.3 %) came from the fallback")
    nothing = VerdictSources.of([_judgment("b", fallback=True, scored=False)])
    assert fallback_failure(nothing, 0.0, explicit=False) is None  # nothing scored: exit 3 says that
    assert percent(1.0) == "100 %" and percent(0.185) == "18.5 %" and percent(0.0) == "0 %"


def test_html_notes_are_escaped() -> None:
    page = render_html(HtmlReport(title="t", notes=["<b>fallback</b>"]))
    assert "<p class='warn'>&lt;b&gt;fallback&lt;/b&gt;</p>" in page
