"""IR metrics: equal to trec_eval (via pytrec_eval) on the real dl19 runs, and right by hand on
small cases; then the Evret evaluator that turns expected answer texts into relevance."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest
import pytrec_eval

from ragjury.evals.io.loaders import load_qrels, load_run, load_runs
from ragjury.evals.pipelines.evret import (
    EvretItem,
    Retrieved,
    as_retrieved,
    evaluate_retriever,
    evaluate_retriever_sync,
)
from ragjury.evals.stats.metrics import (
    average_precision,
    evaluate_run,
    hit_rate,
    mrr,
    ndcg,
    precision,
    recall,
)
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge
from ragjury.rag_agent.core.results import Judgment

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"

# our name -> pytrec_eval's name
TREC_NAMES = {
    "P@5": "P_5",
    "P@10": "P_10",
    "recall@5": "recall_5",
    "recall@10": "recall_10",
    "nDCG@5": "ndcg_cut_5",
    "nDCG@10": "ndcg_cut_10",
    "AP@5": "map_cut_5",
    "AP@10": "map_cut_10",
    "hit_rate@5": "success_5",
    "hit_rate@10": "success_10",
    "MRR": "recip_rank",
    "nDCG": "ndcg",
    "AP": "map",
}
TREC_MEASURES = {
    "P.5,10",
    "recall.5,10",
    "ndcg_cut.5,10",
    "map_cut.5,10",
    "success.5,10",
    "recip_rank",
    "ndcg",
    "map",
}


@pytest.fixture(scope="module")
def dl19(benchmarks_dir: Path) -> tuple[dict[str, dict[str, int]], dict[str, object]]:
    folder = benchmarks_dir / "trec-dl19"
    return load_qrels(folder / "qrels.txt"), load_runs(folder / "runs")  # type: ignore[return-value]


@pytest.mark.parametrize("rel", [1, 2])
def test_equal_to_trec_eval_on_all_dl19_runs(dl19: tuple, rel: int) -> None:
    qrels, runs = dl19
    assert len(runs) == 6
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=rel)
    for name, run in runs.items():
        reference = evaluator.evaluate({q: dict(docs) for q, docs in run.items()})
        ours = evaluate_run(run, qrels, ks=(5, 10), rel=rel, trec_order=True)
        assert set(ours.per_query) == set(reference), name
        for measure, trec_name in TREC_NAMES.items():
            for qid, values in reference.items():
                assert ours.per_query[qid][measure] == pytest.approx(values[trec_name], abs=1e-9), (
                    name,
                    qid,
                    measure,
                )
            trec_mean = sum(values[trec_name] for values in reference.values()) / len(reference)
            assert round(ours.mean[measure], 4) == round(trec_mean, 4), (name, measure)


def test_bm25_reference_ndcg(dl19: tuple) -> None:
    qrels, runs = dl19
    assert round(evaluate_run(runs["bm25"], qrels, trec_order=True).mean["nDCG@10"], 4) == 0.5058


def test_rank_order_reproduces_the_published_dl19_figures(dl19: tuple) -> None:
    """PROVENANCE.md's figures rank by the file's rank column; the files round scores into ties,
    which trec_eval breaks by docid instead (bm25_rm3 0.5221, rep_llama 0.7384 in that order)."""
    qrels, runs = dl19
    published = {
        "bm25": 0.5058,
        "bm25_rm3": 0.5216,
        "d_bert_kd_tasb": 0.7210,
        "open_ai_ada2": 0.7035,
        "rep_llama": 0.7439,
        "splade_p_p_ensemble_distil": 0.7308,
    }
    for name, figure in published.items():
        assert round(evaluate_run(runs[name], qrels).mean["nDCG@10"], 4) == figure, name
    assert round(evaluate_run(runs["bm25_rm3"], qrels, trec_order=True).mean["nDCG@10"], 4) == 0.5221


def test_by_hand_on_the_fixture() -> None:
    qrels = load_qrels(FIXTURES / "evals_qrels.txt")
    run = load_run(FIXTURES / "evals_run.trec")
    result = evaluate_run(run, qrels, ks=(2, 3, 5))
    # q4 has no qrels and q3 no ranking: neither is evaluated (trec_eval without -c)
    assert result.queries == ("q1", "q2")
    q1 = result.per_query["q1"]  # ranking d2(2) d1(3) d9(unjudged) d4(0); judged 3,2,2,1,0
    assert q1["P@2"] == 1.0
    assert q1["P@5"] == pytest.approx(2 / 5)  # divides by k although only 4 were retrieved
    assert q1["recall@5"] == pytest.approx(2 / 4)
    assert q1["AP"] == pytest.approx((1 / 1 + 2 / 2) / 4)  # over all 4 relevant, retrieved or not
    assert q1["MRR"] == 1.0
    dcg = 2 + 3 / math.log2(3)
    idcg = 3 + 2 / math.log2(3) + 2 / 2  # ideal from every judged doc, including unretrieved d5
    assert q1["nDCG@3"] == pytest.approx(dcg / idcg)
    # rel=2 (TREC DL convention): grade 1 stops counting, nDCG is unchanged
    strict = evaluate_run(run, qrels, ks=(3, 5), rel=2)
    assert strict.per_query["q2"]["MRR"] == 0.5
    assert strict.per_query["q1"]["recall@5"] == pytest.approx(2 / 3)
    assert strict.per_query["q1"]["nDCG@3"] == q1["nDCG@3"]
    assert result.mean["P@2"] == pytest.approx((1.0 + 1.0) / 2)
    # trec_eval's order breaks the 9.0 tie by docid descending: d9 before d1
    trec = evaluate_run(run, qrels, ks=(3,), trec_order=True)
    assert trec.per_query["q1"]["nDCG@3"] == pytest.approx((2 + 3 / 2) / idcg)


def test_cutoffs_and_complete_mode() -> None:
    qrels = {"a": {"x": 1, "y": 1}, "b": {"z": 2}}
    run = {"a": ["n1", "n2", "x", "y"]}  # bare docids are accepted
    assert mrr(run, qrels, 2).per_query == {"a": 0.0}
    assert mrr(run, qrels).per_query == {"a": pytest.approx(1 / 3)}
    assert hit_rate(run, qrels, 3).per_query == {"a": 1.0}
    assert hit_rate(run, qrels, 2).per_query == {"a": 0.0}
    assert average_precision(run, qrels, 3).per_query["a"] == pytest.approx((1 / 3) / 2)
    complete = precision(run, qrels, 4, complete=True)
    assert complete.per_query == {"a": 0.5, "b": 0.0}
    assert complete.mean == pytest.approx(0.25)
    assert recall(run, qrels, 3).mean == pytest.approx(0.5)
    assert ndcg({"b": ["z"]}, qrels, 10).mean == 1.0


def test_single_measure_functions_agree_with_evaluate_run() -> None:
    qrels = load_qrels(FIXTURES / "evals_qrels.txt")
    run = load_run(FIXTURES / "evals_run.trec")
    table = evaluate_run(run, qrels, ks=(3,), rel=2)
    assert precision(run, qrels, 3, rel=2).per_query == table.scores("P@3").per_query
    assert recall(run, qrels, 3, rel=2).mean == table.mean["recall@3"]
    assert ndcg(run, qrels, 3).mean == table.mean["nDCG@3"]
    assert average_precision(run, qrels, rel=2).mean == table.mean["AP"]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown measure"):
        evaluate_run({}, {}, measures=("bleu",))
    with pytest.raises(ValueError, match="cutoff"):
        precision({}, {}, 0)
    with pytest.raises(ValueError, match="bare docids"):
        evaluate_run({"a": ["x"]}, {"a": {"x": 1}}, trec_order=True)
    assert evaluate_run({}, {"a": {"x": 1}}).mean["P@10"] == 0.0


# ----------------------------------------------------------------------------------------- Evret


class ContainsJudge(BaseJudge[RelevanceItem, bool]):
    """Match when the expected text occurs in the retrieved text; unscored for texts containing '??'."""

    name = "contains-test"

    def __init__(self) -> None:
        self.seen: list[RelevanceItem] = []

    async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
        self.seen.append(item)
        if "??" in item.retrieved_text:
            return self.unscored("judge timed out")
        return self.scored((item.expected_text or "").lower() in item.retrieved_text.lower())


class ListRetriever:
    def __init__(self, results: dict[str, list[Retrieved]]) -> None:
        self.results = results

    def batch_retrieve(self, queries: Sequence[str], k: int) -> list[list[Retrieved]]:
        return [self.results[query][:k] for query in queries]


class AsyncRetriever(ListRetriever):
    async def batch_retrieve(self, queries: Sequence[str], k: int) -> list[list[Retrieved]]:  # type: ignore[override]
        return super().batch_retrieve(queries, k)


def docs(*texts: str) -> list[Retrieved]:
    return [Retrieved(doc_id=f"d{i}", text=text, score=1.0 - i / 10) for i, text in enumerate(texts)]


ITEMS = [
    EvretItem(id="capital", query="capital of france", expected=["Paris", "Île-de-France"]),
    EvretItem(id="edison", query="who invented the bulb", expected=["Edison"]),
]


async def test_evret_maps_first_match_and_counts_duplicates_once() -> None:
    retriever = ListRetriever(
        {
            "capital of france": docs(
                "Paris is the capital", "Paris again", "nothing here", "Île-de-France region"
            ),
            "who invented the bulb": docs("Swan and Edison", "Edison patented it"),
        }
    )
    judge = ContainsJudge()
    result = await evaluate_retriever(retriever, ITEMS, judge, k=4, ks=(1, 4))
    capital = result.mappings["capital"]
    # rank 2 also mentions Paris, already taken: not relevant again
    assert capital.matched == [0, None, None, 1]
    assert capital.retrieved[0] == "capital#0" and capital.retrieved[3] == "capital#1"
    assert result.metrics.per_query["capital"]["P@4"] == 0.5
    assert result.metrics.per_query["capital"]["recall@4"] == 1.0
    assert result.metrics.per_query["edison"]["recall@4"] == 1.0
    assert result.metrics.per_query["edison"]["P@4"] == 0.25  # the 2nd Edison passage is a duplicate
    assert result.mean["MRR@1"] == 1.0
    assert result.n_judgments == 4 * 2 + 2 * 1 == len(judge.seen)
    assert result.unscored_queries == {} and result.n_scored_queries == 2
    assert judge.seen[0] == RelevanceItem(
        query="capital of france", expected_text="Paris", retrieved_text="Paris is the capital"
    )


async def test_evret_unscored_judgments_make_the_query_unscored_not_irrelevant() -> None:
    retriever = AsyncRetriever(
        {
            "capital of france": docs("?? garbled", "Paris"),
            "who invented the bulb": docs("Edison ??"),  # judged unscored on its only expected text
        }
    )
    result = await evaluate_retriever(retriever, ITEMS, ContainsJudge(), k=2)
    assert set(result.unscored_queries) == {"capital", "edison"}
    assert "judge timed out" in result.unscored_queries["capital"]
    assert result.n_unscored_judgments == 3
    assert result.metrics.queries == ()  # no silent zeros in the means
    assert result.n_scored_queries == 0


async def test_evret_unscored_after_the_first_match_does_not_matter() -> None:
    class LaterUnscored(ContainsJudge):
        async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
            if item.expected_text == "Île-de-France":
                return self.unscored("not needed")
            return self.scored((item.expected_text or "") in item.retrieved_text)

    retriever = ListRetriever({"capital of france": docs("Paris"), "who invented the bulb": docs("Edison")})
    result = await evaluate_retriever(retriever, ITEMS, LaterUnscored(), k=1)
    assert result.unscored_queries == {}
    assert result.metrics.per_query["capital"]["recall@1"] == 0.5


def test_evret_sync_wrapper_and_foreign_results() -> None:
    from evret import RetrievalResult

    class EvretStyle:
        def batch_retrieve(self, queries: Sequence[str], k: int) -> list[list[RetrievalResult]]:
            return [
                [RetrievalResult(doc_id="x", score=1.0, metadata={"text": "Edison and Paris"})]
                for _ in queries
            ]

    result = evaluate_retriever_sync(EvretStyle(), ITEMS, ContainsJudge(), k=3)
    assert result.mean["hit_rate@3"] == 1.0
    assert as_retrieved(RetrievalResult(doc_id="7", score=0.5, metadata={"content": "c"})).text == "c"
    with pytest.raises(TypeError):
        as_retrieved(RetrievalResult(doc_id="7", score=0.5))


async def test_evret_rejects_inconsistent_inputs() -> None:
    class Short:
        def batch_retrieve(self, queries: Sequence[str], k: int) -> list[list[Retrieved]]:
            return []

    with pytest.raises(ValueError, match="0 result lists for 2 queries"):
        await evaluate_retriever(Short(), ITEMS, ContainsJudge())
    with pytest.raises(ValueError, match="duplicate item id"):
        await evaluate_retriever(Short(), [ITEMS[0], ITEMS[0]], ContainsJudge())
