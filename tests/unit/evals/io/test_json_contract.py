"""Every command's ``--json``: versioned, documented keys, and one shape per shared key.

Each command runs as a user would run it, without a model server: model-free judges, a
scripted logprob judge for ``calibrate`` (a ``python:`` plug-in), an unreachable server where
the command's point is to report one (``doctor``, ``ask``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.json_contract import (
    COMMAND_KEYS,
    SCHEMA_VERSION,
    SHARED_KEYS,
    document,
    documented,
    markdown_tables,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
DEAD_SERVER = "http://127.0.0.1:9/v1"
AGREEMENT_KEYS = {"n_total", "n_scored", "coverage", "accuracy", "cohen_kappa", "labels", "confusion"}
CORRELATION_KEYS = {"n", "kendall_tau", "spearman", "kendall_p", "spearman_p"}
ENVELOPE_KEYS = {"judge", "model", "prompt_version", "fallback_used", "unscored", "unscored_reason", "usage"}
RETIRED_KEYS = {"failed_gates", "correlation", "binary", "graded", "kind", "out", "files", "unscored_file",
                "data", "gold", "reports", "judgment", "overall_score"}
"""Keys of the unversioned output, renamed in schema 1: none may come back at the top level."""


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No model server, a cache of the test's own, and the scripted judge importable."""
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    for name in ("RAGJURY_BASE_URL", "RAGJURY_AGENT_MODEL", "RAGJURY_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "stats"))  # test_calibration's scripted judge


def run(*args: str | Path, codes: tuple[int, ...] = (0,)) -> dict[str, Any]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code in codes, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout  # one JSON object on one line, nothing else on stdout
    payload = json.loads(lines[0])
    assert isinstance(payload, dict)
    return payload


def calibration_data(tmp_path: Path) -> Path:
    rows = [
        {"id": str(i), "question": f"q{i}", "answer": "right" if i % 2 else "wrong", "references": ["right"],
         "label": bool(i % 2)}
        for i in range(20)
    ]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def evaluate(tmp_path: Path) -> dict[str, Any]:
    return run("evaluate", "--task", "correctness", "--judge", "contains", "--data",
               FIXTURES / "pipeline_correctness.jsonl", "--out", tmp_path / "preds.jsonl", "--no-progress",
               "--json")


CASES: dict[str, Callable[[Path], dict[str, Any]]] = {
    "evaluate": evaluate,
    "evaluate (dry run)": lambda tmp: run(
        "evaluate", "--task", "correctness", "--judge", "contains", "--data",
        FIXTURES / "pipeline_correctness.jsonl", "--dry-run", "--json",
    ),
    "agreement (qrels)": lambda tmp: run(
        "agreement", "--gold", FIXTURES / "evals_qrels.txt", "--judged", FIXTURES / "pipeline_pairs.qrels",
        "--runs", FIXTURES, "--html", tmp / "report.html", "--json",
    ),
    "agreement (jsonl)": lambda tmp: run(
        "agreement", "--gold", FIXTURES / "evals_gold.jsonl",
        "--judged", FIXTURES / "evals_predictions.jsonl", "--json",
    ),
    "relevance": lambda tmp: run(
        "relevance", "--judge", "non-llm", "--topics", FIXTURES / "pipeline_topics.jsonl",
        "--passages", FIXTURES / "pipeline_passages.jsonl", "--runs", FIXTURES / "pipeline_run_a.trec",
        "--out", tmp / "judged.qrels", "--no-progress", "--json",
    ),
    "calibrate": lambda tmp: run(
        "calibrate", "--task", "correctness", "--data", calibration_data(tmp),
        "--judge", "python:test_calibration:scripted_correctness", "--out", tmp / "cal.json",
        "--no-cache", "--no-progress", "--json",
    ),
    "fit": lambda tmp: run("fit", "--task", "correctness", "--data", calibration_data(tmp), "--out", tmp / "head.json",
                           "--json"),
    "doctor": lambda tmp: run("doctor", "--base-url", DEAD_SERVER, "--json", codes=(1,)),
    "judge-evaluate": lambda tmp: run(
        "judge-evaluate", "What is RAG?", "--answer", "RAG combines retrieval with generation.",
        "--judge", "heuristic", "--json",
    ),
    "verdict correctness": lambda tmp: run(
        "verdict", "correctness", "-q", "who got the first nobel prize in physics",
        "-a", "Wilhelm Conrad Röntgen, in 1901.", "-r", "Wilhelm Conrad Röntgen", "--judge", "contains",
        "--json",
    ),
    "verdict relevance": lambda tmp: run(
        "verdict", "relevance", "-q", "boiling point of water", "-p", "Cats sleep a lot.",
        "--judge", "token-overlap", "--json", "--fail-on-negative", codes=(1,),
    ),
    "ask": lambda tmp: run(
        "ask", "What is the capital of France?", "--corpus", FIXTURES / "agent_tiny_corpus.jsonl", "--judge",
        "--base-url", DEAD_SERVER, "--json", codes=(3,),
    ),
    "non-llm-judge": lambda tmp: run(
        "non-llm-judge", "--rag-topics", FIXTURES / "evals_rag_topics.jsonl",
        "--rag-responses", FIXTURES / "evals_rag_run.jsonl", "--out-dir", tmp / "out", "--json",
    ),
}


def report_case(tmp_path: Path) -> dict[str, Any]:
    evaluate(tmp_path)
    return run("report", tmp_path / "preds.jsonl", "--json")


if "report" in COMMAND_KEYS:
    CASES["report"] = report_case


@pytest.fixture(scope="module")
def payloads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each case's output, run once for the module (several tests read them)."""
    out: dict[str, dict[str, Any]] = {}
    with pytest.MonkeyPatch.context() as patch:
        base = tmp_path_factory.mktemp("contract")
        patch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
        patch.setenv("RAGJURY_HTTP_RETRIES", "0")
        patch.setenv("RAGJURY_CACHE_PATH", str(base / "cache.sqlite"))
        for name in ("RAGJURY_BASE_URL", "RAGJURY_AGENT_MODEL", "RAGJURY_JUDGE_MODEL"):
            patch.delenv(name, raising=False)
        patch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "stats"))
        for name, case in CASES.items():
            folder = base / name.replace(" ", "_")
            folder.mkdir()
            out[name] = case(folder)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_header_and_only_documented_keys(payloads: dict[str, dict[str, Any]], case: str) -> None:
    payload = payloads[case]
    assert list(payload)[:2] == ["schema_version", "command"]
    assert payload["schema_version"] == SCHEMA_VERSION
    assert payload["command"] == case.split(" (")[0]
    undocumented = set(payload) - documented(payload["command"])
    assert not undocumented, f"{case}: document these keys in evals/io/json_contract.py: {undocumented}"
    assert not set(payload) & RETIRED_KEYS


