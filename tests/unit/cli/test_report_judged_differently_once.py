"""#53: ``report A B --labels L`` of two runs whose headers differ says "judged DIFFERENTLY" once, on
its first line, before people's B − A; the judges' own comparison under it does not say it again
(it said it twice: once over people's figures, once over the judges')."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from labelled_configs import judge_b_differently, labelled_configs

from ragjury.cli import app

runner = CliRunner()


def _judged_differently(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two runs of the examples, B's header saying another model and prompt version, and a plan over
    both labelled from the judge's verdicts (every seventh turned)."""
    a, b, plan = labelled_configs(tmp_path)
    judge_b_differently(tmp_path)
    return a, b, plan


def test_report_a_b_labels_says_judged_differently_once(tmp_path: Path) -> None:
    a, b, plan = _judged_differently(tmp_path)
    result = runner.invoke(app, ["report", str(a), str(b), "--labels", str(plan)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    said = [line for line in lines if "judged DIFFERENTLY" in line]
    assert len(said) == 1, said
    first = next(k for k, line in enumerate(lines) if "judged DIFFERENTLY" in line)
    assert "model - vs qwen3:8b" in lines[first] and "as people would judge it" in lines[first + 1], lines[first:first + 2]
    judges = lines.index("the judges' own rates:")
    assert lines[judges + 1].startswith("run comparison:") and "mixes the answers' difference" in lines[judges + 1]
    # without labels the judges' comparison is the first line and still says it, once
    plain = runner.invoke(app, ["report", str(a), str(b)], env={"COLUMNS": "250"})
    assert plain.exit_code == 0, plain.output
    assert sum("judged DIFFERENTLY" in line for line in plain.output.splitlines()) == 1
