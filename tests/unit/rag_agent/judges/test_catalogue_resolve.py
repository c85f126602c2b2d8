"""The judge registry: names per task, clear errors, plug-ins, adapters and label extraction."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges import catalogue
from ragjury.rag_agent.judges.catalogue import (
    UnknownJudgeError,
    build_judge,
    resolve,
    judge_names,
    tasks,
)
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import BaseJudge, Judge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.schemas import JudgeScore
from ragjury.rag_agent.judges.combined.adapted import (
    AdaptedJudge,
    correctness_contexts,
    faithfulness_contexts,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
SETTINGS = RagjurySettings(base_url="http://127.0.0.1:9/v1")  # never contacted: building makes no call


def test_every_task_has_the_documented_names() -> None:
    assert set(tasks()) >= {"relevance", "correctness", "faithfulness", "score", "goal"}
    # the names README documents (a new judge adds to them, it removes none)
    assert {"non-llm", "semantic", "token-overlap", "llm", "llm-graded"} <= set(judge_names("relevance"))
    assert {"contains", "semantic", "token-overlap", "llm", "auto"} <= set(judge_names("correctness"))
    assert {"stack", "support", "token-overlap", "llm-attribution", "llm", "auto"} <= set(judge_names("faithfulness"))
    assert {"heuristic", "llm", "auto"} <= set(judge_names("score"))
    assert {"llm", "auto"} <= set(judge_names("goal"))
    assert resolve("relevance", "non-llm").scale == "graded"
    assert resolve("relevance", "llm").scale == "binary"


@pytest.mark.parametrize("task", tasks())
def test_model_free_judges_come_first_then_llm_judges_then_auto(task: str) -> None:
    declared = catalogue.declared()
    listed = judge_names(task)
    own = [name for name in listed if name != "auto"]
    uses_model = [declared[(task, name)].uses_model for name in own]
    assert uses_model == sorted(uses_model)  # False (model-free) before True (LLM)
    assert ("auto" in listed) == (catalogue.default_name(task) is not None)
    assert "auto" not in listed or listed[-1] == "auto"


@pytest.mark.parametrize(("task", "name"), sorted(catalogue.declared()))
def test_every_declared_judge_builds_and_reports_under_its_own_name(task: str, name: str) -> None:
    """Each judge the catalogue declares builds, its identity maps back to the name typed, and an
    LLM judge takes its model from the settings (a judge added later is checked without an edit)."""
    judge = build_judge(task, name, SETTINGS.model_copy(update={"judge_model": "judge-x"}))
    assert isinstance(judge, Judge)
    assert catalogue.catalogue_name(task, judge.identity.name) == name
    if catalogue.declared()[(task, name)].uses_model:
        assert judge.identity.model == "judge-x"


@pytest.mark.parametrize(
    ("task", "name", "judge_name"),
    [
        ("relevance", "token-overlap", "token_overlap"),
        ("relevance", "non-llm", "non_llm"),
        ("relevance", "llm", "relevance_verdict"),
        ("relevance", "llm-graded", "relevance_grade"),
        ("correctness", "contains", "contains"),
        ("correctness", "llm", "answer_correctness"),
        # auto changed on purpose (issue #43): the guarded judge, which the judged text cannot talk
        # into "yes", is correctness' default; a cached auto judgment of the one-call judge is not reused
        ("correctness", "auto", "answer_correctness_guarded|fallback:contains"),
        ("correctness", "llm-guarded", "answer_correctness_guarded"),
        ("score", "auto", "judge_llm|fallback:deterministic_score"),
        ("faithfulness", "auto", "faithfulness|fallback:support"),
        ("goal", "llm", "goal_accuracy"),
        ("correctness", "token-overlap", "token_overlap[correctness]"),
        ("faithfulness", "llm", "faithfulness"),
        ("faithfulness", "token-overlap", "token_overlap[faithfulness]"),
        ("score", "heuristic", "deterministic_score"),
        ("score", "deterministic", "deterministic_score"),  # the name before issue #30, an alias now
        ("score", "llm", "judge_llm"),
    ],
)
def test_the_judges_of_the_first_release_keep_their_identity_names(task: str, name: str, judge_name: str) -> None:
    """Identity names are in every cache key and predictions file: these never change silently
    (a judge added later needs no line here; the test above checks it)."""
    judge = build_judge(task, name, SETTINGS.model_copy(update={"judge_model": "judge-x"}))
    assert judge.identity.name == judge_name
    if name == "auto":
        assert judge.identity.model == "judge-x"  # auto's model comes from the settings too


def test_a_retired_name_resolves_to_its_judge_but_is_listed_nowhere() -> None:
    """``deterministic`` (the score judge before issue #30) builds the ``heuristic`` judge, whose
    verdicts are named ``heuristic``; listings, ``--help`` and error messages offer the new name only."""
    assert catalogue.declared()[("score", "heuristic")].aliases == ("deterministic",)
    assert "deterministic" not in judge_names("score")
    assert "deterministic" not in catalogue.judge_names_help(["score"])
    assert resolve("score", "deterministic").name == "heuristic"
    assert catalogue.current_name("score", "deterministic") == "heuristic"
    assert catalogue.current_name("correctness", "deterministic") == "deterministic"  # score's alias only
    assert catalogue.declared_model_free("score", "deterministic")
    assert catalogue.verdict_names("score", "deterministic") == ("heuristic", None)
    assert catalogue.verdict_names("score", "auto") == ("llm", "heuristic")
    assert catalogue.catalogue_name("score", "deterministic_score") == "heuristic"  # old rows read the same
    with pytest.raises(UnknownJudgeError) as error:
        build_judge("score", "gpt-judge", SETTINGS)
    assert "deterministic" not in str(error.value)


def test_aliases_are_read_from_the_source_text_as_literals() -> None:
    source = (
        '@judge_entry("t", "new", "d", aliases=("old", "older"))\nclass A: ...\n'
        '@judge_entry("t", "plain", "d")\nclass B: ...\n'
        '@judge_entry("t", "computed", "d", aliases=NAMES)\nclass C: ...\n'
    )
    found = dict(catalogue._declarations(source, "m"))
    assert found[("t", "new")].aliases == ("old", "older")
    assert found[("t", "plain")].aliases == found[("t", "computed")].aliases == ()


def test_unknown_names_list_the_valid_ones() -> None:
    with pytest.raises(UnknownJudgeError, match="valid judges: " + ", ".join(judge_names("correctness"))):
        build_judge("correctness", "gpt-judge", SETTINGS)
    with pytest.raises(UnknownJudgeError, match="valid tasks: relevance, correctness"):
        resolve("summarisation", "llm")
    with pytest.raises(UnknownJudgeError, match="python:package.module:Factory"):
        build_judge("correctness", "python:no_colon", SETTINGS)
    with pytest.raises(UnknownJudgeError, match="cannot load plug-in judge"):
        build_judge("correctness", "python:no_such_module_xyz:Judge", SETTINGS)


def test_plugin_judges_load_by_module_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES))
    judge = build_judge("correctness", "python:pipeline_fake_judge:SlowCountingJudge", SETTINGS)
    assert judge.identity.name == "slow_counting"
    sys.modules.pop("pipeline_fake_judge", None)


def test_a_plugin_that_is_not_a_judge_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownJudgeError, match="is not a judge: it built a OrderedDict"):
        build_judge("correctness", "python:collections:OrderedDict", SETTINGS)


class Graded(BaseModel):
    grade: int

    @property
    def label(self) -> int:
        return self.grade


def test_label_of() -> None:
    assert label_of(True) is True and label_of(2) == 2 and label_of(0.25) == 0.25 and label_of(None) is None
    assert label_of(Graded(grade=3)) == 3
    score = JudgeScore(
        relevance=1,
        completeness=1,
        accuracy=1,
        source_attribution=1,
        coherence=1,
        confidence=1,
        reasoning="",
        overall_score=0.75,
    )
    assert label_of(score) == 0.75
    with pytest.raises(TypeError, match="has no label"):
        label_of(object())


def test_help_texts_come_from_the_source_without_importing_judges() -> None:
    """``describe`` (the ``--judge`` help) reads the declarations: no judge module is imported."""
    import subprocess

    code = (
        "import sys\n"
        "from ragjury.rag_agent.judges.catalogue import judge_names_help\n"
        "text = judge_names_help(['correctness'])\n"
        "assert 'correctness: contains, ' in text and ', auto;' in text, text\n"
        "loaded = [m for m in sys.modules if m.startswith(('ragjury.rag_agent.judges.llm', 'ragjury.rag_agent.judges.model_free', 'pydantic_ai'))]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_adapter_contexts() -> None:
    item = CorrectnessItem(question="q", answer="a", references=["r1", "r2"])
    assert [(c.retrieved_text, c.expected_text) for c in correctness_contexts(item)] == [
        ("a", "r1"),
        ("a", "r2"),
    ]
    faithful = FaithfulnessItem(answer="claim", contexts=["c1", "c2"], question="q")
    (context,) = faithfulness_contexts(faithful)
    # the answer's content must be found in the contexts, not the other way round
    assert context.expected_text == "claim" and context.retrieved_text == "c1\n\nc2"


class ExpectedIn(BaseJudge[RelevanceItem, bool]):
    """Matches when expected_text occurs in retrieved_text; unscored for empty expected text."""

    name = "expected_in"

    def __init__(self) -> None:
        self.batches: list[int] = []

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, params="x")

    async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
        if not (item.expected_text or "").strip():
            return self.unscored("empty expected text")
        return self.scored(item.expected_text.lower() in item.retrieved_text.lower())  # type: ignore[union-attr]

    async def ajudge_batch(self, items, *, on_result=None):  # type: ignore[no-untyped-def]
        self.batches.append(len(items))
        return await super().ajudge_batch(items, on_result=on_result)


async def test_adapted_judge_matches_any_reference_in_one_inner_batch() -> None:
    inner = ExpectedIn()
    adapted = AdaptedJudge(inner, correctness_contexts, adapter="correctness")
    items = [
        CorrectnessItem(question="q", answer="It was Paris.", references=["London", "Paris"]),
        CorrectnessItem(question="q", answer="It was Rome.", references=["London", "Paris"]),
        CorrectnessItem(question="q", answer="Rome", references=[" ", "Rome"]),
        CorrectnessItem(question="q", answer="Rome", references=[" "]),
    ]
    seen: list[int] = []
    judgments = await adapted.ajudge_batch(items, on_result=lambda i, j: seen.append(i))
    assert inner.batches == [7]  # every context of every item in one call
    assert [j.value for j in judgments] == [True, False, True, None]
    assert judgments[3].unscored_reason == "empty expected text"
    assert sorted(seen) == [0, 1, 2, 3]
    assert adapted.identity.name == "expected_in[correctness]" and adapted.identity.params == "x"
    single = await adapted.ajudge(items[0])
    assert single.value is True and single.judge == "expected_in[correctness]"