@pytest.mark.parametrize("case", list(CASES))
def test_shared_keys_have_one_shape(payloads: dict[str, dict[str, Any]], case: str) -> None:
    payload = payloads[case]
    if "gate_failures" in payload:
        assert isinstance(payload["gate_failures"], list)
        assert all(isinstance(failure, str) for failure in payload["gate_failures"])
    if "figures" in payload:
        assert all(value is None or isinstance(value, int | float) for value in payload["figures"].values())
    for key in ("agreement", "graded_agreement"):
        if key in payload:
            assert AGREEMENT_KEYS <= payload[key].keys()
    if "ranking" in payload:
        ranking = payload["ranking"]
        assert {"measure", "systems", "correlation"} <= ranking.keys()
        assert all(set(scores) == {"gold", "judge"} for scores in ranking["systems"].values())
        assert CORRELATION_KEYS <= ranking["correlation"].keys()
    for key in ("inputs", "outputs"):
        if key in payload:
            for value in payload[key].values():
                assert value is None or isinstance(value, str) or all(isinstance(v, str) for v in value)
    for key in ("judges", "fallback"):
        if key in payload:
            assert isinstance(payload[key], dict)
    if "fallback" in payload:
        assert set(payload["fallback"]) == {"count", "share", "judge"}


def test_each_command_reports_what_it_should(payloads: dict[str, dict[str, Any]]) -> None:
    """The keys a script relies on, per command: the same name wherever the thing is the same."""
    need = {
        "evaluate": {"mode", "task", "judge", "n", "scored", "unscored", "judges", "fallback", "figures",
                     "agreement", "ranking", "inputs", "outputs", "gate_failures"},
        "agreement (qrels)": {"mode", "agreement", "graded_agreement", "ranking", "figures", "inputs",
                            "outputs", "gate_failures"},
        "agreement (jsonl)": {"mode", "agreement", "ranking", "figures", "inputs", "outputs", "gate_failures"},
        "relevance": {"task", "judge", "n", "scored", "unscored", "inputs", "outputs"},
        "calibrate": {"task", "judge", "model", "n", "scored", "unscored", "inputs", "outputs"},
        "fit": {"task", "n", "head_random", "head_by_question", "base", "beats_base", "inputs", "outputs"},
        "doctor": {"ok", "model", "checks"},
        "judge-evaluate": {"task", "label", "value", "judges", "fallback", "gate_failures"} | ENVELOPE_KEYS,
        "verdict correctness": {"task", "label", "value", "judges", "fallback", "gate_failures"}
        | ENVELOPE_KEYS,
        "verdict relevance": {"task", "label", "value", "gate_failures"} | ENVELOPE_KEYS,
        "ask": {"question", "answer", "error", "judgments", "inputs"},
        "non-llm-judge": {"judge", "n", "leaderboard", "inputs", "outputs"},
    }
    for case, keys in need.items():
        assert keys <= payloads[case].keys(), (case, keys - payloads[case].keys())


