"""``ragjury fit --task relevance``: a head over the llm judge's P("1") (read through the cache)
and the MiniLM cosine, applied with ``--judge fitted:HEAD``. The llm judge is a scripted stand-in
here (the real server's path is in tests/integration/test_fit_relevance_llm.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.llm.relevance import RelevanceVerdict

TREC = Path(__file__).resolve().parents[3] / "examples" / "data" / "trec"
runner = CliRunner()


class ScriptedLLM(BaseJudge[RelevanceItem, RelevanceVerdict]):
    """P("1") from the share of query words in the passage; "?" in a passage leaves it unscored."""

    name = "relevance_verdict"
    calls = 0

    def __init__(self, model: str = "scripted-model") -> None:
        self.model = model

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model=self.model, prompt_version="scripted@1")

    async def _judge(self, item: RelevanceItem) -> Judgment[RelevanceVerdict]:
        ScriptedLLM.calls += 1
        if "unscorable" in item.retrieved_text:
            return self.unscored("scripted failure")
        words = set(item.query.lower().split())
        share = sum(w in item.retrieved_text.lower() for w in words) / max(len(words), 1)
        p = 0.05 + 0.9 * share
        return self.scored(RelevanceVerdict(verdict=p >= 0.5, method="logprobs", probability=p))


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> type[ScriptedLLM]:
    import ragjury.evals.pipelines.relevance_head as pipeline
    import ragjury.rag_agent.judges.combined.fitted_relevance as fitted

    ScriptedLLM.calls = 0
    monkeypatch.setattr(pipeline, "relevance_llm_judge", lambda settings: ScriptedLLM())
    monkeypatch.setattr(fitted, "relevance_llm_judge", lambda settings: ScriptedLLM(settings.judge_model))
    return ScriptedLLM


def fit_args(tmp_path: Path, *extra: str) -> list[str]:
    return ["fit", "--task", "relevance", "--data", str(TREC / "qrels.txt"), "--topics", str(TREC / "topics.jsonl"),
            "--passages", str(TREC / "passages.jsonl"), "--out", str(tmp_path / "head.json"),
            "--cache", str(tmp_path / "cache.sqlite"), "--no-progress", *extra]


def test_fit_relevance_writes_a_head_and_a_second_fit_reads_every_p_from_the_cache(
    tmp_path: Path, scripted: type[ScriptedLLM]
) -> None:
    result = runner.invoke(app, fit_args(tmp_path, "--json"))
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["features"] == ["llm_logit", "cosine"] and payload["base"]["judge"] == "llm"
    assert payload["n"] == 86 and payload["positives"] == 57  # grade >= 2 of the 86 pairs
    assert payload["judging"]["judged"] == 86 and payload["cross_validation"].startswith("nested")
    low, high = payload["gain_interval"]
    assert low <= payload["gain"] <= high
    head = json.loads((tmp_path / "head.json").read_text())
    assert head["task"] == "relevance" and head["model"] == "scripted-model"
    calls = scripted.calls
    again = runner.invoke(app, fit_args(tmp_path, "--json", "--signals", "llm"))
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["judging"]["cached"] == 86 and scripted.calls == calls  # no model call
    assert json.loads(again.stdout)["features"] == ["llm_logit"]


@pytest.mark.parametrize(("signals", "words"), [("llm,bm25", "unknown signal 'bm25'"), ("cosine", "must include llm")])
def test_bad_signals_are_one_line(tmp_path: Path, scripted: type[ScriptedLLM], signals: str, words: str) -> None:
    result = runner.invoke(app, fit_args(tmp_path, "--signals", signals))
    assert result.exit_code == 2 and words in result.output
    assert "Traceback" not in result.output


def test_relevance_needs_topics_and_passages(tmp_path: Path) -> None:
    result = runner.invoke(app, ["fit", "--task", "relevance", "--data", str(TREC / "qrels.txt"),
                                 "--out", str(tmp_path / "h.json")])
    assert result.exit_code == 2 and "--topics and --passages" in result.output


async def test_the_fitted_judge_reads_the_head_and_refuses_another_model(
    tmp_path: Path, scripted: type[ScriptedLLM]
) -> None:
    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, build_judge

    assert runner.invoke(app, fit_args(tmp_path)).exit_code == 0
    spec = f"fitted:{tmp_path / 'head.json'}"
    judge = build_judge("relevance", spec, RagjurySettings(judge_model="scripted-model"))
    good = await judge.ajudge(RelevanceItem(query="active margin", retrieved_text="An active margin is a plate edge."))
    bad = await judge.ajudge(RelevanceItem(query="active margin", retrieved_text="Cats sleep a lot."))
    assert good.scored and bad.scored and good.value.probability > bad.value.probability
    failed = await judge.ajudge(RelevanceItem(query="active margin", retrieved_text="unscorable text"))
    assert failed.unscored and failed.unscored_reason == "llm: scripted failure"
    with pytest.raises(UnknownJudgeError, match="fitted on P"):
        build_judge("relevance", spec, RagjurySettings(judge_model="another-model"))


def test_a_relevance_head_with_features_out_of_order_is_refused(tmp_path: Path, scripted: Any) -> None:
    from ragjury.rag_agent.judges.model_free.fitted import HeadError, load_head

    assert runner.invoke(app, fit_args(tmp_path)).exit_code == 0
    data = json.loads((tmp_path / "head.json").read_text())
    data["features"] = ["cosine", "llm_logit"]
    (tmp_path / "swapped.json").write_text(json.dumps(data))
    with pytest.raises(HeadError, match="in that order"):
        load_head(tmp_path / "swapped.json")


def test_pairs_with_unknown_ids_are_counted_in_skipped(tmp_path: Path, scripted: type[ScriptedLLM]) -> None:
    """#54 item 30: a qrels pair whose query or passage has no text was dropped with "skipped": 0."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text((TREC / "qrels.txt").read_text() + "no-such-query 0 d1 2\nq1 0 no-such-passage 1\n")
    args = fit_args(tmp_path, "--json")
    args[args.index("--data") + 1] = str(qrels)
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["n"] == 86 and payload["skipped"] == 2


