"""What only a terminal shows, tested in a pseudo-terminal 80 columns wide (``tests/pty_terminal``):
the live progress display fits the width, and a run against a dead model server says why first,
in one line whose words are never cut."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pty_terminal import run_in_terminal, screen_lines, terminal_env
from recording_server import closed_port

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
RAGJURY = str(Path(sys.executable).with_name("ragjury"))

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


def quiet_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return terminal_env({"RAGJURY_HTTP_RETRIES": "0", "RAGJURY_CACHE_PATH": str(tmp_path / "cache.sqlite"),
                         "OLLAMA_HOST": f"http://127.0.0.1:{closed_port()}", **extra})


def test_the_progress_display_fits_80_columns(tmp_path: Path) -> None:
    code, shown = run_in_terminal(
        [RAGJURY, "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA)],
        env=quiet_env(tmp_path),
    )
    assert code == 0, shown
    lines = screen_lines(shown)
    progress = [line for line in lines if line.startswith("correctness") and "40/40" in line]
    assert progress, shown  # the live display drew its last frame on the terminal
    assert max(len(line.rstrip()) for line in lines) <= 80, [line for line in lines if len(line.rstrip()) > 80]


def test_a_dead_server_is_one_line_first_with_the_fix_and_no_tables(tmp_path: Path) -> None:
    code, shown = run_in_terminal(
        [RAGJURY, "evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA), "--no-cache"],
        env=quiet_env(tmp_path),
    )
    assert code == 3, shown
    plain = " ".join(screen_lines(shown))
    assert "┃" not in shown and "│ n " not in shown  # no tables of zeros
    # First, wrapped between words at the terminal's width (never cut inside a word by it).
    lines = screen_lines(shown)
    first = next(i for i, line in enumerate(lines) if line.startswith("nothing was scored"))
    assert lines[first].startswith("nothing was scored: model server unreachable at http://127.0.0.1:")
    assert max(len(line.rstrip()) for line in lines) <= 80, lines
    assert "start your server" in plain and "--base-url" in plain
    after = plain.split("nothing was scored", 1)[1]
    assert "Agreement" not in after and "verdicts by" not in plain


def test_lines_wrap_between_words_and_titles_stay_whole(tmp_path: Path) -> None:
    """An error line and the summary's title at 80 columns: no line longer than the terminal (which
    would cut it inside a word), every word of the message whole on one line."""
    missing = "no-such-folder/predictions-of-the-second-configuration-run.jsonl"  # 65 characters
    code, shown = run_in_terminal([RAGJURY, "report", missing], env=quiet_env(tmp_path))
    assert code == 2, shown
    lines = screen_lines(shown)
    assert len(lines) > 1 and max(len(line.rstrip()) for line in lines) <= 80, lines  # wrapped, by ragjury
    assert any(missing in line for line in lines), lines  # the path whole on one line
    code, shown = run_in_terminal(
        [RAGJURY, "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA), "--no-progress"],
        env=quiet_env(tmp_path),
    )
    assert code == 0, shown
    assert any(line.strip() == "correctness judged by contains on correctness.jsonl" for line in screen_lines(shown))
