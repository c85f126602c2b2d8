"""JudgeLLM and ``ragjury judge-evaluate`` end to end against a real llama-server over HTTP.

The tiny test model (SmolLM2-135M) judges no better than chance; these tests prove the path is
real: HTTP, JSON-schema-constrained decoding, validation, the envelope. A judgment that comes
back unscored must carry the reason, and must not be a fallback when ``--judge llm`` is used.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.core.schemas import JudgeScore, SourceDocument
from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM

REPO = Path(__file__).resolve().parents[2]

SOURCES = [
    SourceDocument(
        id="d1",
        title="RAG",
        content="Retrieval-augmented generation (RAG) retrieves passages "
        "from a corpus and gives them to a language model, which writes an answer grounded in them.",
    ),
]


async def test_judge_llm_returns_schema_valid_score_from_the_model(server_settings: RagjurySettings) -> None:
    judge = JudgeLLM(settings=server_settings)
    judgment = await judge.ajudge(
        ScoreItem(question="What is RAG?", answer="RAG combines retrieval with generation.", sources=SOURCES)
    )
    assert judgment.scored, judgment.unscored_reason
    assert isinstance(judgment.value, JudgeScore)
    JudgeScore.model_validate(judgment.value.model_dump())  # bounds hold
    assert judgment.model == "phi3:mini" and not judgment.fallback_used
    assert judgment.usage.requests >= 1 and judgment.usage.output_tokens > 0
    assert judgment.latency_s > 0


async def test_batch_against_the_server(server_settings: RagjurySettings) -> None:

    judge = JudgeLLM(settings=server_settings)
    items = [
        ScoreItem(question="What is RAG?", answer=text, sources=SOURCES)
        for text in ("Retrieval plus generation.", "A kind of cheese.", "RAG grounds answers in passages.")
    ]
    started = time.perf_counter()
    judgments = await judge.ajudge_batch(items)
    elapsed = time.perf_counter() - started
    assert len(judgments) == 3
    scored = [j for j in judgments if j.scored]
    assert scored, [j.unscored_reason for j in judgments]
    for judgment in judgments:
        assert judgment.scored or judgment.unscored_reason
    print(
        f"\n[latency] {len(items)} judgments in {elapsed:.2f}s: "
        f"{elapsed / len(items):.2f} s/judgment; per-call {[round(j.latency_s, 2) for j in judgments]}"
    )


def test_cli_judge_evaluate_llm_json_against_the_server(
    server_settings: RagjurySettings, tmp_path: Path
) -> None:
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps([s.model_dump() for s in SOURCES]))
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "cli.py"),
            "judge-evaluate",
            "What is RAG?",
            "--answer",
            "RAG combines retrieval with generation.",
            "--sources-file",
            str(sources),
            "--base-url",
            server_settings.openai_base_url,
            "--judge",
            "llm",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "RAGJURY_MAX_TOKENS": "384", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    JudgeScore.model_validate(payload["value"])
    assert payload["label"] == payload["value"]["overall_score"] and payload["schema_version"] == 1
    assert payload["fallback_used"] is False and payload["unscored"] is False
    assert payload["model"] == "phi3:mini" and payload["prompt_version"].startswith("judge_score@")


def test_doctor_passes_against_the_server(server_settings: RagjurySettings, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "doctor", "--base-url", server_settings.openai_base_url],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "RAGJURY_MAX_TOKENS": "384", "HOME": str(tmp_path)},
    )
    assert "server reachable" in done.stdout and "model available" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0, done.stdout