@pytest.mark.parametrize("grade", ["-1", "4"])
def test_grades_outside_0_to_3_are_refused_with_file_and_line(
        tmp_path: Path, scripted: type[ScriptedLLM], grade: str) -> None:
    lines = (TREC / "qrels.txt").read_text().splitlines()
    first = lines[0].split()
    lines[2] = f"{first[0]} 0 {first[2]}x {grade}"
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("\n".join(lines) + "\n")
    args = fit_args(tmp_path)
    args[args.index("--data") + 1] = str(qrels)
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "grade must be 0, 1, 2 or 3" in result.output and f"{qrels}:3" in result.output.replace("\n", "")


def test_a_signal_free_head_reports_no_kappa_not_an_artefact() -> None:
    """#54 item 30: a head with no signal answers each fold with a constant; pooled, those gave a kappa
    (-0.468 [-0.578, -0.348] in the report; -0.027 on this draw) for a head that judged nothing."""
    import numpy as np

    from ragjury.evals.pipelines.fit_run import FeatureSpec, fit_signals, gain_shown

    rng = np.random.default_rng(0)
    y = rng.random(60) < 0.45
    x = np.ones((60, 1)) + rng.normal(size=(60, 1)) * 1e-9  # no signal
    head = fit_signals("relevance", x, y, [f"q{i % 12}" for i in range(60)], fitted_on="t",
                       spec=FeatureSpec(("llm_logit",)))
    figures = head.figures
    assert figures["head_random"]["kappa"] is None and "constant within each fold" in figures["head_random"]["unmeasurable"]
    assert figures["gain"] is None and gain_shown(figures) == "unmeasured"
