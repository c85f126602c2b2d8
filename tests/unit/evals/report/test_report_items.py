"""The report rebuilt from predictions alone: item text in the predictions file, the per-item
table, bootstrap intervals, like-with-like histograms, the people-vs-judge plot, two runs
compared, and ``ragjury report`` end to end."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import get_settings
from ragjury.evals.io.predictions import load_predictions, run_names, run_of_rows
from ragjury.evals.io.tasks import load_task_rows
from ragjury.evals.pipelines.dataset_evaluation import evaluate_dataset
from ragjury.evals.report.item_table import MAX_TEXT_CHARS, item_table
from ragjury.evals.report.page import HtmlReport, render_html, scatter_svg
from ragjury.evals.report.run_report import build_report, finished_run
from ragjury.evals.results.sources import describe_identity
from ragjury.evals.stats.agreement import label_agreement
from ragjury.evals.stats.intervals import (
    bootstrap_agreement,
    bootstrap_paired_difference,
    bootstrap_ranking_tau,
    bootstrap_system_tau,
    percentile_interval,
)
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.judges.catalogue import build_judge

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
CORRECTNESS = FIXTURES / "pipeline_correctness.jsonl"  # 20 evouna-nq rows, 4 questions x 5 systems

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path) -> None:
    """No model server, no .env, and a cache inside the test's folder (``offline_cli``)."""


def row(
    ident: str,
    label: bool | None,
    gold: bool | None,
    *,
    system: str = "s1",
    question: str = "Who wrote Hamlet?",
    answer: str = "Shakespeare",
    reason: str | None = "matches the reference",
    probability: float | None = None,
    fallback: bool = False,
    statements: list[tuple[str, bool, str]] | None = None,
) -> dict[str, Any]:
    """A predictions row as ``evaluate --out`` writes it (correctness, or faithfulness with statements)."""
    out: dict[str, Any] = {"id": ident, "system": system, "task": "faithfulness" if statements else "correctness",
                           "judge": "llm"}
    out["label"] = label
    if gold is not None:
        out["gold"] = gold
    if label is not None:
        value: dict[str, Any] = {"verdict": label, "reason": reason}
        if probability is not None:
            value["probability"] = probability
        if statements is not None:
            value = {
                "score": sum(s[1] for s in statements) / len(statements),
                "statements": [{"statement": s, "verdict": v, "reason": r} for s, v, r in statements],
            }
        out["value"] = value
    out.update(
        {
            "judge": "contains" if fallback else "answer_correctness",
            "model": None if fallback else "qwen",
            "prompt_version": "contains@1.0" if fallback else "answer_correctness@1.2",
            "fallback_used": fallback,
            "fallback_reason": "model server unreachable (test)" if fallback else None,
            "usage": {"input_tokens": 0 if fallback else 120, "output_tokens": 0 if fallback else 8, "requests": 1},
            "unscored": label is None,
            "unscored_reason": "invalid output after 2 retries" if label is None else None,
        }
    )
    item: dict[str, Any] = {"question": question, "answer": answer}
    item["contexts" if statements else "references"] = ["William Shakespeare"]
    out["item"] = item
    return out


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def mixed_rows() -> list[dict[str, Any]]:
    """10 items over 2 systems: 5 TP, 2 TN, 1 FP, 1 FN, 1 unscored; one verdict from the fallback."""
    return [
        row("a1", True, True, probability=0.91),
        row("a2", True, True),
        row("a3", True, False, reason="says Marlowe</td><script>alert(1)</script>"),  # FP, hostile text
        row("a4", False, True, reason="no reference in the answer"),  # FN
        row("a5", None, True),  # unscored
        row("b1", True, True, system="s2"),
        row("b2", True, True, system="s2", fallback=True),
        row("b3", False, False, system="s2"),
        row("b4", False, False, system="s2"),
        row("b5", True, True, system="s2"),
    ]


# -- predictions carry the item ------------------------------------------------------------------


