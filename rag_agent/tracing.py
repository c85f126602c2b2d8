"""OpenTelemetry traces of judging: one span per judgment, around pydantic-ai's own agent and model spans.

A slow, costly or mostly unscored batch needs answers per item (which judge and prompt, cache or
model, tokens, why unscored), so each judgment gets a span with ``ragjury.*`` attributes; off, it
costs one flag check. Without the OpenTelemetry SDK (the ``trace`` extra) ``--trace`` stops with
one line: the API alone records nothing, and a run that silently did not trace is worse.

It sits below ``core``, not in it: the judge protocol opens the span of each judgment, but spans
are plumbing, not the vocabulary judges are written in (core's types appear here for typing only).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # opentelemetry is imported where a span is made: an untraced run never loads it (5 ms)
    from opentelemetry.trace import Span, Tracer

    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.core.results import Judgment


class JudgeIdentity(Protocol):
    """What a span names of a judge (``core.protocol.JudgeIdentity`` has it): declared here, below
    the judge protocol that opens the spans, so this module never reads upward."""

    @property
    def name(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def prompt_version(self) -> str | None: ...

TRACER_NAME = "ragjury"
INSTALL_HINT = "--trace needs the OpenTelemetry SDK: pip install 'ragjury[trace]'"

JUDGE = "ragjury.judge"
MODEL = "ragjury.model"
PROMPT_VERSION = "ragjury.prompt_version"
CACHE = "ragjury.cache"
UNSCORED = "ragjury.unscored"
UNSCORED_REASON = "ragjury.unscored_reason"
FALLBACK_USED = "ragjury.fallback_used"
FALLBACK_REASON = "ragjury.fallback_reason"
INPUT_TOKENS = "ragjury.usage.input_tokens"
OUTPUT_TOKENS = "ragjury.usage.output_tokens"
REQUESTS = "ragjury.usage.requests"
LATENCY = "ragjury.latency_s"


class TracingUnavailable(RuntimeError):
    """Tracing was asked for but cannot be set up (SDK or exporter missing): one line for the user."""


_tracer: Tracer | None = None
"""The tracer of ragjury's own spans while tracing is on; None (no span at all) while it is off."""


def active() -> bool:
    """Whether judgments are traced now (checked once per judgment: it must cost nothing when off)."""
    return _tracer is not None


@contextmanager
def traced(tracer_provider: Any | None = None, *, include_content: bool = True) -> Iterator[Tracer]:
    """Within the block, trace judgments and pydantic-ai's agent runs and model requests.

    ``tracer_provider``: an OpenTelemetry SDK ``TracerProvider`` (None: the global one, e.g. the
    provider ``logfire.configure()`` set). ``include_content``: put prompts and model outputs on
    pydantic-ai's spans (they hold the data being judged). Restores the previous state on exit.
    """
    global _tracer
    from opentelemetry import trace as otel_trace
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings

    provider = tracer_provider or otel_trace.get_tracer_provider()
    # pydantic-ai has no getter for the process-wide default that ``instrument_all`` sets.
    previous_instrument = getattr(Agent, "_instrument_default", False)
    previous_tracer = _tracer
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider, include_content=include_content))
    _tracer = provider.get_tracer(TRACER_NAME)
    try:
        yield _tracer
    finally:
        _tracer = previous_tracer
        Agent.instrument_all(previous_instrument)


# -- judgment spans ---------------------------------------------------------------------------


def span_name(identity: JudgeIdentity) -> str:
    """``judgment JUDGE PROMPT_VERSION`` (the prompt version left out for model-free judges)."""
    if identity.prompt_version:
        return f"judgment {identity.name} {identity.prompt_version}"
    return f"judgment {identity.name}"


def identity_attributes(identity: JudgeIdentity) -> dict[str, str]:
    attributes = {JUDGE: identity.name}
    if identity.model:
        attributes[MODEL] = identity.model
    if identity.prompt_version:
        attributes[PROMPT_VERSION] = identity.prompt_version
    return attributes


def outcome_attributes(judgment: Judgment[Any], *, cost: bool = True) -> dict[str, Any]:
    """What one judgment came to: unscored (and why), fallback (and why), and (``cost``) what it
    spent; a cache hit spends nothing now, so its span carries no cost."""
    attributes: dict[str, Any] = {UNSCORED: judgment.unscored, FALLBACK_USED: judgment.fallback_used}
    if cost:
        attributes[INPUT_TOKENS] = judgment.usage.input_tokens
        attributes[OUTPUT_TOKENS] = judgment.usage.output_tokens
        attributes[REQUESTS] = judgment.usage.requests
        attributes[LATENCY] = round(judgment.latency_s, 6)
    if judgment.unscored_reason:
        attributes[UNSCORED_REASON] = judgment.unscored_reason
    if judgment.fallback_reason:
        attributes[FALLBACK_REASON] = judgment.fallback_reason
    return attributes


