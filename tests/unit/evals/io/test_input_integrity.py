"""Every reader accepts every valid file, whatever its encoding details, and still names the line
of a bad one (issue 13: "never reject valid data").

A generated matrix: each reader (datasets, passages, topics, TREC qrels and runs, labels, TREC RAG
runs, workflow YAML, answer and sources files, verdict items, agent questions) x each variant of
a valid file: raw U+2028 / U+2029 / U+0085 inside a string (legal JSON, written raw by
``json.dumps(..., ensure_ascii=False)``), a UTF-8 byte-order mark, CRLF line endings, and
combinations. Invalid files built with the same variants still fail with one line naming the
file and the right line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import get_settings
from ragjury.evals.io.loaders import (
    load_labels,
    load_passages,
    load_qrels,
    load_rag_run,
    load_run,
    load_topics,
)
from ragjury.evals.io.tasks import load_questions, load_task_rows
from ragjury.evals.pipelines.non_llm_leaderboard import load_responses
from ragjury.rag_agent.agent.retrieval import BM25Index
from ragjury.commands.verdict import load_item
from ragjury.rag_agent.core.input_files import InputError, load_answer, load_sources
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.model_free.non_llm import NonLLMSettings, load_yaml

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Variant:
    """How a valid file is written: what sits inside its strings, a BOM, CRLF line endings."""

    name: str
    inside: str = ""
    bom: bool = False
    crlf: bool = False

    def encode(self, text: str) -> bytes:
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return (BOM if self.bom else b"") + text.encode("utf-8")


VARIANTS = [
    Variant("plain"),
    Variant("u2028", "\u2028"),
    Variant("u2029", "\u2029"),
    Variant("u0085", "\x85"),
    Variant("bom", bom=True),
    Variant("crlf", crlf=True),
    Variant("bom+crlf", bom=True, crlf=True),
    Variant("bom+u2028", "\u2028", bom=True),
    Variant("crlf+u0085", "\x85", crlf=True),
    Variant("all", "a\u2028b\u2029c\x85d", bom=True, crlf=True),
]


def jsonl(*rows: object) -> str:
    """JSON Lines as ``json.dumps(..., ensure_ascii=False)`` writes them: special characters raw."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def pretty(data: object) -> str:
    """A multi-line JSON document, so line endings and line numbers matter."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


@dataclass(frozen=True)
class Reader:
    """One reader: the file it reads (built around a string ``s``), how it is called, and what it
    must return, reduced by ``view`` to plain data."""

    name: str
    filename: str
    build: Callable[[str], str]
    load: Callable[[Path], object]
    view: Callable[[object], object]
    expect: Callable[[str], object]


def _task_rows(rows: object) -> object:
    return [
        (r.id, r.item.question, r.item.answer, r.item.references, r.gold)  # type: ignore[attr-defined]
        for r in rows  # type: ignore[attr-defined]
    ]


def _bm25(index: object) -> object:
    return {docid: index.passage(docid).text for docid in ("d1", "d2")}  # type: ignore[attr-defined]


WORKFLOW = (
    "# ragjury{s}workflow\n"
    "description: judge{s}settings for a test\n"
    "judge_settings:\n"
    "  topic_format: rag\n"
    "  length_weight: 0.1\n"
    "  keyword_weight: 0.3\n"
)

READERS = [
    Reader(
        "dataset",
        "data.jsonl",
        lambda s: jsonl(
            {
                "id": "a",
                "question": f"who{s}?",
                "answer": f"Paris{s}",
                "references": [f"Paris{s}"],
                "label": True,
            },
            {"id": "b", "question": "why?", "answer": "no", "references": ["yes"], "label": False},
        ),
        lambda p: load_task_rows("correctness", p),
        _task_rows,
        lambda s: [("a", f"who{s}?", f"Paris{s}", [f"Paris{s}"], True), ("b", "why?", "no", ["yes"], False)],
    ),
    Reader(
        "passages",
        "passages.jsonl",
        lambda s: jsonl({"docid": "d1", "text": f"tides{s}moon"}, {"docid": "d2", "text": "sun"}),
        load_passages,
        lambda r: r,
        lambda s: {"d1": f"tides{s}moon", "d2": "sun"},
    ),
    Reader(
        "topics-jsonl",
        "topics.jsonl",
        lambda s: jsonl({"qid": "q1", "query": f"why{s}tides"}, {"qid": "q2", "query": "sun"}),
        load_topics,
        lambda r: r,
        lambda s: {"q1": f"why{s}tides", "q2": "sun"},
    ),
    Reader(
        "topics-tsv",
        "topics.tsv",
        lambda s: f"q1\twhy{s} tides\nq2\tsun\n",
        load_topics,
        lambda r: r,
        lambda s: {"q1": f"why{s} tides", "q2": "sun"},
    ),
    Reader(
        "qrels",
        "gold.qrels",
        lambda s: f"q1 0 d{s}1 2\nq1 0 d2 0\nq2 0 d3 1\n",
        load_qrels,
        lambda r: r,
        lambda s: {"q1": {f"d{s}1": 2, "d2": 0}, "q2": {"d3": 1}},
    ),
    Reader(
        "run",
        "run.trec",
        lambda s: f"q1 Q0 d{s}1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d3 1 0.5 tag\n",
        load_run,
        lambda r: (r.name, dict(r.rankings)),  # type: ignore[attr-defined]
        lambda s: ("tag", {"q1": [(f"d{s}1", 2.5), ("d2", 1.5)], "q2": [("d3", 0.5)]}),
    ),
    Reader(
        "labels",
        "gold.jsonl",
        lambda s: jsonl({"id": f"a{s}", "label": True, "system": f"s{s}"}, {"id": "b", "label": 0}),
        load_labels,
        lambda r: {key: (row.label, row.system) for key, row in r.items()},  # type: ignore[attr-defined]
        lambda s: {f"a{s}": (True, f"s{s}"), "b": (0, None)},
    ),
    Reader(
        "rag-run",
        "rag_run.jsonl",
        lambda s: jsonl(
            {
                "metadata": {"run_id": "r", "topic_id": "t1"},
                "responses": [{"text": f"A{s}B", "citations": [0]}],
            },
            {"metadata": {"run_id": "r", "topic_id": "t2"}, "responses": [{"text": "C"}]},
        ),
        load_rag_run,
        lambda r: (r.name, {t: e.answer for t, e in r.answers.items()}),  # type: ignore[attr-defined]
        lambda s: ("r", {"t1": f"A{s}B", "t2": "C"}),
    ),
    Reader(
        "non-llm-topics",
        "rag_topics.jsonl",
        lambda s: jsonl({"request_id": "t1", "title": f"why{s}tides"}, {"request_id": "t2", "title": "sun"}),
        lambda p: load_topics(p, "rag"),
        lambda r: r,
        lambda s: {"t1": f"why{s}tides", "t2": "sun"},
    ),
    Reader(
        "non-llm-responses",
        "run_a.jsonl",
        lambda s: jsonl(
            {"metadata": {"run_id": "r", "topic_id": "t1"}, "responses": [{"text": f"A{s}B"}, {"text": "C"}]}
        ),
        load_responses,
        lambda r: [(x.run_id, x.topic_id, x.text, x.line) for x in r],  # type: ignore[attr-defined]
        lambda s: [("r", "t1", f"A{s}B C", 1)],
    ),
    Reader(
        "bm25-corpus",
        "corpus.jsonl",
        lambda s: jsonl({"docid": "d1", "text": f"tides{s}moon"}, {"docid": "d2", "text": "sun"}),
        BM25Index.from_jsonl,
        _bm25,
        lambda s: {"d1": f"tides{s}moon", "d2": "sun"},
    ),
    Reader(
        "agent-questions",
        "questions.jsonl",
        lambda s: jsonl({"id": "a", "question": f"who{s}?"}, {"qid": "b", "query": "why?"}),
        load_questions,
        lambda r: [(q.id, q.question, q.line) for q in r],  # type: ignore[attr-defined]
        lambda s: [("a", f"who{s}?", 1), ("b", "why?", 2)],
    ),
    Reader(
        "workflow-yaml",
        "workflow.yml",
        lambda s: WORKFLOW.format(s=s),
        NonLLMSettings.from_workflow,
        lambda r: (r.topic_format, r.length_weight, r.keyword_weight),  # type: ignore[attr-defined]
        lambda s: ("rag", 0.1, 0.3),
    ),
    Reader(
        "answer-file",
        "answer.json",
        lambda s: pretty({"answer": f"Paris{s}.", "sources_used": ["d1"], "reasoning": f"r{s}"}),
        load_answer,
        lambda r: (r.answer, r.sources_used, r.reasoning),  # type: ignore[attr-defined]
        lambda s: (f"Paris{s}.", ["d1"], f"r{s}"),
    ),
    Reader(
        "sources-json",
        "sources.json",
        lambda s: pretty([{"id": "d1", "title": f"T{s}", "content": f"c{s}"}, {"docid": 2, "text": "x"}]),
        load_sources,
        lambda r: [(d.id, d.title, d.content) for d in r],  # type: ignore[attr-defined]
        lambda s: [("d1", f"T{s}", f"c{s}"), ("2", "", "x")],
    ),
    Reader(
        "sources-jsonl",
        "sources.jsonl",
        lambda s: jsonl({"id": "d1", "title": f"T{s}", "content": f"c{s}"}, {"docid": 2, "text": "x"}),
        load_sources,
        lambda r: [(d.id, d.title, d.content) for d in r],  # type: ignore[attr-defined]
        lambda s: [("d1", f"T{s}", f"c{s}"), ("2", "", "x")],
    ),
    Reader(
        "verdict-item",
        "item.json",
        lambda s: pretty({"question": f"who{s}?", "answer": f"Paris{s}", "references": [f"Paris{s}"]}),
        lambda p: load_item(p, CorrectnessItem),
        lambda r: (r.question, r.answer, r.references),  # type: ignore[attr-defined]
        lambda s: (f"who{s}?", f"Paris{s}", [f"Paris{s}"]),
    ),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
def test_every_reader_loads_every_valid_variant(tmp_path: Path, reader: Reader, variant: Variant) -> None:
    text = reader.build(variant.inside)
    if variant.inside:
        assert variant.inside in text  # written raw, not escaped: the case that used to break
    path = tmp_path / reader.filename
    path.write_bytes(variant.encode(text))
    assert reader.view(reader.load(path)) == reader.expect(variant.inside)


# -- invalid files: still one line naming file:line, with the same variants around the error ---------------

INVALID_VARIANTS = [VARIANTS[0], VARIANTS[-1], Variant("u2028+crlf", "\u2028\u2028", crlf=True)]


@dataclass(frozen=True)
class Invalid:
    """A bad file: valid lines holding ``s`` before the mistake, the line it is on, what the error says."""

    name: str
    filename: str
    build: Callable[[str], str]
    load: Callable[[Path], object]
    line: int
    fragment: str


def _record(s: str) -> dict[str, object]:
    return {"id": f"a{s}", "question": f"who{s}?", "answer": f"x{s}", "references": [f"x{s}"], "label": True}


INVALID = [
    Invalid(
        "dataset-broken-json",
        "data.jsonl",
        lambda s: jsonl(_record(s), _record(s) | {"id": "b"}) + '{"id": "c", "question": \n',
        lambda p: load_task_rows("correctness", p),
        3,
        "malformed JSON",
    ),
    Invalid(
        "dataset-missing-field",
        "data.jsonl",
        lambda s: jsonl(_record(s), {"id": "b", "question": f"q{s}", "references": ["r"]}),
        lambda p: load_task_rows("correctness", p),
        2,
        "field 'answer'",
    ),
    Invalid(
        "passages-missing-text",
        "passages.jsonl",
        lambda s: jsonl({"docid": "d1", "text": f"t{s}"}, {"docid": "d2"}),
        load_passages,
        2,
        "missing",
    ),
    Invalid(
        "topics-broken-json",
        "topics.jsonl",
        lambda s: jsonl({"qid": "q1", "query": f"t{s}"}) + '{"qid": "q2", "query": "x"\n',
        load_topics,
        2,
        "malformed JSON",
    ),
    Invalid(
        "topics-tsv-no-tab", "topics.tsv", lambda s: f"q1\tt{s}\nq2 no tab\n", load_topics, 2, "qid<TAB>query"
    ),
    Invalid(
        "qrels-columns",
        "gold.qrels",
        lambda s: f"q1 0 d{s}1 2\nq1 0 d2\n",
        load_qrels,
        2,
        "expected 4 columns",
    ),
    Invalid(
        "run-score",
        "run.trec",
        lambda s: f"q1 Q0 d{s}1 1 2.5 tag\nq1 Q0 d2 2 high tag\n",
        load_run,
        2,
        "field 'score'",
    ),
    Invalid(
        "labels-missing-label",
        "gold.jsonl",
        lambda s: jsonl({"id": f"a{s}", "label": True}, {"id": "b"}),
        load_labels,
        2,
        "field 'label'",
    ),
    Invalid(
        "rag-run-missing-metadata",
        "rag_run.jsonl",
        lambda s: jsonl(
            {"metadata": {"run_id": "r", "topic_id": "t1"}, "responses": [{"text": f"A{s}"}]}, {}
        ),
        load_rag_run,
        2,
        "field 'metadata'",
    ),
    Invalid(
        "non-llm-responses-broken",
        "run_a.jsonl",
        lambda s: jsonl({"metadata": {"run_id": "r", "topic_id": "t1"}, "responses": [{"text": f"A{s}"}]})
        + "{oops}\n",
        load_responses,
        2,
        "malformed JSON",
    ),
    Invalid(
        "workflow-bad-value",
        "workflow.yml",
        lambda s: WORKFLOW.format(s=s) + "  bm25_weight: heavy\n",
        NonLLMSettings.from_workflow,
        7,
        "field 'judge_settings.bm25_weight'",
    ),
    Invalid(
        "workflow-bad-yaml",
        "workflow.yml",
        lambda s: WORKFLOW.format(s=s) + "  bm25_weight: [1\n",
        NonLLMSettings.from_workflow,
        8,
        "malformed YAML",
    ),
    Invalid(
        "answer-broken-json",
        "answer.json",
        lambda s: '{\n  "answer": "Paris' + s + '",\n  "sources_used": [\n}\n',
        load_answer,
        4,
        "malformed JSON",
    ),
    Invalid(
        "sources-jsonl-missing-content",
        "sources.jsonl",
        lambda s: jsonl({"id": "d1", "content": f"c{s}"}, {"id": "d2", "title": f"t{s}"}),
        load_sources,
        2,
        "field 'content'",
    ),
    Invalid(
        "verdict-item-broken",
        "item.json",
        lambda s: '{\n  "question": "who' + s + '?",\n  "answer": \n}\n',
        lambda p: load_item(p, CorrectnessItem),
        4,
        "malformed JSON",
    ),
]


@pytest.mark.parametrize("variant", INVALID_VARIANTS, ids=lambda v: v.name)
@pytest.mark.parametrize("case", INVALID, ids=lambda c: c.name)
def test_invalid_variants_still_name_file_and_line(tmp_path: Path, case: Invalid, variant: Variant) -> None:
    path = tmp_path / case.filename
    path.write_bytes(variant.encode(case.build(variant.inside)))
    with pytest.raises(InputError) as caught:
        case.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{case.line}:"), message
    assert case.fragment in message
    assert "\n" not in message and "\r" not in message


def test_yaml_reads_the_yaml_11_line_breaks_as_characters() -> None:
    """PyYAML (YAML 1.1) would end a comment or a plain value at U+2028; YAML 1.2 does not."""
    text = "# note\u2028more\nname: a\u2028b\x85c\nquoted: \"x\u2029y\"\nitems: [p\u2028q]\n"
    assert load_yaml(text) == {"name": "a\u2028b\x85c", "quoted": "x\u2029y", "items": ["p\u2028q"]}


# -- through the CLI: the symptoms reported in issue 13 -----------------------------------------------------

runner = CliRunner()


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.usefixtures("isolated")
def test_bom_qrels_keep_their_first_query_full_coverage(tmp_path: Path) -> None:
    gold = tmp_path / "gold.qrels"
    judged = tmp_path / "judged.qrels"
    gold.write_bytes(b"q1 0 d1 2\r\nq1 0 d2 0\r\nq2 0 d3 1\r\n")
    judged.write_bytes(BOM + b"q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n")
    result = runner.invoke(app, ["agreement", "--gold", str(gold), "--judged", str(judged), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["figures"]["coverage"] == 1.0


@pytest.mark.usefixtures("isolated")
def test_evaluate_reads_a_dataset_with_raw_line_separators(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    rows = [_record("\x85\u2028\u2029") | {"id": str(i)} for i in range(3)]
    data.write_bytes(Variant("all", bom=True, crlf=True).encode(jsonl(*rows)))
    result = runner.invoke(
        app,
        [
            "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
            "--json", "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n"] == 3


@pytest.mark.usefixtures("isolated")
def test_bom_answer_file_is_read_as_json_not_as_answer_text(tmp_path: Path) -> None:
    answer = tmp_path / "answer.json"
    document = pretty({"answer": "Paris is the capital of France.", "sources_used": []})
    answer.write_bytes(BOM + document.encode())
    result = runner.invoke(
        app,
        ["judge-evaluate", "What is the capital of France?", "--answer-file", str(answer), "--judge",
         "heuristic", "--json"],
    )
    assert result.exit_code == 0, result.output
    assert load_answer(answer).answer == "Paris is the capital of France."


@pytest.mark.usefixtures("isolated")
def test_a_bad_line_after_raw_separators_is_one_line_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes(Variant("all", bom=True, crlf=True).encode(jsonl(_record("\u2028\x85")) + "{nope\n"))
    result = runner.invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data), "--no-progress"],
    )
    assert result.exit_code == 2
    assert f"{data}:2: malformed JSON" in " ".join(result.output.split())
    assert "Traceback" not in result.output
