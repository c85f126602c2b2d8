"""Turn a multi-turn agent trace into the text a goal judge reads, the same way every time.

Why explicit and versioned: how a trace is rendered (numbering, tool names, what is cut when
it is too long) changes what the judge sees, so it changes the verdict. The format's version
goes into the goal judge's identity (and so into every result and cache key); changing the
rendering below means bumping ``TRACE_FORMAT_VERSION``.

Format ``trace_text@1.0``:

- one block per turn, numbered from 1: ``[3] tool (search): ...`` / ``[4] assistant: ...``;
- continuation lines of a turn are indented by four spaces, so text inside a turn cannot
  start a line that looks like a new turn (``[5] user: ...``);
- one turn longer than half the budget is cut in the middle with a visible marker;
- when the turns still exceed the budget, the first user turn (where the goal usually is)
  and as many of the last turns as fit are kept, and a marker says how many turns in
  between were left out.

The caller wraps the result in the ``<trace>`` data tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragjury.rag_agent.core.items import TraceMessage
from ragjury.rag_agent.core.prompting import CHARS_PER_TOKEN

TRACE_FORMAT_VERSION = "trace_text@1.0"
INDENT = "    "


@dataclass(frozen=True)
class TraceText:
    """A rendered trace and what the budget left out of it."""

    text: str
    turns_shown: int
    turns_omitted: int
    chars_cut: int
    version: str = TRACE_FORMAT_VERSION


def _cut_middle(content: str, limit: int) -> tuple[str, int]:
    if len(content) <= limit:
        return content, 0
    cut = len(content) - limit
    head = content[: limit // 2]
    tail = content[len(content) - (limit - limit // 2) :]
    return f"{head} [... {cut} characters cut ...] {tail}", cut


def format_turn(number: int, message: TraceMessage, *, max_chars: int | None = None) -> tuple[str, int]:
    """One turn as ``[n] role (tool): content`` and the number of characters cut from it."""
    role = message.role if not message.tool_name else f"{message.role} ({message.tool_name})"
    content = message.content.strip()
    cut = 0
    if max_chars is not None:
        content, cut = _cut_middle(content, max_chars)
    body = ("\n" + INDENT).join(line.rstrip() for line in content.splitlines()) or "(empty)"
    return f"[{number}] {role}: {body}", cut


def format_trace(trace: Sequence[TraceMessage], *, token_budget: int = 3000) -> TraceText:
    """Render ``trace`` within ``token_budget`` tokens (estimated at 4 characters each)."""
    budget = max(200, token_budget * CHARS_PER_TOKEN)
    rendered: list[str] = []
    chars_cut = 0
    for number, message in enumerate(trace, start=1):
        text, cut = format_turn(number, message, max_chars=budget // 2)
        rendered.append(text)
        chars_cut += cut
    total = sum(len(turn) + 1 for turn in rendered)
    if total <= budget:
        return TraceText("\n".join(rendered), len(rendered), 0, chars_cut)

    first_user = next((i for i, message in enumerate(trace) if message.role == "user"), 0)
    kept_head = [first_user]
    used = len(rendered[first_user]) + 1
    kept_tail: list[int] = []
    for index in range(len(rendered) - 1, first_user, -1):
        if used + len(rendered[index]) + 1 > budget:
            break
        kept_tail.append(index)
        used += len(rendered[index]) + 1
    kept = sorted(set(kept_head + kept_tail))
    lines: list[str] = []
    previous = -1
    omitted = 0
    for index in [*kept, len(rendered)]:
        skipped = index - previous - 1
        if skipped > 0:
            lines.append(f"[... {skipped} turns not shown: token budget ...]")
            omitted += skipped
        if index < len(rendered):
            lines.append(rendered[index])
        previous = index
    kept_set = set(kept)
    omitted_chars = sum(len(turn) for i, turn in enumerate(rendered) if i not in kept_set)
    return TraceText("\n".join(lines), len(kept), omitted, chars_cut + omitted_chars)


__all__ = ["TRACE_FORMAT_VERSION", "TraceText", "format_trace", "format_turn"]
