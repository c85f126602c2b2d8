"""``ragjury non-llm-judge``: grade TREC RAG runs with the TREC AutoJudge non-LLM judge, no model.

Reads the TREC RAG JSONL run format (one object per topic:
``{"metadata": {"run_id", "topic_id"}, "responses": [{"text", "citations"}], ...}``) and topics
(``{"request_id", "title", ...}``), and writes what the kit writes: ``NAME.eval.txt`` (the
leaderboard, ``run_id AVG_GRADE topic value`` per topic and ``all``), ``NAME.qrels.txt``
(``topic 0 md5(report text) grade``, the highest grade kept for a duplicated text) and
``NAME.config.yml`` (the settings used).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ragjury.evals.atomic_io import check_output_paths, check_output_target, same_file, write_text_atomic
from ragjury.evals.progress import make_progress
from ragjury.rag_agent.commands._common import JsonOption, fail, print_json, stderr, stdout, user_errors
from ragjury.rag_agent.inputs import InputError, iter_jsonl
from ragjury.rag_agent.json_contract import paths

MEASURE = "AVG_GRADE"


@dataclass(frozen=True)
class RunResponse:
    """One run's report for one topic: the response texts joined with spaces, as the kit does."""

    run_id: str
    topic_id: str
    text: str
    source: str
    line: int


def _string_field(data: dict[str, object], key: str, path: Path, line: int, prefix: str = "") -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, "missing or not a non-empty string", line=line, field=f"{prefix}{key}")
    return value


def topic_query(topic: dict[str, object], topic_format: str) -> str:
    """The query text of a topic, chosen as the kit's ``extract_query`` chooses it."""
    title = str(topic.get("title") or "")
    body = topic.get("body")
    ragtime = " ".join(
        str(part) for part in (title, topic.get("problem_statement"), topic.get("background")) if part
    ).strip()
    if topic_format == "dragun":
        return str(body) if body else title
    if topic_format == "rag":
        return title
    if topic_format == "ragtime":
        return ragtime
    if body:
        return str(body)
    if "problem_statement" in topic:
        return ragtime
    return title


def load_topics(path: Path, topic_format: str) -> dict[str, str]:
    """``request_id -> query`` from a topics JSONL file."""
    topics: dict[str, str] = {}
    for line, data in iter_jsonl(path):
        if not isinstance(data, dict):
            raise InputError(path, f"expected a JSON object, found {type(data).__name__}", line=line)
        request_id = data.get("request_id")
        if request_id is None or (isinstance(request_id, str) and not request_id.strip()):
            raise InputError(path, "missing", line=line, field="request_id")
        query = topic_query(data, topic_format)
        if not query.strip():
            raise InputError(path, "topic has no query text", line=line, field="title")
        topics[str(request_id)] = query
    if not topics:
        raise InputError(path, "no topics found")
    return topics


def run_files(path: Path) -> list[Path]:
    """The run files under ``path`` (a directory, every visible regular file in it) or ``path`` itself."""
    if not path.exists():
        raise InputError(path, "not found")
    if path.is_file():
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise InputError(path, "no run files in this directory")
    return files


def load_responses(path: Path) -> list[RunResponse]:
    """Every report in one run file."""
    out: list[RunResponse] = []
    for line, data in iter_jsonl(path):
        if not isinstance(data, dict):
            raise InputError(path, f"expected a JSON object, found {type(data).__name__}", line=line)
        metadata = data.get("metadata")
        if not isinstance(metadata, dict):
            raise InputError(path, "missing or not an object", line=line, field="metadata")
        run_id = _string_field(metadata, "run_id", path, line, "metadata.")
        topic_id = metadata.get("topic_id")
        if topic_id is None:
            raise InputError(path, "missing", line=line, field="metadata.topic_id")
        responses = data.get("responses")
        if not isinstance(responses, list):
            raise InputError(path, "missing or not a list", line=line, field="responses")
        texts = []
        for index, sentence in enumerate(responses):
            if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
                raise InputError(
                    path, "expected an object with a string 'text'", line=line, field=f"responses.{index}"
                )
            texts.append(sentence["text"])
        out.append(RunResponse(run_id, str(topic_id), " ".join(texts), str(path), line))
    return out


