"""How deep a judgment is: ragjury frames on the stack when the chat-completion request is sent.

Why: a reader following ``CorrectnessJudge`` from ``ajudge`` to the socket should meet the
envelope, the judge, one model-client call and the counting transport -- nothing else of ours.
The stack is recorded inside ``CountingTransport.handle_async_request`` against a local fake
OpenAI-compatible server; frames under ``tests/`` and ``.venv`` are not ragjury's.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from recording_server import recording_server

import ragjury
from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.model import direct
from ragjury.rag_agent.model.transport import CountingTransport

SOURCE = Path(ragjury.__file__).resolve().parent
EXCLUDED = (SOURCE / "tests", SOURCE / ".venv")


def ragjury_frames(stack: list[traceback.FrameSummary]) -> list[str]:
    """``module-relative path:function`` of each frame inside the ragjury source tree, outermost first."""
    found = []
    for frame in stack:
        if frame.filename.startswith("<"):  # "<frozen runpy>" (python -m pytest) would resolve under the cwd
            continue
        path = Path(frame.filename).resolve()
        if path.is_relative_to(SOURCE) and not any(path.is_relative_to(x) for x in EXCLUDED):
            found.append(f"{path.relative_to(SOURCE)}:{frame.name}")
    return found


@pytest.fixture
def stacks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The ragjury frames of every request sent, recorded inside ``handle_async_request`` as it
    takes its connection pool (only chat-completion requests go through the transport), or inside
    the direct one-token path's ``request`` as it counts its attempt (``rag_agent.model.direct``)."""
    seen: list[list[str]] = []
    original = CountingTransport._pool
    noted = direct.note_attempt

    def recording(self: CountingTransport) -> object:
        seen.append(ragjury_frames(traceback.extract_stack()))
        return original(self)

    def recording_direct() -> None:
        seen.append(ragjury_frames(traceback.extract_stack()))
        noted()

    monkeypatch.setattr(CountingTransport, "_pool", recording)
    monkeypatch.setattr(direct, "note_attempt", recording_direct)
    yield seen


def from_ajudge(frames: list[str]) -> list[str]:
    names = [frame.rsplit(":", 1)[1] for frame in frames]
    assert "ajudge" in names, frames
    return frames[names.index("ajudge"):]


def test_correctness_request_is_four_ragjury_frames_below_ajudge(stacks: list[list[str]]) -> None:
    content = '{"reason": "It names the reference.", "verdict": "1"}'
    with recording_server(content=content) as server:
        settings = RagjurySettings(base_url=server.base_url, breaker_failures=0)
        judge = ragjury.build_judge("correctness", "llm", settings)
        item = ragjury.CorrectnessItem(question="q?", answer="Paris", references=["Paris"])
        judgment = judge.judge_sync(item)
    assert judgment.value is not None and judgment.value.verdict
    assert len(stacks) == 2  # the one-token probe (no logprobs here), then the structured verdict
    probe = from_ajudge(stacks[0])
    print("ajudge to the socket:", " > ".join(probe))
    assert len(probe) <= 4, probe
    assert probe[-1].endswith("direct.py:request")  # a plain OpenAI-compatible server: sent straight (#55 item 4)
    for frames in stacks[1:]:  # the structured call runs in its own task: count all its frames
        assert len(frames) <= 4, frames


def cli_stack(tmp_path: Path, stacks: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ragjury frames when ``ragjury evaluate`` sends its request, run as the console
    script does (``ragjury.cli.main``), so the entry point's own frame is counted too."""
    from ragjury.cli import main

    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"question": "q?", "answer": "Paris", "references": ["Paris"]}) + "\n")
    content = '{"reason": "It names the reference.", "verdict": "1"}'
    with recording_server(content=content) as server:
        monkeypatch.setattr(sys, "argv", [
            "ragjury", "evaluate", "--task", "correctness", "--judge", "llm", "--data", str(data),
            "--base-url", server.base_url, "--no-progress", "--no-cache", "--json",
        ])
        with pytest.raises(SystemExit) as exited:
            main()
    assert exited.value.code in (0, None)
    assert stacks, "no request was sent"
    return stacks[0]


def test_cli_path_frame_count_is_reported(
    tmp_path: Path, stacks: list[list[str]], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a bound: prints the whole ragjury stack of ``ragjury evaluate`` for the record."""
    frames = cli_stack(tmp_path, stacks, monkeypatch)
    with capsys.disabled():
        sys.stdout.write(f"\nCLI path, {len(frames)} ragjury frames: {' > '.join(frames)}\n")


def test_cli_path_is_at_most_eight_ragjury_frames(
    tmp_path: Path, stacks: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = cli_stack(tmp_path, stacks, monkeypatch)
    assert frames[0] == "cli.py:main" and len(frames) <= 8, frames