def test_evaluate_predictions_carry_task_and_item_text() -> None:
    rows = load_task_rows("correctness", CORRECTNESS)
    judge = build_judge("correctness", "contains", get_settings())
    result = asyncio.run(evaluate_dataset("correctness", rows, judge, progress=False))
    written = [p.as_dict("label") for p in result.predictions]
    first = written[0]
    assert first["task"] == "correctness"
    assert first["item"] == rows[0].item.model_dump(mode="json")  # question, answer, references
    assert list(first)[-1] == "item"  # the long text goes last, after the envelope
    run = run_of_rows(enumerate(written, start=1), path="preds.jsonl")
    assert run.task == "correctness" and run.kind == "binary" and run.has_text
    assert [r.question for r in run.records] == [r.item.question for r in rows]  # type: ignore[attr-defined]
    # the figures recomputed from the predictions alone equal the run's own
    figures = finished_run(run, resamples=200)
    assert figures.agreement == result.agreement
    assert figures.figures() == pytest.approx(result.figures(), nan_ok=True)


def test_records_read_verdict_probability_reason_statements_and_outcome(tmp_path: Path) -> None:
    statements = [("Paris is in France.", True, "stated"), ("It has 90 million people.", False, "not in context")]
    run = load_predictions(write_rows(tmp_path / "p.jsonl", mixed_rows()))
    by_id = run.by_id()
    by_id |= load_predictions(write_rows(tmp_path / "f.jsonl", [row("f1", False, True, statements=statements)])).by_id()
    assert [by_id[i].outcome("binary") for i in ("a1", "b3", "a3", "a4", "a5")] == ["tp", "tn", "fp", "fn", "unscored"]
    assert by_id["a1"].probability == 0.91 and by_id["a2"].probability is None
    assert by_id["a4"].reason == "no reference in the answer"
    assert by_id["a5"].reason == "invalid output after 2 retries" and by_id["a5"].label is None
    assert [(s.text, s.supported) for s in by_id["f1"].statements] == [(t, v) for t, v, _ in statements]
    assert by_id["b2"].fallback_used and by_id["a1"].tokens == 128
    assert by_id["f1"].contexts == ["William Shakespeare"] and by_id["a1"].references == ["William Shakespeare"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"id": "x", "label": true, "judge": "j"}\n{"id": "y", "label": tru\n', "p.jsonl:2: malformed JSON"),
        ('{"label": true, "judge": "j"}\n', "p.jsonl:1: field 'id': missing"),
        ('{"id": "x", "label": "yes", "judge": "j"}\n', "p.jsonl:1: field 'label': expected true, false"),
        ('{"id": "x", "label": true, "unscored": "no", "judge": "j"}\n', "p.jsonl:1: field 'unscored'"),
        ('{"id": "x", "judge": "j"}\n', "p.jsonl:1: field 'label': missing"),
        ('{"id": "x", "label": NaN, "judge": "j"}\n', "p.jsonl:1: field 'label': expected true, false"),
        ('{"id": "x", "label": 0.7, "judge": "j"}\n', "p.jsonl:1: field 'label': expected true, false"),
        ('{"id": "x", "label": 5, "judge": "j"}\n', "p.jsonl:1: field 'label': expected true, false"),
        ('{"id": "x", "label": true, "gold": Infinity, "judge": "j"}\n', "p.jsonl:1: field 'gold': expected true"),
        ('{"id": "x", "task": "score", "score": NaN, "judge": "j"}\n', "p.jsonl:1: field 'score': expected a finite"),
        ('{"id": "x", "task": "score", "score": 0.5, "gold": -Infinity, "judge": "j"}\n', "field 'gold': expected a finite"),
        ('{"id": "x", "question": "q", "answer": "a", "references": ["a"], "label": true}\n',
         "p.jsonl:1: field 'judge': missing: not a predictions row"),
        ('{"id": "x", "task": "poetry", "label": true, "judge": "j"}\n', "p.jsonl:1: field 'task': unknown task"),
        ('{"id": "x", "task": "correctness", "label": true, "judge": "j"}\n'
         '{"id": "y", "task": "faithfulness", "label": true, "judge": "j"}\n', "p.jsonl:2: field 'task'"),
        ('{"id": "q1", "question": "q", "score": 0.5, "score_judgment": {}}\n', "'evaluate --agent' answers file"),
        ("\n\n", "no predictions"),
    ],
)
def test_bad_predictions_name_file_line_and_field(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_predictions(path)
    assert fragment in str(caught.value)


def test_old_predictions_without_item_still_load(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k not in ("item", "task")} for r in mixed_rows()]
    run = load_predictions(write_rows(tmp_path / "old.jsonl", rows))
    assert not run.has_text and run.records[0].question is None
    report, _ = build_report([run], resamples=50)
    assert any("carries no item text" in note for note in report.notes)