def test_values_mean_the_same_thing_across_commands(payloads: dict[str, dict[str, Any]]) -> None:
    evaluate_, by_labels = payloads["evaluate"], payloads["agreement (jsonl)"]
    assert evaluate_["mode"] == "dataset" and by_labels["mode"] == "jsonl"
    assert evaluate_["ranking"]["measure"] == by_labels["ranking"]["measure"] == "mean label"
    assert payloads["agreement (qrels)"]["ranking"]["measure"] == "nDCG@10"
    # figures carry the ranking's tau under the gate name, in both commands
    for payload in (evaluate_, by_labels):
        assert payload["figures"]["kendall_tau"] == payload["ranking"]["correlation"]["kendall_tau"]
    assert evaluate_["outputs"]["predictions"].endswith("preds.jsonl")
    assert evaluate_["outputs"]["html"] is None
    assert payloads["agreement (qrels)"]["outputs"]["html"].endswith("report.html")
    assert payloads["relevance"]["outputs"]["qrels"].endswith("judged.qrels")
    assert payloads["calibrate"]["outputs"]["calibration"].endswith("cal.json")
    # one judgment: the label is the verdict; unscored and fallback_used are booleans there
    score = payloads["judge-evaluate"]
    assert score["task"] == "score" and score["label"] == score["value"]["overall_score"]
    assert score["unscored"] is False and score["fallback_used"] is False
    correct = payloads["verdict correctness"]
    assert correct["task"] == "correctness" and correct["label"] is True
    negative = payloads["verdict relevance"]
    assert negative["label"] is False and negative["gate_failures"] == [
        "relevance verdict is negative (--fail-on-negative)"
    ]
    # runs: counts are integers, unscored never folded into scored
    for case in ("evaluate", "relevance", "calibrate"):
        counts = payloads[case]
        assert counts["scored"] + counts["unscored"] == counts["n"]
    assert payloads["ask"]["judgments"] is None and payloads["ask"]["answer"] is None
    dry = payloads["evaluate (dry run)"]
    assert dry["mode"] == "dry_run" and dry["n"] == dry["dry_run"]["items"] == evaluate_["n"]
    assert dry["cached"] == dry["n"] and dry["dry_run"]["to_judge"] == 0  # the run before cached them all
    assert payloads["doctor"]["ok"] is False and payloads["doctor"]["checks"][0]["fix"]


def test_document_refuses_to_overwrite_the_header() -> None:
    with pytest.raises(ValueError, match="reserved"):
        document("evaluate", {"schema_version": 2})


def test_markdown_tables_list_every_documented_key() -> None:
    tables = markdown_tables()
    for key in SHARED_KEYS:
        assert f"| `{key}` |" in tables
    for command, keys in COMMAND_KEYS.items():
        assert f"| `{command}` |" in tables
        for key in keys:
            assert f"`{key}`:" in tables


def test_the_docs_page_tables_are_the_contract_s_own() -> None:
    """docs/json-contract.md's key tables are generated from this module (one source): rerun
    ``python -m ragjury.evals.io.json_contract`` after changing a key."""
    from pathlib import Path

    page = Path(__file__).resolve().parents[4] / "docs" / "json-contract.md"
    assert markdown_tables() in page.read_text(encoding="utf-8"), "run: python -m ragjury.evals.io.json_contract"
