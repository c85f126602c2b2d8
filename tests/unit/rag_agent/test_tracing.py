"""OpenTelemetry tracing (``rag_agent.tracing``, ``--trace``): span names, parents and attributes of
a judged batch, captured with the SDK's in-memory exporter; the JSON-lines file and the OTLP
exporter behind ``--trace``; and the one-line failure without the SDK."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

import ragjury.rag_agent.tracing as tracing
from ragjury.cli import app
from ragjury.rag_agent.judges.llm.correctness import ANSWER_CORRECTNESS
from ragjury.config.settings import RagjurySettings, get_settings
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CORRECTNESS = FIXTURES / "pipeline_correctness.jsonl"  # 20 rows
SETTINGS = RagjurySettings(preflight_timeout_s=0, retries=0, http_retries=0)
AGENT = f"answer_correctness:{ANSWER_CORRECTNESS.tag}"

runner = CliRunner()


def verdict_model(verdict: str = "1") -> FunctionModel:
    """A model that answers every prompt with a valid verdict."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(json.dumps({"reason": "matches", "verdict": verdict}))])

    return FunctionModel(reply, model_name="fake-judge")


def garbage_model() -> FunctionModel:
    """A model whose every answer fails validation: the judgment is unscored."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("not json")])

    return FunctionModel(reply, model_name="broken-judge")


def items(n: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"question {i}", answer="Paris", references=["Paris"]) for i in range(n)]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on, into memory, for the test only."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with tracing.traced(provider):
        yield exporter
    assert not tracing.active()


def named(exporter: InMemorySpanExporter, prefix: str) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.name.startswith(prefix)]


def parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


async def test_judged_batch_has_named_spans_with_cache_hits_and_misses(spans: InMemorySpanExporter) -> None:
    judge = CorrectnessJudge(verdict_model(), settings=SETTINGS, method="structured")
    cache = JudgmentCache(":memory:")
    await run_judgments(judge, items(1), cache=cache, progress=False)  # item 0 is now cached
    spans.clear()

    judgments, stats = await run_judgments(judge, items(3), cache=cache, progress=False)

    assert (stats.cached, stats.judged) == (1, 2)
    prompt_version = judge.identity.prompt_version
    [batch] = named(spans, "judge_batch ")
    assert batch.name == "judge_batch answer_correctness"
    assert batch.attributes["ragjury.cached"] == 1 and batch.attributes["ragjury.judged"] == 2
    judgment_spans = named(spans, "judgment ")
    assert {span.name for span in judgment_spans} == {f"judgment answer_correctness {prompt_version}"}
    assert sorted(span.attributes["ragjury.cache"] for span in judgment_spans) == ["hit", "miss", "miss"]
    for span in judgment_spans:
        assert span.attributes["ragjury.judge"] == "answer_correctness"
        assert span.attributes["ragjury.model"] == "fake-judge"
        assert span.attributes["ragjury.prompt_version"] == prompt_version
        assert span.attributes["ragjury.unscored"] is False
        assert span.attributes["ragjury.fallback_used"] is False
        assert parent_id(span) == batch.context.span_id
    [hit] = [span for span in judgment_spans if span.attributes["ragjury.cache"] == "hit"]
    assert "ragjury.usage.requests" not in hit.attributes  # a hit costs nothing now
    misses = [span for span in judgment_spans if span.attributes["ragjury.cache"] == "miss"]
    assert all(span.attributes["ragjury.usage.requests"] == 1 for span in misses)

    # pydantic-ai's spans: the agent is named after the judge and the prompt version, and each
    # agent run sits inside the judgment it served.
    agent_runs = named(spans, "invoke_agent ")
    assert [span.name for span in agent_runs] == [f"invoke_agent {AGENT}"] * 2
    assert {parent_id(span) for span in agent_runs} == {span.context.span_id for span in misses}
    assert len(named(spans, "chat fake-judge")) == 2


async def test_fallback_and_unscored_judgments_are_marked(spans: InMemorySpanExporter) -> None:
    primary = CorrectnessJudge(garbage_model(), settings=SETTINGS, method="structured")
    judge = FallbackJudge(primary, ContainsJudge())

    [judgment], _ = await run_judgments(judge, items(1), cache=None, progress=False)

    assert judgment.fallback_used
    outer = [span for span in named(spans, "judgment ") if span.attributes.get("ragjury.cache") == "miss"]
    assert len(outer) == 1
    assert outer[0].attributes["ragjury.judge"] == judge.identity.name
    assert outer[0].attributes["ragjury.fallback_used"] is True
    assert "invalid model output" in outer[0].attributes["ragjury.fallback_reason"]
    # The primary's failed attempt and the fallback's verdict nest inside, without a cache mark.
    inner = {
        span.attributes["ragjury.judge"]: span for span in named(spans, "judgment ") if span is not outer[0]
    }
    assert set(inner) == {"answer_correctness", "contains"}
    assert all(parent_id(span) == outer[0].context.span_id for span in inner.values())
    assert all("ragjury.cache" not in span.attributes for span in inner.values())
    failed = inner["answer_correctness"]
    assert failed.attributes["ragjury.unscored"] is True
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes["ragjury.unscored_reason"] == failed.status.description
    assert inner["contains"].status.status_code is not StatusCode.ERROR


async def test_a_batch_judge_gets_one_span_per_item(spans: InMemorySpanExporter) -> None:
    """``ContainsJudge`` judges a batch at once (never through ``ajudge``): the runner adds the spans."""
    await run_judgments(ContainsJudge(), items(4), cache=None, progress=False)
    judgment_spans = named(spans, "judgment contains")
    assert len(judgment_spans) == 4
    assert {span.attributes["ragjury.cache"] for span in judgment_spans} == {"miss"}


async def test_no_span_is_made_while_tracing_is_off() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with tracing.traced(provider):
        pass
    judge = CorrectnessJudge(verdict_model(), settings=SETTINGS, method="structured")
    await run_judgments(judge, items(2), cache=None, progress=False)
    assert not tracing.active()
    assert exporter.get_finished_spans() == ()


# -- the command line ---------------------------------------------------------------------------


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("RAGJURY_TRACE_FILE", str(tmp_path / "traces" / "spans.jsonl"))
    for name in ("RAGJURY_BASE_URL", "RAGJURY_TRACE", "OTEL_EXPORTER_OTLP_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SERVICE_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()
    assert not tracing.active()


def evaluate(*args: str) -> Any:
    return runner.invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(CORRECTNESS),
         "--no-progress", "--json", *args],
    )


def test_trace_flag_appends_json_line_spans_to_the_trace_file(isolated: Path) -> None:
    result = evaluate("--trace")
    assert result.exit_code == 0, result.output
    lines = (isolated / "traces" / "spans.jsonl").read_text(encoding="utf-8").splitlines()
    recorded = [json.loads(line) for line in lines]
    names = [span["name"] for span in recorded]
    assert sum(name.startswith("judgment contains ") for name in names) == 20
    assert names.count("judge_batch contains") == 1
    assert all(span["resource"]["attributes"]["service.name"] == "ragjury" for span in recorded)
    assert f"trace: {len(recorded)} spans appended to" in result.stderr
    json.loads(result.stdout)  # stdout stays one JSON object

    get_settings.cache_clear()
    again = runner.invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(CORRECTNESS),
         "--no-progress", "--json"],
        env={"RAGJURY_TRACE": "1"},
    )
    assert again.exit_code == 0, again.output
    after = (isolated / "traces" / "spans.jsonl").read_text(encoding="utf-8").splitlines()
    cached = [json.loads(line) for line in after[len(lines):]]
    hits = [s for s in cached if s["name"].startswith("judgment contains ")]
    assert len(hits) == 20 and {s["attributes"]["ragjury.cache"] for s in hits} == {"hit"}


def test_trace_without_the_sdk_fails_in_one_line(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sdk = [name for name in sys.modules if name.startswith("opentelemetry.sdk")] + ["opentelemetry.sdk"]
    for name in sdk:
        monkeypatch.setitem(sys.modules, name, None)  # as if the SDK were not installed
    with pytest.raises(tracing.TracingUnavailable, match=r"pip install 'ragjury\[trace\]'"):
        tracing.start_tracing(RagjurySettings())
    result = evaluate("--trace")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --trace needs the OpenTelemetry SDK: pip install 'ragjury[trace]'"
    ]
    assert result.stdout == ""  # stopped before judging anything
    assert not (isolated / "traces").exists()


class _Collector:
    """A local OTLP/HTTP receiver: records the path and size of every export."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, int, str]] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                collector.posts.append((self.path, len(body), self.headers.get("Content-Type", "")))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> _Collector:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def test_trace_sends_to_the_standard_otlp_endpoint(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _Collector() as collector:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint)
        result = evaluate("--trace")
    assert result.exit_code == 0, result.output
    assert collector.posts, "no span was exported"
    assert {path for path, _, _ in collector.posts} == {"/v1/traces"}
    assert {kind for _, _, kind in collector.posts} == {"application/x-protobuf"}
    assert f"spans sent to {collector.endpoint} (OTLP)" in result.stderr
    assert not (isolated / "traces").exists()


def test_a_dead_collector_is_reported_not_hidden(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from recording_server import closed_port

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    result = evaluate("--trace")
    assert result.exit_code == 0, result.output  # the judgments are not lost for want of a collector
    assert "trace: only 0 of 21 spans sent to" in result.stderr