OUTPUT_SUFFIXES = ("eval.txt", "qrels.txt", "config.yml")


def output_paths(out_dir: Path, name: str) -> tuple[Path, Path, Path]:
    """``NAME.eval.txt``, ``NAME.qrels.txt`` and ``NAME.config.yml`` in ``out_dir``."""
    eval_path, qrels_path, config_path = (out_dir / f"{name}.{suffix}" for suffix in OUTPUT_SUFFIXES)
    return eval_path, qrels_path, config_path


def check_outputs(out_dir: Path, name: str, inputs: list[tuple[str, Path | None]], responses: Path) -> None:
    """Before anything is read: no output may overwrite an input, and --out-dir is a folder whose
    own folder exists (it is created, one level, as other commands' output files are)."""
    if not out_dir.exists():
        check_output_target("--out-dir", out_dir)
        return
    if not out_dir.is_dir():
        raise InputError("--out-dir", f"{out_dir} is a file; give a folder")
    if responses.is_dir() and same_file(out_dir, responses):
        raise InputError(
            "--out-dir",
            f"{out_dir} is the --rag-responses folder {responses}: every file there is read as a run, "
            "so the outputs would break the next run; write them elsewhere",
        )
    check_output_paths([("--out-dir", path) for path in output_paths(out_dir, name)], inputs)


def doc_id_md5(text: str) -> str:
    """The kit's document id of a generated report: the MD5 of its text."""
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def competition_ranks(values: dict[str, float]) -> dict[str, int]:
    """Rank 1 for the best; tied values share a rank (1, 1, 3)."""
    ordered = sorted(values.values(), reverse=True)
    return {key: ordered.index(value) + 1 for key, value in values.items()}


