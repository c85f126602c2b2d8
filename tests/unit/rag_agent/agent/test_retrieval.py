"""BM25Index: the vectorised scores equal the textbook formula, ranking, input errors, Evret protocol."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from ragjury.rag_agent.agent.retrieval import ANSERINI_B, ANSERINI_K1, BM25Index, RetrievedPassage
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.text import content_tokens

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
TINY = FIXTURES / "agent_tiny_corpus.jsonl"
DL19 = FIXTURES / "agent_passages.jsonl"


def reference_bm25(docs: dict[str, str], query: str, k1: float, b: float) -> dict[str, float]:
    """BM25 written out term by term (Lucene idf), to check the sparse-matrix version against."""
    tokenised = {docid: content_tokens(text) for docid, text in docs.items()}
    n = len(docs)
    avgdl = sum(len(t) for t in tokenised.values()) / n
    df = Counter(term for terms in tokenised.values() for term in set(terms))
    scores = {}
    for docid, terms in tokenised.items():
        tf = Counter(terms)
        score = 0.0
        for term in content_tokens(query):
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(terms) / avgdl))
        if score > 0:
            scores[docid] = score
    return scores


def load_docs(path: Path) -> dict[str, str]:
    return {row["docid"]: row["text"] for row in map(json.loads, path.read_text().splitlines())}


@pytest.mark.parametrize(("k1", "b"), [(ANSERINI_K1, ANSERINI_B), (1.2, 0.75), (0.0, 0.0), (2.0, 1.0)])
@pytest.mark.parametrize(
    "query",
    [
        "causes of left ventricular hypertrophy",
        "do goldfish grow grow",
        "definition of a sigmet",
        "mcdouble vs double cheeseburger",
    ],
)
def test_scores_equal_the_textbook_formula_on_real_passages(k1: float, b: float, query: str) -> None:
    docs = load_docs(DL19)
    index = BM25Index.from_jsonl(DL19, k1=k1, b=b)
    expected = reference_bm25(docs, query, k1, b)
    hits = index.search(query, k=len(docs))
    assert {hit.docid for hit in hits} == set(expected)
    for hit in hits:
        assert hit.score == pytest.approx(expected[hit.docid], rel=1e-9)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_ranking_on_the_tiny_corpus() -> None:
    index = BM25Index.from_jsonl(TINY)
    hits = index.search("capital of France", k=3)
    # "paris" has both terms; "capital" repeats one term four times but BM25 saturates tf
    assert hits[0].docid == "paris"
    assert {h.docid for h in hits} <= {"paris", "capital", "berlin", "lyon", "long"}
    assert index.search("yellow fruit", k=5)[0].docid == "banana"


def test_b_controls_length_normalisation() -> None:
    """ "long" says "france" 4 times in ~25 words, "paris" once in ~6.

    b=0 rewards raw term frequency; b=1 divides it by the passage length.
    """
    unnormalised = BM25Index.from_jsonl(TINY, k1=1.2, b=0.0)
    normalised = BM25Index.from_jsonl(TINY, k1=1.2, b=1.0)
    assert unnormalised.search("france", k=1)[0].docid == "long"
    assert normalised.search("france", k=3)[0].docid in {"paris", "lyon"}
    assert [h.docid for h in normalised.search("france", k=3)][-1] == "long"


def test_unknown_terms_and_stopwords_return_nothing_and_k_limits() -> None:
    index = BM25Index.from_jsonl(TINY)
    assert index.search("zzzz qqqq", k=5) == []
    assert index.search("the of and", k=5) == []
    assert len(index.search("capital", k=1)) == 1
    with pytest.raises(ValueError, match="k must be at least 1"):
        index.search("capital", k=0)


def test_ties_are_broken_by_collection_order_even_at_the_cut() -> None:
    index = BM25Index([(f"d{i}", "same words here") for i in range(10)])
    assert [h.docid for h in index.search("same words", k=3)] == ["d0", "d1", "d2"]


def test_batch_retrieve_matches_search_and_follows_the_evret_protocol() -> None:
    index = BM25Index.from_jsonl(DL19)
    queries = [
        json.loads(line)["query"] for line in (FIXTURES / "agent_topics.jsonl").read_text().splitlines()
    ]
    batch = index.batch_retrieve(queries, k=5)
    assert len(batch) == len(queries)
    assert batch == [index.search(q, k=5) for q in queries]
    hit = batch[0][0]
    assert isinstance(hit, RetrievedPassage)
    assert hit.doc_id == hit.docid and hit.metadata == {"text": hit.text}
    source = hit.to_source()
    assert (source.id, source.content) == (hit.docid, hit.text)


def test_real_dl19_topics_find_judged_relevant_passages() -> None:
    """On 50 dl19 passages (10 judged per topic), BM25's top 5 are mostly NIST-relevant (grade >= 2)."""
    index = BM25Index.from_jsonl(DL19)
    relevant: dict[str, set[str]] = {}
    for line in (FIXTURES / "agent_qrels.txt").read_text().splitlines():
        qid, _, docid, grade = line.split()
        if int(grade) >= 2:
            relevant.setdefault(qid, set()).add(docid)
    topics = [json.loads(line) for line in (FIXTURES / "agent_topics.jsonl").read_text().splitlines()]
    precision = [
        sum(hit.docid in relevant[t["qid"]] for hit in index.search(t["query"], k=5)) / 5 for t in topics
    ]
    assert sum(precision) / len(precision) >= 0.6  # measured 0.72; 60% of these passages are relevant