def _finish(span: Span, judgment: Judgment[Any], *, cost: bool = True) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attributes(outcome_attributes(judgment, cost=cost))
    if judgment.unscored:
        span.set_status(Status(StatusCode.ERROR, judgment.unscored_reason or "unscored"))


@dataclass
class RunTrace:
    """One batch run being traced: its span, and which of its judgments already have a span."""

    span: Span
    identity: JudgeIdentity
    traced: set[int] = field(default_factory=set)
    """``id()`` of the judgments whose span ``judgment_span`` made (the others get one after)."""
    _tokens: tuple[Token[Any], ...] = ()


_RUN: ContextVar[RunTrace | None] = ContextVar("ragjury_traced_run", default=None)
"""Set by the runner around the items it sends to the judge (cache misses); each item's
outermost ``judgment_span`` takes it, so nested judges (fallback, panel members) do not."""


@contextmanager
def judgment_span(identity: JudgeIdentity) -> Iterator[Callable[[Judgment[Any]], None]]:
    """A span around one judgment; call the yielded function with the judgment before leaving.

    Only used while ``active()``. Inside a batch run the outermost judgment of an item is marked
    ``ragjury.cache = miss`` (the runner only sends what the cache did not have).
    """
    assert _tracer is not None
    run = _RUN.get()
    token = _RUN.set(None)
    attributes: dict[str, Any] = identity_attributes(identity)
    if run is not None:
        attributes[CACHE] = "miss"
    try:
        with _tracer.start_as_current_span(span_name(identity), attributes=attributes) as span:

            def record(judgment: Judgment[Any]) -> None:
                _finish(span, judgment)
                if run is not None:
                    run.traced.add(id(judgment))

            yield record
    finally:
        _RUN.reset(token)


def start_batch(identity: JudgeIdentity, description: str, items: int) -> RunTrace | None:
    """Open the span of one batch run and make it current (None when tracing is off)."""
    if _tracer is None:
        return None
    span = _tracer.start_span(
        f"judge_batch {identity.name}",
        attributes={
            **identity_attributes(identity),
            "ragjury.description": description,
            "ragjury.items": items,
        },
    )
    from opentelemetry import context as otel_context
    from opentelemetry import trace as otel_trace

    run = RunTrace(span, identity)
    run._tokens = (otel_context.attach(otel_trace.set_span_in_context(span)), _RUN.set(run))
    return run


def cached(run: RunTrace | None, judgment: Judgment[Any]) -> None:
    """A judgment taken from the cache (or from another process sharing it): an instant span."""
    if run is not None:
        _instant(run, judgment, "hit")


def judged(run: RunTrace | None, judgment: Judgment[Any]) -> None:
    """A judgment made in this run: its span exists when the judge went through ``BaseJudge.ajudge``;
    judges that judge a whole batch at once (model-free, vectorised) get one now, timed by its latency."""
    if run is not None and id(judgment) not in run.traced:
        _instant(run, judgment, "miss")


def _instant(run: RunTrace, judgment: Judgment[Any], cache: str) -> None:
    """A judgment's span made after the fact: instant for a hit, its latency long for a miss."""
    assert _tracer is not None

    end = time.time_ns()
    hit = cache == "hit"
    start = end if hit else end - int(max(0.0, judgment.latency_s) * 1e9)
    identity = run.identity
    attributes: dict[str, Any] = {**identity_attributes(identity), CACHE: cache}
    if judgment.judge and judgment.judge != identity.name:
        attributes["ragjury.answered_by"] = judgment.judge
    from opentelemetry import trace as otel_trace

    context = otel_trace.set_span_in_context(run.span)
    span = _tracer.start_span(span_name(identity), context=context, attributes=attributes, start_time=start)
    _finish(span, judgment, cost=not hit)
    span.end(end_time=end)


def end_batch(run: RunTrace | None, stats: Mapping[str, Any]) -> None:
    """Close the batch span with the run's counts (``RunStats.as_dict``) and leave its context."""
    if run is None:
        return
    for name in ("n", "cached", "judged", "unscored", "fallback_used", "not_attempted", "input_tokens",
                 "output_tokens", "requests", "interrupted"):
        if name in stats:
            run.span.set_attribute(f"ragjury.{name}", stats[name])
    from opentelemetry import context as otel_context
    from opentelemetry.trace import Status, StatusCode

    if stats.get("interrupted"):
        run.span.set_status(Status(StatusCode.ERROR, "interrupted"))
    context_token, run_token = run._tokens
    _RUN.reset(run_token)  # type: ignore[arg-type]
    otel_context.detach(context_token)
    run.span.end()


