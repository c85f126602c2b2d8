"""``ragjury fit --task relevance`` against a real llama-server over HTTP: P("1") read from one
token of the real server, a head written, and the head
applied by ``relevance --judge fitted:HEAD`` to a run's pairs. SmolLM2-135M judges near chance:
these tests prove the path, not the quality (bench/bench_fitted_relevance.py measures that)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from llama_server import MODEL_ALIAS, RunningServer  # tests/ is on sys.path (conftest)

REPO = Path(__file__).resolve().parents[2]
TREC = REPO / "examples" / "data" / "trec"


def ragjury(*args: str, cwd: Path, server: RunningServer) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RAGJURY_BASE_URL": server.base_url, "RAGJURY_JUDGE_MODEL": MODEL_ALIAS,
           "RAGJURY_CACHE_PATH": str(cwd / "cache.sqlite"), "RAGJURY_TEMPERATURE": "0"}
    script = Path(sys.executable).parent / "ragjury"
    return subprocess.run([str(script), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_fit_relevance_on_the_real_server_then_judge_a_run_with_the_head(llm_server: RunningServer,
                                                                          tmp_path: Path) -> None:
    fit = ["fit", "--task", "relevance", "--data", str(TREC / "qrels.txt"), "--topics", str(TREC / "topics.jsonl"),
           "--passages", str(TREC / "passages.jsonl"), "--out",
           str(tmp_path / "head.json"), "--no-progress", "--json"]
    first = ragjury(*fit, cwd=tmp_path, server=llm_server)
    assert first.returncode == 0, first.stderr
    payload = json.loads(first.stdout)
    assert payload["features"] == ["llm_logit", "cosine"] and payload["judging"]["judged"] > 0
    # SmolLM2's first token is often neither "0" nor "1": those pairs are unscored, counted, left out
    assert payload["n"] + payload["skipped"] == 86 and payload["judging"]["unscored"] == payload["skipped"]
    head = json.loads((tmp_path / "head.json").read_text())
    assert head["model"] == MODEL_ALIAS and head["prompt_version"].startswith("relevance_verdict")
    # A second fit reading every P from the cache is held by tests/unit/cli/test_fit_relevance.py, and
    # unscored pairs asked again on a resume by tests/unit/cli/test_relevance_cli.py: asked here too,
    # it re-sent SmolLM2's many unscored pairs (20 s of this test's 54)

    qrels = tmp_path / "fitted.qrels"
    judged = ragjury("relevance", "--judge", f"fitted:{tmp_path / 'head.json'}", "--topics", str(TREC / "topics.jsonl"),
                     "--passages", str(TREC / "passages.jsonl"), "--runs", str(TREC / "runs" / "bm25.trec"),
                     "--depth", "3", "--out", str(qrels), "--no-progress", cwd=tmp_path, server=llm_server)
    assert judged.returncode in (0, 3), judged.stderr  # 3: some pairs unscored, said so
    lines = [line.split() for line in qrels.read_text().splitlines() if line.strip()]
    assert lines and all(grade in ("0", "1") for *_, grade in lines)