def test_duplicate_ids_keep_the_later_row_and_say_so(tmp_path: Path) -> None:
    rows = [row("a1", False, True), row("a2", True, True), row("a1", True, True)]
    run = load_predictions(write_rows(tmp_path / "p.jsonl", rows))
    assert run.duplicates == 1 and [r.id for r in run.records] == ["a2", "a1"]
    assert run.by_id()["a1"].label is True
    report, _ = build_report([run], resamples=50)
    assert any("1 row(s) repeat an earlier id" in note for note in report.notes)


def test_run_names_stay_distinct() -> None:
    assert run_names(["a/preds.jsonl", "b/llm.jsonl"]) == ["preds", "llm"]
    assert run_names(["a/preds.jsonl", "b/preds.jsonl"]) == ["a/preds", "b/preds"]
    assert run_names(["a/preds.jsonl", "a/preds.jsonl"]) == ["a/preds #1", "a/preds #2"]


# -- bootstrap intervals ---------------------------------------------------------------------------


def test_intervals_bracket_the_figures_and_are_reproducible() -> None:
    gold = [True, False] * 60
    predicted = [g if i % 5 else not g for i, g in enumerate(gold)]  # 80 % right
    systems = [f"s{i % 4}" for i in range(len(gold))]
    first = bootstrap_agreement(gold, predicted, labels=[False, True], systems=systems, resamples=300)
    again = bootstrap_agreement(gold, predicted, labels=[False, True], systems=systems, resamples=300)
    assert first == again  # fixed seed: a report can be diffed
    point = label_agreement(gold, predicted, labels=[False, True])
    for name in ("accuracy", "cohen_kappa"):
        interval = first[name]
        assert interval is not None and interval.low < getattr(point, name) < interval.high
        assert interval.high - interval.low < 0.35
    assert first["kendall_tau"] is not None and -1.0 <= first["kendall_tau"].low <= first["kendall_tau"].high <= 1.0


def test_intervals_leave_unscored_items_out_never_count_them_wrong() -> None:
    gold = [True, False] * 20
    predicted: list[bool | None] = [g if i % 4 else None for i, g in enumerate(gold)]  # scored ones all right
    intervals = bootstrap_agreement(gold, predicted, labels=[False, True], resamples=200)
    assert intervals["accuracy"] is not None and (intervals["accuracy"].low, intervals["accuracy"].high) == (1.0, 1.0)
    nothing = bootstrap_agreement(gold, [None] * len(gold), labels=[False, True], resamples=50)
    assert nothing["accuracy"] is None and nothing["cohen_kappa"] is None  # undefined, not 0


def test_ranking_and_paired_intervals() -> None:
    per_query = {"bm25": {"q1": 0.2, "q2": 0.3, "q3": 0.25}, "dense": {"q1": 0.6, "q2": 0.7, "q3": 0.5},
                 "hybrid": {"q1": 0.9, "q2": 0.95, "q3": 0.8}}
    tau = bootstrap_ranking_tau(per_query, per_query, resamples=100)
    assert tau is not None and (tau.low, tau.high) == (1.0, 1.0)
    two = {name: per_query[name] for name in ("bm25", "dense")}
    assert bootstrap_ranking_tau(two, two, resamples=10) is None  # two systems: tau is only +1 or -1
    assert bootstrap_ranking_tau({"only": {"q": 1.0}}, {"only": {"q": 1.0}}) is None
    gold = [True, False] * 50
    worse = [g if i % 3 else not g for i, g in enumerate(gold)]
    diff = bootstrap_paired_difference(gold, worse, gold, labels=[False, True], resamples=300)
    assert diff["accuracy"] is not None and diff["accuracy"].low > 0  # B (= gold) is better beyond noise
    same = bootstrap_paired_difference(gold, worse, worse, labels=[False, True], resamples=50)
    assert same["cohen_kappa"] is not None and (same["cohen_kappa"].low, same["cohen_kappa"].high) == (0.0, 0.0)
    scores = bootstrap_system_tau([0.1, 0.2, 0.9, 0.8, 0.5, 0.5], [0.2, 0.3, 0.7, 0.9, 0.5, 0.4],
                                  ["a", "a", "b", "b", "c", "c"], resamples=100)
    assert scores is not None and scores.high == 1.0
    assert bootstrap_system_tau([0.1, 0.9], [0.2, 0.7], ["a", "b"], resamples=10) is None
    assert percentile_interval([None, float("nan")]) is None


