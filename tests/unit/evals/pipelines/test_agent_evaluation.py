"""``evaluate_agent`` as a library: the agent's answers go through the same cached runner as
judgments (``evals.agent_answers``), each judge stage is a finished run, and ``AgentEvaluation``
keeps the answers and its stages, with views of their figures: gates, answers file, JSON payload
and HTML report. Also ``judge_answer`` behind ``ask --judge``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragjury.config.settings import RagjurySettings
from ragjury.evals.pipelines.agent_evaluation import AgentEvaluation, AgentFiles, GroundTruth, evaluate_agent
from ragjury.evals.pipelines.answer_judgments import judge_answer
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.evals.results.gates import Gates, agent_figures
from ragjury.evals.runs.agent_answers import AgentJudge, AgentRun, agent_identity, ask_agent
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.rag_agent.agent.reference_agent import AgentResponse
from ragjury.rag_agent.core.protocol import JudgeIdentity
from ragjury.rag_agent.core.results import Usage
from ragjury.rag_agent.core.schemas import RAGAnswer, SourceDocument

PARIS = SourceDocument(id="d1", content="Paris is the capital of France.")
LYON = SourceDocument(id="d2", content="Lyon is a city in France.")


class Agent:
    """Answers with ``AgentResponse``s; on a question with 'fail' it reports an error after having
    retrieved (as ``RAGAgent`` does when the model server is down)."""

    identity = JudgeIdentity(name="test_agent", model="m-1", prompt_version="p@1", params="corpus=x")

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def query(self, question: str) -> AgentResponse:
        self.asked.append(question)
        usage = Usage(input_tokens=10, output_tokens=5, requests=1)
        if "fail" in question:
            return AgentResponse(question=question, error="server down", sources=[LYON], usage=usage)
        answer = RAGAnswer(answer="Paris is the capital of France.", sources_used=["d1"])
        return AgentResponse(question=question, answer=answer, sources=[PARIS, LYON], usage=usage)


TRUTHS: list[Any] = [
    GroundTruth("What is the capital of France?", ["Paris"], id="t1"),
    {"question": "Name the French capital", "references": "Lyon", "id": "t2"},
    "please fail this one",
]


async def run(agent: Agent, cache: JudgmentCache | None = None) -> AgentEvaluation:
    return await evaluate_agent(
        TRUTHS,
        agent,
        build_judge("score", "heuristic"),
        faithfulness_judge=build_judge("faithfulness", "token-overlap"),
        correctness_judge=build_judge("correctness", "contains"),
        cache=cache,
    )


async def test_figures_gates_and_summary_of_an_agent_run() -> None:
    evaluation = await run(Agent())
    assert list(evaluation.stages) == ["score", "faithfulness", "correctness"]
    assert evaluation.answered == 2 and evaluation.errors == ["server down"]
    figures = evaluation.figures()
    assert set(figures) == set(agent_figures(faithfulness=True, correctness=True))
    assert figures["answered"] == pytest.approx(2 / 3)
    assert figures["correctness"] == 0.5 and figures["correctness_coverage"] == 1.0
    assert evaluation.gate(Gates.parse(["answered=0.9"])) == ["answered: 0.6667 < 0.9"]
    assert evaluation.gate(Gates.parse(["answered=0.5", "correctness=0.5"])) == []
    agent = evaluation.summary()["agent"]
    assert agent == {
        "questions": 3, "answered": 2, "errors": 1, "cached": 0, "asked": 3,
        "tokens": 45, "requests": 3, "wall_s": agent["wall_s"], "identity": Agent.identity.key(),
    }  # fmt: skip
    assert evaluation.scored == 6 and evaluation.why_unscored is None


async def test_payload_and_files_of_an_agent_run(tmp_path: Path) -> None:
    evaluation = await run(Agent())
    answers, html = tmp_path / "a.jsonl", tmp_path / "a.html"
    failures = evaluation.gate(Gates.parse(["answered=0.9"]))
    evaluation.write(AgentFiles(Path("q.jsonl"), Path("c.jsonl"), answers, html), gate_failures=failures)
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["t1", "t2", "2"]
    assert rows[0]["correct"] is True and rows[1]["correct"] is False and rows[0]["sources"] == ["d1", "d2"]
    assert rows[2]["answer"] is None and rows[2]["agent_error"] == "server down"
    assert rows[2]["sources"] == ["d2"]  # what the agent retrieved before it failed is kept
    assert "score" not in rows[2]  # a question without an answer is not judged
    page = html.read_text(encoding="utf-8")
    assert "<h1>ragjury evaluate --agent</h1>" in page and "answered: 0.6667 &lt; 0.9" in page
    assert Agent.identity.key() in page and "c.jsonl" in page
    files = AgentFiles(Path("q.jsonl"), Path("c.jsonl"), answers)
    payload = evaluation.payload(files, gate_failures=failures)
    assert payload["mode"] == "agent" and payload["gate_failures"] == failures
    assert payload["figures"] == evaluation.figures()
    assert payload["inputs"] == {"data": "q.jsonl", "corpus": "c.jsonl"}
    assert payload["outputs"] == {"answers": str(answers), "html": None}
    assert payload["score"]["skipped_no_answer"] == 1 and payload["correctness"]["mean"] == 0.5


async def test_answers_resume_from_the_cache_with_their_sources(tmp_path: Path) -> None:
    with JudgmentCache(tmp_path / "c.sqlite") as cache:
        first = await run(Agent(), cache)
        again = Agent()
        second = await run(again, cache)
    assert again.asked == ["please fail this one"]  # a failed answer is asked again, like any unscored
    assert (second.agent_stats.cached, second.agent_stats.judged) == (2, 1)
    cached = second.rows[0].answer
    assert isinstance(cached.run, AgentRun) and cached.sources == [PARIS, LYON]
    assert cached.answer == first.rows[0].answer.answer
    assert [r.as_dict() for r in second.rows] == [r.as_dict() for r in first.rows]


async def test_keeping_unscored_keeps_failed_answers_too(tmp_path: Path) -> None:
    with JudgmentCache(tmp_path / "c.sqlite") as cache:
        await run(Agent(), cache)
    with JudgmentCache(tmp_path / "c.sqlite", retry_unscored=False) as kept:
        again = Agent()
        second = await run(again, kept)
    assert again.asked == [] and second.agent_stats.cached == 3
    assert second.rows[2].answer.error == "server down" and second.rows[2].answer.sources == [LYON]


async def test_identical_questions_are_asked_once() -> None:
    agent = Agent()
    answers, stats = await ask_agent(agent, ["q?", "q?", "other?"])
    assert agent.asked == ["q?", "other?"]
    assert (stats.judged, stats.duplicates, stats.total) == (2, 1, 3)
    assert answers[0].answer == answers[1].answer and answers[0].answer is not None


async def test_agents_of_any_shape_become_judgments() -> None:
    class Plain:
        model_name = "plain-1"

        async def query(self, question: str) -> Any:
            if question == "raise":
                raise ConnectionError("down")
            if question == "nothing":
                return object()
            return "a plain answer"

    judge = AgentJudge(Plain())
    assert judge.identity == agent_identity(Plain())
    assert judge.identity.model == "plain-1" and judge.identity.name.endswith("Plain")
    text, raised, nothing = [await judge.ajudge(q) for q in ("q", "raise", "nothing")]
    assert text.value == RAGAnswer(answer="a plain answer")
    assert isinstance(text, AgentRun) and text.sources == []
    assert raised.unscored and raised.unscored_reason == "ConnectionError: down"
    assert nothing.unscored and nothing.unscored_reason == "the agent returned no answer (object)"


async def test_an_agent_that_answers_nothing_says_why() -> None:
    scorer = build_judge("score", "heuristic")
    evaluation = await evaluate_agent(["fail one", "fail two"], Agent(), scorer)
    assert evaluation.scored == 0 and evaluation.answered == 0
    assert evaluation.why_unscored == "the agent answered no question (server down)"
    assert evaluation.stages["score"].stats.total == 0


async def test_judge_answer_without_a_model_skips_faithfulness() -> None:
    settings = RagjurySettings(_env_file=None)  # type: ignore[call-arg]
    response = await Agent().query("What is the capital of France?")
    judgments = await judge_answer(response, settings, "heuristic")
    assert judgments.scored and judgments.faithfulness is None
    assert judgments.skipped == "--judge-mode heuristic uses no model"
    score = judgments.score.value
    assert judgments.score.judge == "deterministic_score" and score is not None
    assert 0.0 <= score.overall_score <= 1.0
    with pytest.raises(ValueError, match="nothing to judge"):
        await judge_answer(await Agent().query("fail"), settings, "heuristic")


async def test_each_stage_is_a_finished_run_and_the_evaluation_holds_no_figure_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each judge stage is a ``FinishedRun`` over the questions it judged; ``AgentEvaluation`` keeps
    the answers and the stages, and its summary, figures, gates, page and payload read the stages'
    figures, each measured once (issue #46: as ``DatasetEvaluation`` holds none of its own)."""
    import ragjury.evals.pipelines.agent_evaluation as module
    from ragjury.evals.results import finished_run
    from ragjury.evals.results.finished_run import FinishedRun

    made: list[object] = []
    measure = finished_run.run_result
    monkeypatch.setattr(finished_run, "run_result", lambda *a, **k: made.append(a) or measure(*a, **k))
    evaluation = await run(Agent())
    assert all(isinstance(stage, FinishedRun) for stage in evaluation.stages.values())
    assert [[r.id for r in stage.records] for stage in evaluation.stages.values()] == [["t1", "t2"]] * 3
    fields = {"rows", "agent_stats", "stages", "agent"}
    own = {name for name in vars(AgentEvaluation) if not name.startswith("_")} - fields
    assert own == {"answered", "errors", "scored", "why_unscored", "summary", "figures", "gate", "stage_sources",
                   "answer_rows", "html_report", "write", "payload"}  # counts of answers, then views
    assert "evals.stats" not in Path(module.__file__).read_text()  # nothing measured here

    files = AgentFiles(Path("q.jsonl"), Path("c.jsonl"), tmp_path / "a.jsonl", tmp_path / "a.html")
    gates = Gates.parse(["answered=0.5", "score=0.1"])
    summary, figures, payload = evaluation.summary(), evaluation.figures(), evaluation.payload(files)
    evaluation.gate(gates)
    evaluation.write(files)
    assert len(made) == len(evaluation.stages)  # each stage's result measured once, whatever read it
    for name, stage in evaluation.stages.items():
        own_figures = stage.figures()
        assert summary[name]["result"] == stage.result.as_dict() == payload[name]["result"]
        assert summary[name]["mean"] == figures[name] == round(own_figures["mean_label"], 6)
        assert figures[f"{name}_coverage"] == own_figures["coverage"]
        assert {key: summary[name][key] for key in ("judges", "fallback", "verdicts_by")} == stage.sources.as_dict()
        assert summary[name]["n"] == stage.stats.total and summary[name]["skipped_no_answer"] == 1


async def test_a_score_stage_that_scored_nothing_states_a_mean() -> None:
    """The one figure a finished-run stage states otherwise than the hand-made one did: a score
    stage with no scored judgment was a "judged rate" (its verdicts were all missing, so none was
    a number); it is a mean score, as the same stage's result is when anything is scored."""
    evaluation = await evaluate_agent(["fail one"], Agent(), build_judge("score", "heuristic"))
    result = evaluation.summary()["score"]["result"]
    assert result["measure"] == "mean score" and result["mean"] is None and "rate" not in result
