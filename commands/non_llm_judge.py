"""``ragjury non-llm-judge``: grade TREC RAG runs with the TREC AutoJudge non-LLM judge, no model.

Reads the TREC RAG JSONL run format (one object per topic:
``{"metadata": {"run_id", "topic_id"}, "responses": [{"text", "citations"}], ...}``) and topics
(``{"request_id", "title", ...}``), and writes what the kit writes: ``NAME.eval.txt`` (the
leaderboard, ``run_id AVG_GRADE topic value`` per topic and ``all``), ``NAME.qrels.txt``
(``topic 0 md5(report text) grade``, the highest grade kept for a duplicated text) and
``NAME.config.yml`` (the settings used).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragjury.commands._common import JsonOption, print_json, stderr, stdout, user_errors


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
    """Grade TREC RAG run files per topic 0-3 with the TREC AutoJudge kit's non-LLM grader; write a leaderboard.

    Examples:

      ragjury non-llm-judge --workflow workflow.yml --rag-topics topics.jsonl --rag-responses runs/ --out-dir out/

      ragjury non-llm-judge --rag-topics topics.jsonl --rag-responses runs/run_a.jsonl --out-dir out/ --json

    The grade combines response length, query keywords, BM25 and query coverage, weighted by the judge_settings block of workflow.yml (the kit's defaults without one). No model is called.

    Outputs in --out-dir: NAME.eval.txt (run_id AVG_GRADE topic value, per topic and 'all'), NAME.qrels.txt (topic 0 md5-of-report grade) and NAME.config.yml (the settings used). Runs with the same mean grade share a rank.

    Reports for topics missing from --rag-topics are skipped with a warning, as the kit skips them.
    """
    from ragjury.evals.pipelines.non_llm_leaderboard import run_non_llm_judge  # deferred: numpy

    board = run_non_llm_judge(rag_topics, rag_responses, out_dir, workflow=workflow, name=name)
    if board.skipped:
        stderr.print(
            f"[yellow]warning:[/] skipped {board.skipped} report(s) whose topic is not in {rag_topics}"
        )
    if board.duplicated:
        stderr.print(
            f"[yellow]warning:[/] {board.duplicated} duplicate (run, topic) report(s): the last one counts"
        )
    if json_output:
        print_json(board.payload(), command="non-llm-judge")
        return
    stdout.print(board.table())
    assert board.written is not None  # --out-dir is required, so the files were written
    eval_path, qrels_path, config_path = board.written
    stdout.print(f"wrote {eval_path}, {qrels_path} and {config_path}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("non-llm-judge")(non_llm_judge)


__all__ = ["non_llm_judge", "register"]