# -- the report ----------------------------------------------------------------------------------


def test_single_run_report_has_summary_intervals_items_and_like_with_like_histogram(tmp_path: Path) -> None:
    run = load_predictions(write_rows(tmp_path / "p.jsonl", mixed_rows()))
    report, (figures,) = build_report([run], resamples=200)
    assert figures.agreement is not None and figures.agreement.n_scored == 9
    assert report.summary["items"] == "10" and report.summary["scored"] == "9 (90 %)"
    assert report.summary["accuracy"].startswith("0.778 [")  # 7 of 9, with its interval
    assert set(report.intervals["judge vs people"]) >= {"accuracy", "cohen_kappa", "kendall_tau"}
    # people and judge over the same 9 items (the unscored one is left out of both, and said so)
    assert len(report.distributions["people"]) == len(report.distributions["judge"]) == 9
    assert None not in report.distributions["judge"]
    assert report.distribution_note == (
        "Both sides count the same 9 items, those people labelled and the judge scored. "
        "Not shown: 1 labelled item(s) unscored by the judge."
    )
    assert any("1 of 9 verdicts (11.1 %) came from the fallback judge 'contains'" in n for n in report.notes)
    assert report.items is not None and [r["id"] for r in report.items.rows][:2] == ["a1", "a2"]
    assert report.tables["Run"][""]["n"] == 10  # one-row tables render as figure/value lines

    page = render_html(report)
    assert "<script src" not in page and "<link" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    assert page.count("<script") == 2  # the data island and the renderer, both inline
    island = re.search(r"<script type='application/json' id='ragjury-items'>(.*?)</script>", page, re.S)
    assert island is not None
    assert "<" not in island.group(1)  # item text can never close the island
    data = json.loads(island.group(1))
    assert data["rows"][2]["v"][0]["r"] == "says Marlowe</td><script>alert(1)</script>"
    assert data["rows"][2]["v"][0]["o"] == "fp" and data["rows"][3]["v"][0]["o"] == "fn"
    assert "0.778" in page and "[0." in page  # figures with intervals in the agreement table
    assert "Not shown: 1 labelled item(s) unscored by the judge." in page
    assert "class='diagonal'" in page  # the y = x line of the people-vs-judge plot


def test_long_texts_are_cut_for_the_page_only(tmp_path: Path) -> None:
    long = "x" * (MAX_TEXT_CHARS + 500)
    run = load_predictions(write_rows(tmp_path / "p.jsonl", [row("a1", True, True, answer=long)]))
    table = item_table([run])
    assert table.clipped == 1 and table.rows[0]["a"].endswith("[500 more characters in the predictions file]")
    assert run.records[0].answer == long


def test_two_runs_side_by_side(tmp_path: Path) -> None:
    a = mixed_rows()
    b = [dict(r) for r in mixed_rows()[:-1]]  # b5 only in A
    b[3] = row("a4", True, True)  # the FN is fixed in B
    b[0] = row("a1", False, True)  # a TP broken in B
    b.append(row("c1", True, True))  # only in B
    path_a, path_b = write_rows(tmp_path / "a.jsonl", a), write_rows(tmp_path / "b.jsonl", b)
    report, figures = build_report([load_predictions(path_a), load_predictions(path_b)], resamples=200)
    assert list(report.figures) == ["A: a", "B: b"]
    transitions = report.tables["Verdicts, A (rows) vs B (columns)"]
    assert transitions["A true"]["B false"] == 1 and transitions["A false"]["B true"] == 1
    assert transitions["A true"]["B absent"] == 1 and transitions["A absent"]["B true"] == 1
    assert transitions["A unscored"]["B unscored"] == 1
    # The answer to "is B better than A?" leads the page, above the agreement figures and plots.
    (title,) = report.lead_tables
    paired = report.tables[title]
    assert title.startswith("Paired difference")
    assert paired["accuracy"]["B - A"] == pytest.approx(0.0)  # one fixed, one broken
    page = render_html(report)
    assert page.index("class='lead'") < page.index("<h2>Agreement</h2>") < page.index("System ranking")
    assert report.summary["verdicts changed"] == "2 of 9"
    assert "Ids only in A, left out of the pairs: 1 (b5)." in report.notes  # named, not only counted
    assert "Ids only in B, left out of the pairs: 1 (c1)." in report.notes
    assert "Judge comparison: the same answers, judged twice." in report.notes
    assert report.items is not None and len(report.items.rows) == 11
    fixed = next(r for r in report.items.rows if r["id"] == "a4")
    assert [v["o"] for v in fixed["v"]] == ["fn", "tp"]
    assert next(r for r in report.items.rows if r["id"] == "c1")["v"][0] is None
    assert set(report.rankings) == {"A: a", "B: b"}


