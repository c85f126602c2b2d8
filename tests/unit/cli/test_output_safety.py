"""No command overwrites an input, outputs are written atomically, and user mistakes end before
any judging with the documented exit codes (issue 13).

Judges are plug-ins written into the test's folder (``--judge python:safety_judges:...``); each
judgment they make appends a line to ``$SAFETY_JUDGE_LOG``, so "before any judging" is checked
by an empty log.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.atomic_io import TEMP_SUFFIX, check_output_paths, open_atomic, write_text_atomic
from ragjury.evals.results.gates import BINARY_TASK_FIGURES, LABEL_FIGURES, QRELS_FIGURES, SCORE_TASK_FIGURES
from ragjury.rag_agent.core.input_files import InputError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CORRECTNESS = FIXTURES / "pipeline_correctness.jsonl"
TOPICS = FIXTURES / "pipeline_topics.jsonl"
PASSAGES = FIXTURES / "pipeline_passages.jsonl"
RUN_A = FIXTURES / "pipeline_run_a.trec"

PLUGIN = '''
import os
from pathlib import Path

from ragjury.rag_agent.core.items import CorrectnessItem, RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity


def _log(text):
    with Path(os.environ["SAFETY_JUDGE_LOG"]).open("a", encoding="utf-8") as handle:
        handle.write(text.replace("\\n", " ") + "\\n")


class CountingCorrectness(BaseJudge[CorrectnessItem, bool]):
    name = "counting_correctness"

    def __init__(self, settings=None):
        pass

    @property
    def identity(self):
        return JudgeIdentity(name=self.name, prompt_version="counting@1")

    async def _judge(self, item):
        _log(item.question)
        return self.scored(item.references[0].lower() in item.answer.lower())


class FailingRelevance(BaseJudge[RelevanceItem, bool]):
    name = "failing_relevance"

    def __init__(self, settings=None):
        pass

    @property
    def identity(self):
        return JudgeIdentity(name=self.name, prompt_version="failing@1")

    async def _judge(self, item):
        _log(item.query)
        return self.unscored("model server unreachable (test)")
'''
COUNTING = "python:safety_judges:CountingCorrectness"
FAILING = "python:safety_judges:FailingRelevance"

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No model server, a cache and the plug-in judges inside the test's folder."""
    plugins = offline_cli / "plugins"
    plugins.mkdir()
    (plugins / "safety_judges.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(plugins))
    monkeypatch.setenv("SAFETY_JUDGE_LOG", str(offline_cli / "judged.log"))
    yield
    sys.modules.pop("safety_judges", None)


def invoke(*args: object):  # type: ignore[no-untyped-def]
    return runner.invoke(app, [str(arg) for arg in args])


def judged(tmp_path: Path) -> int:
    log = tmp_path / "judged.log"
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def one_line_error(result, *fragments: str) -> str:  # type: ignore[no-untyped-def]
    """The error of an exit-2 run: one line, no traceback, containing every fragment."""
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    joined = " ".join(text.split())
    for fragment in fragments:
        assert fragment in joined, joined
    assert len(text.splitlines()) <= 2  # one line, which rich may wrap once on a narrow terminal
    return joined


def temporaries(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.name.endswith(TEMP_SUFFIX)]


def copy(source: Path, folder: Path) -> Path:
    target = folder / source.name
    shutil.copy(source, target)
    return target


def evaluate(data: Path, *args: object):  # type: ignore[no-untyped-def]
    return invoke(
        "evaluate", "--task", "correctness", "--judge", COUNTING, "--data", data, "--no-progress", *args
    )


def relevance(tmp_path: Path, *args: object):  # type: ignore[no-untyped-def]
    topics, passages, run = (copy(p, tmp_path) for p in (TOPICS, PASSAGES, RUN_A))
    return invoke(
        "relevance",
        "--topics", topics,
        "--passages", passages,
        "--runs", run,
        "--no-progress",
        "--no-cache",
        *args,
    )


# -- outputs never overwrite inputs -------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--out", "--html"])
def test_evaluate_refuses_to_write_over_its_dataset(tmp_path: Path, option: str) -> None:
    data = copy(CORRECTNESS, tmp_path)
    before = data.read_bytes()
    error = one_line_error(evaluate(data, option, data), f"{option}:", "--data", str(data))
    assert error.count(str(data)) == 2  # names the output and the input
    assert data.read_bytes() == before
    assert judged(tmp_path) == 0 and not temporaries(tmp_path)


def test_evaluate_refuses_a_link_to_its_dataset(tmp_path: Path) -> None:
    data = copy(CORRECTNESS, tmp_path)
    before = data.read_bytes()
    link = tmp_path / "preds.jsonl"
    link.symlink_to(data)
    one_line_error(evaluate(data, "--out", link), "--out:", str(link), str(data))
    hard = tmp_path / "hard.jsonl"
    os.link(data, hard)
    one_line_error(evaluate(data, "--out", hard), "--out:", str(hard), str(data))
    assert data.read_bytes() == before and judged(tmp_path) == 0


def test_evaluate_refuses_two_outputs_on_one_file(tmp_path: Path) -> None:
    data = copy(CORRECTNESS, tmp_path)
    out = tmp_path / "same.out"
    one_line_error(evaluate(data, "--out", out, "--html", out), "--html:", "--out", str(out))
    assert not out.exists() and judged(tmp_path) == 0


@pytest.mark.parametrize(
    ("option", "original"), [("--passages", PASSAGES), ("--topics", TOPICS), ("--runs", RUN_A)]
)
def test_relevance_refuses_to_write_over_an_input(tmp_path: Path, option: str, original: Path) -> None:
    target = tmp_path / original.name  # the copy that relevance() reads
    result = relevance(tmp_path, "--judge", "non-llm", "--out", target)
    error = one_line_error(result, "--out:", option)
    assert error.count(str(target)) == 2
    assert target.read_bytes() == original.read_bytes()
    assert not temporaries(tmp_path)


def test_relevance_refuses_an_unscored_list_over_an_input(tmp_path: Path) -> None:
    passages = copy(PASSAGES, tmp_path)
    shutil.move(passages, tmp_path / "j.qrels.unscored.tsv")
    listing = tmp_path / "j.qrels.unscored.tsv"
    result = invoke(
        "relevance", "--topics", TOPICS, "--passages", listing, "--runs", RUN_A, "--judge", "non-llm",
        "--out", tmp_path / "j.qrels",
    )
    one_line_error(result, "--out (unscored list):", "--passages", str(listing))
    assert listing.read_bytes() == PASSAGES.read_bytes()


def test_agreement_refuses_a_report_over_its_gold(tmp_path: Path) -> None:
    gold = copy(FIXTURES / "evals_qrels.txt", tmp_path)
    before = gold.read_bytes()
    result = invoke("agreement", "--gold", gold, "--judged", FIXTURES / "evals_qrels.txt", "--html", gold)
    one_line_error(result, "--html:", "--gold", str(gold))
    assert gold.read_bytes() == before


def test_non_llm_judge_refuses_outputs_over_inputs(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    run = runs / "run_a.jsonl"
    run.write_text(
        json.dumps({"metadata": {"run_id": "a", "topic_id": "t1"}, "responses": [{"text": "tides and moon"}]})
        + "\n"
    )
    topics = tmp_path / "default.eval.txt"  # where the leaderboard would go
    topics.write_text(json.dumps({"request_id": "t1", "title": "tides"}) + "\n")
    before = topics.read_bytes()
    args = ("non-llm-judge", "--rag-topics", topics, "--rag-responses", runs)
    one_line_error(invoke(*args, "--out-dir", tmp_path), "--out-dir:", "--rag-topics", str(topics))
    assert topics.read_bytes() == before
    one_line_error(invoke(*args, "--out-dir", runs), "--out-dir:", "--rag-responses folder")
    assert sorted(p.name for p in runs.iterdir()) == ["run_a.jsonl"]
    assert invoke(*args, "--out-dir", tmp_path / "out").exit_code == 0  # a new folder is created


# -- atomic writes ------------------------------------------------------------------------------------------


def test_atomic_write_replaces_whole_files_and_keeps_the_mode(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    target = folder / "out.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    write_text_atomic(target, "new\n")
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in folder.iterdir()) == ["out.txt"]


def test_atomic_write_leaves_the_old_file_and_no_temporary_on_failure(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    target = folder / "preds.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), open_atomic(target) as handle:
        handle.write("half a file")
        raise RuntimeError("killed mid-write")
    with pytest.raises(KeyboardInterrupt), open_atomic(target) as handle:
        handle.write("half a file")
        raise KeyboardInterrupt
    with pytest.raises(TypeError), open_atomic(target) as handle:
        handle.write(json.dumps({"not serialisable": object()}))
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in folder.iterdir()) == ["preds.jsonl"]


def test_atomic_write_onto_a_folder_fails_without_a_temporary(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(OSError):
        write_text_atomic(folder, "x")
    assert list(folder.iterdir()) == [] and not temporaries(tmp_path)


def test_check_output_paths_names_both_paths(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("{}\n")
    with pytest.raises(InputError) as caught:
        check_output_paths([("--out", tmp_path / "." / "d.jsonl")], [("--data", data)])
    assert str(caught.value).startswith("--out: ") and str(data) in str(caught.value)
    fine = [("--out", tmp_path / "new.jsonl"), ("--html", None)]
    check_output_paths(fine, [("--data", data), ("--x", "-")])  # no error


# -- output folders: an existing folder, a missing one: exit 2 before judging -------------------------------


def test_evaluate_out_folder_is_exit_2_without_temporary(tmp_path: Path) -> None:
    data = copy(CORRECTNESS, tmp_path)
    folder = tmp_path / "preds"
    folder.mkdir()
    one_line_error(evaluate(data, "--out", folder), "--out:", f"{folder} is a folder")
    one_line_error(evaluate(data, "--html", folder), "--html:", f"{folder} is a folder")
    assert list(folder.iterdir()) == [] and not temporaries(tmp_path) and judged(tmp_path) == 0


@pytest.mark.parametrize("option", ["--out", "--html"])
def test_evaluate_missing_output_folder_is_exit_2_before_judging(tmp_path: Path, option: str) -> None:
    data = copy(CORRECTNESS, tmp_path)
    target = tmp_path / "no" / "such" / "file"
    one_line_error(evaluate(data, option, target), f"{option}:", str(target), "does not exist")
    assert judged(tmp_path) == 0 and not (tmp_path / "no").exists()


def test_relevance_out_folder_and_missing_folder_are_exit_2_before_judging(tmp_path: Path) -> None:
    folder = tmp_path / "qrels"
    folder.mkdir()
    one_line_error(relevance(tmp_path, "--judge", FAILING, "--out", folder), "--out:", "is a folder")
    missing = tmp_path / "nowhere" / "j.qrels"
    one_line_error(relevance(tmp_path, "--judge", FAILING, "--out", missing), "--out:", "does not exist")
    assert judged(tmp_path) == 0 and list(folder.iterdir()) == [] and not temporaries(tmp_path)


def test_agreement_and_non_llm_missing_folders_are_exit_2(tmp_path: Path) -> None:
    qrels = FIXTURES / "evals_qrels.txt"
    html = tmp_path / "nowhere" / "r.html"
    result = invoke("agreement", "--gold", qrels, "--judged", qrels, "--html", html)
    one_line_error(result, "--html:", str(html))
    out_dir = tmp_path / "nowhere" / "out"
    result = invoke(
        "non-llm-judge", "--rag-topics", FIXTURES / "evals_rag_topics.jsonl", "--rag-responses",
        FIXTURES / "evals_rag_run.jsonl", "--out-dir", out_dir,
    )
    one_line_error(result, "--out-dir:", str(out_dir), "does not exist")
    assert not (tmp_path / "nowhere").exists()


# -- exit codes ---------------------------------------------------------------------------------------------


def test_relevance_exits_3_when_nothing_is_scored(tmp_path: Path) -> None:
    out = tmp_path / "judged.qrels"
    out.write_text("q1 0 d1 3\n")  # an earlier result: kept, not replaced by an empty file
    result = relevance(tmp_path, "--judge", FAILING, "--out", out, "--json")
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)
    assert summary["written"] == 0 and summary["unscored"] == summary["n"] > 0
    assert summary["outputs"] == {"qrels": None, "unscored": f"{out}.unscored.tsv"}
    assert "nothing was scored" in result.stderr and "model server unreachable (test)" in result.stderr
    assert out.read_text() == "q1 0 d1 3\n"
    listing = Path(f"{out}.unscored.tsv").read_text().splitlines()
    assert listing[0] == "qid\tdocid\treason" and len(listing) == summary["n"] + 1
    assert judged(tmp_path) == summary["n"]


def test_relevance_exits_3_in_human_mode_too(tmp_path: Path) -> None:
    result = relevance(tmp_path, "--judge", FAILING, "--out", tmp_path / "j.qrels")
    assert result.exit_code == 3 and "qrels written to" not in result.stdout


@pytest.mark.parametrize(
    ("args", "valid"),
    [
        (("--task", "correctness"), "cohen_kappa (kappa)"),
        (("--task", "score"), "pearson"),
    ],
)
def test_evaluate_unknown_gate_is_exit_2_before_judging(
    tmp_path: Path, args: tuple[str, ...], valid: str
) -> None:
    data = copy(CORRECTNESS, tmp_path)
    result = invoke(
        "evaluate", *args, "--judge", COUNTING, "--data", data, "--no-progress", "--fail-under", "kapa=0.4"
    )
    one_line_error(result, "--fail-under:", "unknown figure 'kapa'", valid, "coverage")
    assert judged(tmp_path) == 0


def test_evaluate_gate_of_another_task_is_exit_2(tmp_path: Path) -> None:
    data = copy(CORRECTNESS, tmp_path)
    result = invoke(
        "evaluate", "--task", "score", "--judge", "heuristic", "--data", data, "--fail-under", "kappa=0.4"
    )
    one_line_error(result, "unknown figure 'cohen_kappa'", "pearson")


def test_evaluate_agent_unknown_gate_is_exit_2_before_anything_runs(tmp_path: Path) -> None:
    result = invoke(
        "evaluate", "--agent", "--corpus", PASSAGES, "--data", TOPICS, "--fail-under", "correctness=0.5"
    )
    one_line_error(result, "unknown figure 'correctness'", "answered", "faithfulness_coverage")


def test_agreement_unknown_gate_is_exit_2_listing_names(tmp_path: Path) -> None:
    qrels = FIXTURES / "evals_qrels.txt"
    result = invoke("agreement", "--gold", qrels, "--judged", qrels, "--fail-under", "kapa=0.4")
    one_line_error(result, "unknown figure 'kapa'", "graded_cohen_kappa", "kendall_tau (tau)")
    gold, predictions = FIXTURES / "evals_gold.jsonl", FIXTURES / "evals_predictions.jsonl"
    result = invoke(
        "agreement", "--gold", gold, "--judged", predictions, "--fail-under", "graded_accuracy=0.4"
    )
    one_line_error(result, "unknown figure 'graded_accuracy'", "quadratic_kappa (qwk)")


def test_valid_gates_still_run_and_gate(tmp_path: Path) -> None:
    data = copy(CORRECTNESS, tmp_path)
    assert evaluate(data, "--fail-under", "kappa=0.99").exit_code == 1
    assert evaluate(data, "--fail-under", "coverage=0.5", "--fail-under", "f1=0").exit_code == 0


def test_gate_names_are_the_figures_commands_report(tmp_path: Path) -> None:
    """The up-front lists (``evals.gates``) must not drift from what the commands compute."""
    data = copy(CORRECTNESS, tmp_path)
    binary = json.loads(evaluate(data, "--json").stdout)["figures"]
    assert set(binary) == set(BINARY_TASK_FIGURES)
    scores = tmp_path / "scores.jsonl"
    scores.write_text(
        "".join(
            json.dumps({"id": str(i), "question": f"q{i}", "answer": "the moon pulls the sea" * (i + 1),
                        "label": i / 5, "system": f"s{i % 3}"}) + "\n"
            for i in range(6)
        )
    )
    result = invoke("evaluate", "--task", "score", "--judge", "heuristic", "--data", scores, "--json",
                    "--no-progress")
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.stdout)["figures"]) <= set(SCORE_TASK_FIGURES)
    qrels = FIXTURES / "evals_qrels.txt"
    runs = tmp_path / "runs"
    runs.mkdir()
    copy(FIXTURES / "evals_run.trec", runs)
    result = invoke("agreement", "--gold", qrels, "--judged", qrels, "--runs", runs, "--json")
    payload = json.loads(result.stdout)
    assert set(payload["figures"]) == set(QRELS_FIGURES)
    labels = invoke("agreement", "--gold", FIXTURES / "evals_gold.jsonl", "--judged",
                    FIXTURES / "evals_predictions.jsonl", "--json")
    assert set(json.loads(labels.stdout)["figures"]) <= set(LABEL_FIGURES)


def test_doctor_json_is_exactly_one_object() -> None:
    result = runner.invoke(app, ["doctor", "--json", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert isinstance(payload, dict) and payload["ok"] is False
    assert payload["checks"][0]["name"] == "server reachable" and payload["checks"][0]["fix"]
    assert result.stdout.strip().count("\n") == 0