# -- the command line's exporters ---------------------------------------------------------------


@dataclass
class TraceSession:
    """Tracing started by ``--trace``: where the spans go; ``close()`` flushes and says so."""

    provider: Any
    destination: str
    counts: dict[str, int]
    """``ended``: spans recorded; ``exported``: spans the exporter reported written or sent."""
    _exit: Callable[[], None]
    _handle: IO[str] | None = None

    def close(self) -> str:
        """Flush every span, stop tracing, and return one line saying where they went (and, when
        the collector did not take them all, how many were lost)."""
        self._exit()
        self.provider.force_flush()
        self.provider.shutdown()
        if self._handle is not None:
            self._handle.close()
        ended, exported = self.counts["ended"], self.counts["exported"]
        if exported >= ended:
            return f"trace: {ended:,} spans {self.destination}"
        return f"trace: only {exported:,} of {ended:,} spans {self.destination} (export failed: see above)"


def otlp_endpoint() -> str | None:
    """The OTLP endpoint of the standard OpenTelemetry variables, if one is set."""
    traces = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    return traces or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")


def _otlp_exporter() -> Any:
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", ""
    )
    if protocol.strip() == "grpc":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise TracingUnavailable(
                "OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs pip install opentelemetry-exporter-otlp-proto-grpc "
                "(or use http/protobuf, which the 'trace' extra installs)"
            ) from None
        return OTLPSpanExporter()
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
    except ImportError:
        raise TracingUnavailable(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set, and sending to it needs the OTLP exporter: "
            "pip install 'ragjury[trace]'"
        ) from None
    return HttpExporter()


def start_tracing(settings: RagjurySettings) -> TraceSession:
    """Trace this process: to the OTLP endpoint of the standard variables, else to
    ``settings.trace_file`` (JSON lines, appended). Raises ``TracingUnavailable`` with one line
    when the SDK (or the exporter the variables ask for) is not installed."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )
    except ImportError:
        raise TracingUnavailable(INSTALL_HINT) from None

    counts = {"ended": 0, "exported": 0}

    class Counter(SpanProcessor):
        """Counts ended spans, so the command can say how many there were."""

        def on_end(self, span: ReadableSpan) -> None:
            counts["ended"] += 1

    class Counted(SpanExporter):
        """An exporter that counts the spans its inner exporter took, so a dead collector is told."""

        def __init__(self, inner: SpanExporter) -> None:
            self.inner = inner

        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            result = self.inner.export(spans)
            if result is SpanExportResult.SUCCESS:
                counts["exported"] += len(spans)
            return result

        def shutdown(self) -> None:
            self.inner.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return bool(self.inner.force_flush(timeout_millis))

    named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "ragjury"}
    provider = TracerProvider(resource=Resource.create(named))
    handle: IO[str] | None = None
    endpoint = otlp_endpoint()
    if endpoint:
        # A batch run emits a span per judgment at once: keep them all (the default queue holds 2,048).
        queue = None if os.environ.get("OTEL_BSP_MAX_QUEUE_SIZE") else 65536
        provider.add_span_processor(BatchSpanProcessor(Counted(_otlp_exporter()), max_queue_size=queue))
        destination = f"sent to {endpoint} (OTLP)"
    else:
        path = Path(settings.trace_file)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = path.open("a", encoding="utf-8")
        except OSError as error:
            reason = error.strerror or error
            raise TracingUnavailable(f"{path}: cannot write the trace file ({reason})") from None
        exporter = ConsoleSpanExporter(
            out=handle, formatter=lambda span: span.to_json(indent=None) + "\n"
        )
        provider.add_span_processor(SimpleSpanProcessor(Counted(exporter)))  # written as each span ends
        destination = f"appended to {path}"
    provider.add_span_processor(Counter())
    scope = traced(provider, include_content=settings.trace_content)
    scope.__enter__()
    return TraceSession(provider, destination, counts, lambda: scope.__exit__(None, None, None), handle)


__all__ = [
    "INSTALL_HINT",
    "RunTrace",
    "TraceSession",
    "TracingUnavailable",
    "active",
    "cached",
    "end_batch",
    "judged",
    "judgment_span",
    "otlp_endpoint",
    "start_batch",
    "start_tracing",
    "traced",
]