def test_scatter_has_equal_axes_diagonal_and_ranks_by_people() -> None:
    svg = scatter_svg({"zeta": (0.9, 0.2), "alpha": (0.1, 0.3), "mid": (0.5, 0.25)})
    x_ticks = re.findall(r"text-anchor='middle'>([\d.]+)</text>", svg)
    y_ticks = re.findall(r"text-anchor='end'>([\d.]+)</text>", svg)
    assert x_ticks == y_ticks  # one scale for people and judge
    assert "class='diagonal'" in svg and "y = x" in svg
    legend = re.findall(r">(\d)\. (\w+): people #(\d), judge #(\d)", svg)
    assert legend == [("1", "zeta", "1", "3"), ("2", "mid", "2", "2"), ("3", "alpha", "3", "1")]


def test_identity_reads_for_people() -> None:
    assert describe_identity("contains|-|contains@1.0|") == "contains · no model · prompt contains@1.0"
    assert describe_identity("answer_correctness|qwen|answer_correctness@1.2|threshold=0.4") == (
        "answer_correctness · model qwen · prompt answer_correctness@1.2 · parameters threshold=0.4"
    )


def test_one_row_tables_stack_vertically() -> None:
    page = render_html(HtmlReport(title="t", tables={"Run": {"": {"n": 15094, "wall_s": 1.5}}}))
    assert "<td class='name'>n</td><td>15,094</td>" in page and "<td class='name'>wall_s</td>" in page


# -- the command -----------------------------------------------------------------------------------


def report_cli(*args: object):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["report", *map(str, args)])


def test_report_command_rebuilds_the_evaluate_report(tmp_path: Path) -> None:
    evaluated = runner.invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(CORRECTNESS),
         "--out", "preds.jsonl", "--html", "evaluate.html", "--json", "--no-progress"],
    )
    assert evaluated.exit_code == 0, evaluated.output
    summary = json.loads(evaluated.stdout)
    result = report_cli("preds.jsonl", "--html", "report.html", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["schema_version"], payload["command"]) == (summary["schema_version"], "report")
    assert payload["inputs"] == {"predictions": ["preds.jsonl"]} and payload["outputs"] == {"html": "report.html"}
    (run,) = payload["runs"]
    assert run["ranking"]["correlation"]["kendall_tau"] == pytest.approx(summary["figures"]["kendall_tau"])
    assert run["figures"]["cohen_kappa"] == pytest.approx(summary["figures"]["cohen_kappa"])
    assert run["figures"]["kendall_tau"] == pytest.approx(summary["figures"]["kendall_tau"])
    low, high = run["intervals"]["cohen_kappa"]
    assert low <= run["figures"]["cohen_kappa"] <= high
    for name in ("evaluate.html", "report.html"):
        page = (tmp_path / name).read_text(encoding="utf-8")
        assert "id='ragjury-items'" in page and "Items (20)" in page
        assert "[0." in page  # intervals shown
    evaluate_page = (tmp_path / "evaluate.html").read_text(encoding="utf-8")
    assert "contains · no model · prompt contains@1.0" in evaluate_page and "contains|-|" not in evaluate_page
    human = report_cli("preds.jsonl", "preds.jsonl")
    assert human.exit_code == 0 and "Paired difference" in human.stdout and "preds #1" in human.stdout
    compared = json.loads(report_cli("preds.jsonl", "preds.jsonl", "--json").stdout)["comparison"]
    assert compared["items_shared"] == 20 and compared["verdicts_changed"] == 0
    assert compared["paired_difference"]["cohen_kappa"]["interval"] == [0.0, 0.0]


