"""#54 item 9: hints are text, never rich markup: the missing-torch hint printed
``pip install torch==2.13.0 'ragjury'`` (rich ate ``[train]``), and it gives the CPU build first."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"


def test_the_missing_torch_hint_keeps_its_brackets_and_installs_the_cpu_build_first(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ragjury.evals.training import cross_encoder

    def no_torch() -> None:
        raise RuntimeError(cross_encoder.TORCH_HINT)

    monkeypatch.setattr(cross_encoder, "require_torch", no_torch)
    result = CliRunner().invoke(app, ["train", "--task", "correctness", "--data", str(DATA), "--out",
                                      str(tmp_path / "ce")], env={"COLUMNS": "400"})
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert "pip install -e '.[train]'" in line and "'ragjury[train]'" in line, line
    assert line.index("pip install torch==2.13.0") < line.index("'.[train]'")


def test_every_error_line_prints_brackets_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    from ragjury.commands._common import fail

    fail("install 'ragjury[embeddings]' or [bold]x[/bold]")
    assert "install 'ragjury[embeddings]' or [bold]x[/bold]" in capsys.readouterr().err
