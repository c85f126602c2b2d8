"""Panel: judges of one task combined by majority or mean probability, each verdict recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, build_judge, judge_names_help, resolve
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.core.labels import binarizer, binary_label, label_of
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.judges.combined.panel import MemberVote, Panel, PanelVerdict, probability_of

SETTINGS = RagjurySettings(base_url="http://127.0.0.1:9/v1")  # never contacted: no LLM member here


class Scored(BaseModel):
    """A value with a probability, like the LLM verdicts on the logprob path."""

    verdict: bool
    probability: float | None = None

    @property
    def label(self) -> bool:
        return self.verdict


class Fake(BaseJudge[str, Any]):
    """Answers from a table: item -> value, or ``None`` for unscored. Counts its batch calls."""

    def __init__(self, name: str, table: dict[str, Any], *, version: str = "1", tokens: int = 0) -> None:
        self.name = name
        self.table = table
        self.version = version
        self.tokens = tokens
        self.batch_calls: list[int] = []

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model="m-" + self.name, prompt_version=f"fake@{self.version}")

    async def _judge(self, item: str) -> Judgment[Any]:
        value = self.table.get(item)
        usage = Usage(input_tokens=self.tokens, requests=1 if self.tokens else 0)
        if value is None:
            return self.unscored(f"{self.name} cannot judge {item}", usage=usage)
        return self.scored(value, usage=usage)

    async def ajudge_batch(
        self, items: Sequence[str], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[Any]]:
        self.batch_calls.append(len(items))
        return [await self.ajudge(item) for item in items]


def run(panel: Panel[str], items: list[str]) -> list[Judgment[PanelVerdict]]:
    return panel.judge_batch_sync(items)


def test_majority_of_three_records_every_vote() -> None:
    a = Fake("a", {"x": True, "y": False, "z": True}, tokens=10)
    b = Fake("b", {"x": True, "y": False, "z": False}, tokens=5)
    c = Fake("c", {"x": False, "y": False, "z": True})
    panel = Panel([a, b, c])
    x, y, z = run(panel, ["x", "y", "z"])
    assert x.value is not None and x.value.label is True and x.value.mean == pytest.approx(2 / 3)
    assert [(v.name, v.label) for v in x.value.votes] == [("a", True), ("b", True), ("c", False)]
    assert y.value is not None and y.value.label is False and y.value.mean == 0.0
    assert z.value is not None and z.value.label is True
    assert x.judge == "panel(a,b,c)" and x.value.combine == "majority"
    assert x.usage.input_tokens == 15 and x.usage.requests == 2  # summed over members
    # each member judged the whole batch once (vectorised members stay vectorised)
    assert a.batch_calls == b.batch_calls == c.batch_calls == [3]
    assert label_of(x.value) is True


def test_single_item_path_matches_the_batch() -> None:
    members = [Fake("a", {"x": True}), Fake("b", {"x": False}), Fake("c", {"x": True})]
    panel = Panel(members)
    single = panel.judge_sync("x")
    assert single.value == run(panel, ["x"])[0].value


def test_tie_is_unscored_never_a_coin_flip() -> None:
    panel = Panel([Fake("a", {"x": True}), Fake("b", {"x": False})])
    (judgment,) = run(panel, ["x"])
    assert judgment.unscored and judgment.value is None
    assert judgment.unscored_reason is not None
    assert "no majority" in judgment.unscored_reason and "a=True" in judgment.unscored_reason
    # four members, one unscored: 2 against 1 is a majority of the voters
    panel4 = Panel([Fake("a", {"x": True}), Fake("b", {"x": False}), Fake("c", {"x": False}), Fake("d", {})])
    (four,) = run(panel4, ["x"])
    assert four.value is not None and four.value.label is False and four.value.voters == 3
    # ... and two against two, with all four scored, is a tie
    panel_tie = Panel([Fake(n, {"x": v}) for n, v in zip("abcd", (True, True, False, False))])
    assert run(panel_tie, ["x"])[0].unscored


def test_unscored_members_do_not_vote_and_too_few_voters_is_unscored() -> None:
    a = Fake("a", {"x": True, "y": True})
    b = Fake("b", {"x": False})  # cannot judge y
    c = Fake("c", {"x": True})  # cannot judge y
    x, y = run(Panel([a, b, c]), ["x", "y"])
    assert x.value is not None and x.value.label is True
    assert y.unscored and y.unscored_reason is not None
    assert y.unscored_reason.startswith("only 1 of 3 members scored")
    assert "b=unscored (b cannot judge y)" in y.unscored_reason
    # exactly half scored is enough
    half = run(Panel([Fake("a", {"x": True}), Fake("b", {})]), ["x"])[0]
    assert half.value is not None and half.value.label is True
    vote = half.value.votes[1]
    assert vote == MemberVote(name="b", label=None, unscored_reason="b cannot judge x")


def test_mean_of_probabilities_falls_back_to_labels() -> None:
    a = Fake("a", {"x": Scored(verdict=True, probability=0.9), "y": Scored(verdict=False, probability=0.2)})
    b = Fake("b", {"x": Scored(verdict=False, probability=0.4), "y": Scored(verdict=False, probability=0.1)})
    c = Fake("c", {"x": False, "y": True})  # no probability: its 0/1 label counts
    x, y = run(Panel([a, b, c], combine="mean"), ["x", "y"])
    assert x.value is not None and x.value.mean == pytest.approx((0.9 + 0.4 + 0.0) / 3)
    assert x.value.label is False  # 0.433 < 0.5
    assert [v.probability for v in x.value.votes] == [0.9, 0.4, None]
    assert (
        y.value is not None
        and y.value.mean == pytest.approx((0.2 + 0.1 + 1.0) / 3)
        and y.value.label is False
    )
    lenient = run(Panel([a, b, c], combine="mean", threshold=0.4), ["x"])[0]
    assert lenient.value is not None and lenient.value.label is True and lenient.value.threshold == 0.4
    assert lenient.judge.startswith("panel-mean(")
    # mean mode also skips unscored members; a tie of labels is no problem for a mean
    tie = run(Panel([Fake("a", {"x": True}), Fake("b", {"x": False})], combine="mean"), ["x"])[0]
    assert tie.value is not None and tie.value.mean == 0.5 and tie.value.label is True


def test_a_member_that_raises_is_unscored_on_every_item() -> None:
    class Broken(Fake):
        async def ajudge_batch(self, items: Sequence[str], *, on_result: ResultCallback | None = None) -> Any:
            raise RuntimeError("server down")

    panel = Panel([Fake("a", {"x": True}), Fake("b", {"x": True}), Broken("c", {})])
    (judgment,) = run(panel, ["x"])
    assert judgment.value is not None and judgment.value.label is True
    assert judgment.value.votes[2].unscored_reason == "RuntimeError: server down"


def test_member_labels_by_scale() -> None:
    class Grade(BaseModel):
        grade: int
        p_relevant: float | None = None

        @property
        def label(self) -> int:
            return self.grade

    assert (
        binary_label(True) is True
        and binary_label(Grade(grade=2)) is True
        and binary_label(Grade(grade=1)) is False
    )
    assert binary_label(0.7) is True and binary_label(0.2) is False
    assert binarizer("graded")(Grade(grade=3)) is True and binarizer("graded")(1) is False
    assert binarizer("score")(0.49) is False
    assert probability_of(Grade(grade=2, p_relevant=0.8)) == 0.8
    assert probability_of(Scored(verdict=True)) is None and probability_of(True) is None
    with pytest.raises(ValueError, match="unknown scale"):
        binarizer("ordinal")
    # a value without any label does not vote
    panel = Panel([Fake("a", {"x": True}), Fake("b", {"x": True}), Fake("c", {"x": object()})])
    (judgment,) = run(panel, ["x"])
    assert judgment.value is not None and judgment.value.votes[2].label is None
    assert (judgment.value.votes[2].unscored_reason or "").startswith("no binary label")


def test_identity_changes_with_any_member() -> None:
    def panel(version_c: str = "1", **kwargs: Any) -> Panel[str]:
        return Panel([Fake("a", {}), Fake("b", {}), Fake("c", {}, version=version_c)], **kwargs)

    base = panel().identity
    assert base.model == "m-a,m-b,m-c" and "fake@1" in base.params
    assert panel().identity.key() == base.key()
    assert panel(version_c="2").identity.key() != base.key()
    assert panel(combine="mean").identity.key() != base.key()
    assert panel(combine="mean", threshold=0.6).identity.key() != panel(combine="mean").identity.key()
    reordered = Panel([Fake("b", {}), Fake("a", {}), Fake("c", {})]).identity
    assert reordered.key() != base.key()


def test_invalid_panels() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        Panel([Fake("a", {})])
    with pytest.raises(ValueError, match="combine"):
        Panel([Fake("a", {}), Fake("b", {})], combine="vote")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threshold"):
        Panel([Fake("a", {}), Fake("b", {})], threshold=2.0)
    # the same judge twice gets numbered names
    assert Panel([Fake("a", {}), Fake("a", {})]).member_names == ["a", "a#2"]


def test_on_result_reports_every_item() -> None:
    panel = Panel(
        [Fake("a", {"x": True, "y": True}), Fake("b", {"x": True, "y": False}), Fake("c", {"x": True})]
    )
    seen: list[tuple[int, bool]] = []
    asyncio.run(panel.ajudge_batch(["x", "y"], on_result=lambda i, j: seen.append((i, j.scored))))
    assert seen == [(0, True), (1, False)]  # y: a True, b False, c unscored -> tie


# -- the registry ---------------------------------------------------------------------------


class AlwaysCorrect(BaseJudge[CorrectnessItem, bool]):
    """A plug-in correctness judge for the registry tests."""

    name = "always"

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        return self.scored(True)


def test_registry_resolves_a_panel_for_correctness(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    spec = "panel:contains,token-overlap,python:test_panel:AlwaysCorrect"
    judge = build_judge("correctness", spec, SETTINGS)
    assert isinstance(judge, Panel) and judge.member_names == [
        "contains",
        "token-overlap",
        "python:test_panel:AlwaysCorrect",
    ]
    assert judge.identity.name == spec and resolve("correctness", spec).scale == "binary"
    items = [
        CorrectnessItem(
            question="Who painted Olympia?", answer="Edouard Manet painted it.", references=["Manet"]
        ),
        CorrectnessItem(
            question="Who painted Olympia?", answer="Claude Monet.", references=["Edouard Manet"]
        ),
    ]
    right, wrong = judge.judge_batch_sync(items)
    assert right.value is not None and right.value.label is True
    assert [v.label for v in right.value.votes] == [True, True, True]
    assert wrong.value is not None and wrong.value.label is False  # contains and token-overlap say no
    assert [v.label for v in wrong.value.votes] == [False, False, True]


def test_registry_panel_mean_for_faithfulness_and_relevance() -> None:
    faithful = build_judge("faithfulness", "panel-mean:support,token-overlap", SETTINGS, threshold=0.5)
    assert isinstance(faithful, Panel) and faithful.combine == "mean" and faithful.threshold == 0.5
    (judgment,) = faithful.judge_batch_sync(
        [
            FaithfulnessItem(
                answer="The Louvre opened in 1793.", contexts=["The Louvre in Paris opened in 1793."]
            )
        ]
    )
    assert judgment.value is not None and judgment.value.votes[0].label is True
    # a graded member (non-llm, 0-3) votes relevant from grade 2: grade 1 is a "no"
    contexts = [
        RelevanceItem(query="who painted olympia", retrieved_text="Olympia was painted by Manet in 1863."),
        RelevanceItem(query="who painted olympia", retrieved_text="Bananas are yellow."),
    ]
    grader = build_judge("relevance", "non-llm", SETTINGS)
    assert isinstance(grader, BaseJudge)
    assert [j.value for j in grader.judge_batch_sync(contexts)] == [1, 0]
    relevance = build_judge("relevance", "panel: token-overlap , non-llm", SETTINGS)
    assert isinstance(relevance, Panel) and relevance.member_names == ["token-overlap", "non-llm"]
    assert relevance.identity.name == "panel:token-overlap,non-llm"
    tie, no = relevance.judge_batch_sync(contexts)
    assert tie.unscored and "token-overlap=True, non-llm=False" in (tie.unscored_reason or "")
    assert no.value is not None and no.value.label is False
    mean_panel = build_judge("relevance", "panel-mean:token-overlap,non-llm", SETTINGS)
    assert isinstance(mean_panel, Panel)
    assert [j.value.mean if j.value else None for j in mean_panel.judge_batch_sync(contexts)] == [0.5, 0.0]


def test_registry_panel_errors_are_clear() -> None:
    with pytest.raises(
        UnknownJudgeError, match="unknown judge 'gpt' for task correctness; valid judges: contains"
    ):
        build_judge("correctness", "panel:contains,gpt", SETTINGS)
    with pytest.raises(UnknownJudgeError, match="at least two judges"):
        build_judge("correctness", "panel:contains", SETTINGS)
    with pytest.raises(UnknownJudgeError, match="names a judge twice"):
        build_judge("correctness", "panel:contains,contains", SETTINGS)
    with pytest.raises(UnknownJudgeError, match="cannot contain a panel"):
        build_judge("correctness", "panel:contains,panel-mean:llm", SETTINGS)
    with pytest.raises(UnknownJudgeError, match="takes only threshold"):
        build_judge("correctness", "panel:contains,token-overlap", SETTINGS, method="logprobs")
    with pytest.raises(UnknownJudgeError, match="valid tasks"):
        resolve("summaries", "panel:a,b")
    with pytest.raises(UnknownJudgeError, match="panel:A,B,C"):
        build_judge("correctness", "gpt-judge", SETTINGS)
    assert "panel-mean:A,B,C" in judge_names_help(["relevance"])