def test_accepts_id_and_content_aliases_and_integer_ids(tmp_path: Path) -> None:
    path = tmp_path / "aliases.jsonl"
    path.write_text('{"id": 7, "content": "seven"}\n\n{"doc_id": "x", "contents": "ex"}\n')
    index = BM25Index.from_jsonl(path)
    assert index.docids == ["7", "x"]
    assert index.passage("7") == RetrievedPassage("7", "seven", 0.0)
    assert index.passage("missing") is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"docid": "a", "text": "x"}\n{"text": "y"}\n', ":2: field 'docid': missing"),
        ('{"docid": "a"}\n', ":1: field 'text': missing"),
        ('{"docid": "a", "text": 3}\n', ":1: field 'text': must be a string"),
        ('{"docid": "", "text": "x"}\n', ":1: field 'docid': must be a non-empty"),
        (
            '{"docid": "a", "text": "x"}\n{"docid": "a", "text": "y"}\n',
            ":2: field 'docid': duplicate docid 'a'",
        ),
        ('{"docid": "a", "text": "x"}\n{oops\n', ":2: malformed JSON"),
        ('["a", "x"]\n', ":1: expected a JSON object"),
        ("\n\n", "no passages"),
    ],
)
def test_bad_input_names_file_line_and_field(tmp_path: Path, body: str, expected: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(body)
    with pytest.raises(InputError) as raised:
        BM25Index.from_jsonl(path)
    assert str(raised.value).startswith(str(path))
    assert expected in str(raised.value)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        BM25Index.from_jsonl(tmp_path / "nope.jsonl")


def test_fingerprint_changes_with_text_and_parameters() -> None:
    base = BM25Index([("a", "one"), ("b", "two")])
    assert base.fingerprint == BM25Index([("a", "one"), ("b", "two")]).fingerprint
    assert base.fingerprint != BM25Index([("a", "one"), ("b", "three")]).fingerprint
    assert base.fingerprint != BM25Index([("a", "one"), ("b", "two")], k1=1.2, b=0.75).fingerprint


def test_invalid_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="k1"):
        BM25Index([("a", "x")], b=1.5)
    with pytest.raises(ValueError, match="at least one passage"):
        BM25Index([])