@user_errors
def non_llm_judge(
    rag_topics: Annotated[
        Path, typer.Option("--rag-topics", help="Topics JSONL: {request_id, title, ...} per line.")
    ],
    rag_responses: Annotated[
        Path,
        typer.Option("--rag-responses", help="A directory of run files (TREC RAG JSONL), or one run file."),
    ],
    out_dir: Annotated[
        Path, typer.Option("--out-dir", help="Where NAME.eval.txt, NAME.qrels.txt and NAME.config.yml go.")
    ],
    workflow: Annotated[
        Path | None,
        typer.Option(
            "--workflow", help="A TREC AutoJudge workflow.yml; its judge_settings block sets the weights."
        ),
    ] = None,
    name: Annotated[str, typer.Option("--name", help="Prefix of the output files.")] = "default",
    json_output: JsonOption = False,
) -> None:
    """Grade every run's report per topic 0-3 with the TREC AutoJudge non-LLM judge; write a leaderboard.

    Examples:

      ragjury non-llm-judge --workflow workflow.yml --rag-topics topics.jsonl --rag-responses runs/ --out-dir out/

      ragjury non-llm-judge --rag-topics topics.jsonl --rag-responses runs/run_a.jsonl --out-dir out/ --json

    The grade combines response length, query keywords, BM25 and query coverage, weighted by the judge_settings block of workflow.yml (the kit's defaults without one). No model is called.

    Outputs in --out-dir: NAME.eval.txt (run_id AVG_GRADE topic value, per topic and 'all'), NAME.qrels.txt (topic 0 md5-of-report grade) and NAME.config.yml (the settings used). Runs with the same mean grade share a rank.

    Reports for topics missing from --rag-topics are skipped with a warning, as the kit skips them.
    """
    files = run_files(rag_responses)
    inputs = [("--rag-topics", rag_topics), ("--workflow", workflow)]
    inputs += [("--rag-responses", file) for file in files]
    check_outputs(out_dir, name, inputs, rag_responses)
    from ragjury.rag_agent.deterministic.non_llm import NonLLMJudge, NonLLMSettings  # deferred: numpy

    settings = NonLLMSettings.from_workflow(workflow) if workflow else NonLLMSettings()
    topics = load_topics(rag_topics, settings.topic_format)
    reports: dict[tuple[str, str], RunResponse] = {}
    skipped = duplicated = 0
    with make_progress(stderr, transient=True) as progress:
        task = progress.add_task("reading runs", total=len(files))
        for file in files:
            for report in load_responses(file):
                if report.topic_id not in topics:
                    skipped += 1
                    continue
                key = (report.run_id, report.topic_id)
                duplicated += key in reports
                reports[key] = report  # the last report wins, as in the kit's judge()
            progress.advance(task)
    if not reports:
        raise fail(f"{rag_responses}: no report names a topic of {rag_topics}")
    if skipped:
        stderr.print(f"[yellow]warning:[/] skipped {skipped} report(s) whose topic is not in {rag_topics}")
    if duplicated:
        stderr.print(
            f"[yellow]warning:[/] {duplicated} duplicate (run, topic) report(s): the last one counts"
        )

    keys = sorted(reports)
    judge = NonLLMJudge(settings)
    scores = judge.batch_scores([topics[t] for _, t in keys], [reports[k].text for k in keys])

    per_run: dict[str, list[int]] = defaultdict(list)
    lines: list[str] = []
    qrels: dict[tuple[str, str], int] = {}
    for key, score in zip(keys, scores):
        run_id, topic_id = key
        assert score is not None  # topics always have a query (checked when loading)
        per_run[run_id].append(score.grade)
        lines.append("\t".join([run_id, MEASURE, topic_id, str(float(score.grade))]))
        doc = (topic_id, doc_id_md5(reports[key].text))
        qrels[doc] = max(score.grade, qrels.get(doc, 0))
    averages = {run_id: sum(grades) / len(grades) for run_id, grades in per_run.items()}
    lines += ["\t".join([run_id, MEASURE, "all", str(avg)]) for run_id, avg in sorted(averages.items())]

    out_dir.mkdir(exist_ok=True)
    eval_path, qrels_path, config_path = output_paths(out_dir, name)
    write_text_atomic(eval_path, "\n".join(lines) + "\n")
    write_text_atomic(
        qrels_path, "".join(f"{topic} 0 {doc} {grade}\n" for (topic, doc), grade in sorted(qrels.items()))
    )
    config = {"name": name, "judge": judge.identity.key(), "judge_settings": settings.model_dump()}
    import yaml  # deferred: only this output needs it

    write_text_atomic(config_path, yaml.safe_dump(config, sort_keys=False))

    ranks = competition_ranks(averages)
    ordered = sorted(averages, key=lambda run: (ranks[run], run))
    if json_output:
        print_json(
            {
                "judge": "non-llm",
                "leaderboard": [{"rank": ranks[r], "run_id": r, MEASURE: averages[r]} for r in ordered],
                "n": len(keys),
                "skipped": skipped,
                "inputs": paths(rag_topics=rag_topics, rag_responses=files, workflow=workflow),
                "outputs": paths(eval=eval_path, qrels=qrels_path, config=config_path),
            },
            command="non-llm-judge",
        )
        return
    table = Table(title=f"{MEASURE} over {len(topics)} topic(s)")
    table.add_column("rank", justify="right")
    table.add_column("run_id")
    table.add_column(MEASURE, justify="right")
    for run in ordered:
        table.add_row(str(ranks[run]), run, f"{averages[run]:.4f}")
    stdout.print(table)
    stdout.print(f"wrote {eval_path}, {qrels_path} and {config_path}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("non-llm-judge")(non_llm_judge)