def test_report_command_errors_are_one_line(tmp_path: Path) -> None:
    write_rows(tmp_path / "p.jsonl", mixed_rows())
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "label": true, "judge": "j"}\n{"label": false, "judge": "j"}\n', encoding="utf-8")
    for args, fragment in (
        (("bad.jsonl",), "bad.jsonl:2: field 'id': missing"),
        (("missing.jsonl",), "missing.jsonl: file not found"),
        (("p.jsonl", "p.jsonl", "p.jsonl"), "p.jsonl is p.jsonl again: give each config's run once"),  # three runs: a sweep
        (("p.jsonl", "--html", "p.jsonl"), "ragjury never overwrites an input"),
    ):
        result = report_cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert fragment in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_score_runs_report_errors_not_verdicts(tmp_path: Path) -> None:
    def score_row(ident: str, system: str, score: float | None, gold: float) -> dict[str, Any]:
        value = {"relevance": 0.8, "completeness": 0.6, "accuracy": 0.7, "source_attribution": 0.5,
                 "coherence": 0.9, "confidence": 0.6, "reasoning": "misses one detail", "overall_score": score}
        return {
            "id": ident, "system": system, "task": "score", "score": score, "gold": gold,
            **({"value": value} if score is not None else {}),
            "judge": "deterministic_score", "model": None, "prompt_version": "score@1.0",
            "unscored": score is None, "unscored_reason": None if score is not None else "no sources",
            "item": {"question": "q?", "answer": "a.", "sources": [{"id": "d1", "content": "text"}]},
        }

    rows = [score_row(f"{s}{i}", s, g - 0.1 if i else None, g) for s, g in (("a", 0.9), ("b", 0.5), ("c", 0.2))
            for i in range(3)]
    run = load_predictions(write_rows(tmp_path / "s.jsonl", rows))
    assert run.kind == "score" and run.output_key == "score"
    report, (figures,) = build_report([run], resamples=100)
    assert figures.agreement is None and figures.correlation is not None
    assert figures.correlation["mae"] == pytest.approx(0.1)
    assert figures.ranking is not None and figures.ranking.correlation.kendall_tau == pytest.approx(1.0)
    assert set(figures.intervals) == {"kendall_tau"}
    assert report.items is not None and report.items.kind == "score"
    assert report.items.context_label == "sources"
    assert report.items.rows[1]["v"][0]["dims"]["coherence"] == 0.9
    assert report.items.rows[0]["v"][0]["u"] is True
    island = re.search(r"id='ragjury-items'>(.*?)</script>", render_html(report), re.S)
    assert island is not None and json.loads(island.group(1))["kind"] == "score"  # the page shows errors


def test_agreement_histogram_compares_like_with_like(tmp_path: Path) -> None:
    judged = tmp_path / "judged.qrels"
    judged.write_text("q1 0 d1 2\nq1 0 d2 2\nq1 0 d3 0\nq9 0 zz 1\n", encoding="utf-8")  # 3 of 10 gold pairs
    html = tmp_path / "agreement.html"
    result = runner.invoke(
        app, ["agreement", "--gold", str(FIXTURES / "evals_qrels.txt"), "--judged", str(judged), "--html", str(html)]
    )
    assert result.exit_code == 0, result.output
    page = html.read_text(encoding="utf-8")
    histogram = re.search(r"<h2>Score distributions</h2>(<svg.*?</svg>)", page, re.S)
    assert histogram is not None
    counts = re.findall(r"<title>(gold|judge) ([^:]+): (\d+)</title>", histogram.group(1))
    assert counts and "unscored" not in {label for _, label, _ in counts}
    assert sum(int(n) for who, _, n in counts if who == "gold") == 3  # the pairs both labelled
    assert sum(int(n) for who, _, n in counts if who == "judge") == 3
    assert (
        "Both sides count the same 3 (query, passage) pairs, those with a gold grade and a judged grade. "
        "Not shown: 7 of the 10 gold pairs, which the judge never labelled (not in its pool), and 1 judged "
        "pairs without a gold grade." in page
    )
    assert "[" in page.split("<h2>Agreement</h2>", 1)[1].split("</table>", 1)[0]  # intervals beside figures
