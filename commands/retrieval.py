"""``ragjury retrieval``: a retriever's saved results scored against expected answer texts (Evret).

Many RAG test sets give the texts a good passage must contain, not document ids. Each retrieved
passage is judged against each expected text, the matches become relevant ids, and the usual IR
metrics follow; a query whose mapping depends on an unscored judgment is left out, never read as a miss.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ragjury.commands._common import (
    MODEL_CONNECTION,
    JsonOption,
    fail,
    print_json,
    settings_for,
    stdout,
    user_errors,
)
from ragjury.rag_agent.core.sync import run_sync


def _cutoffs(text: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise fail(f"--ks must be comma-separated positive integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise fail(f"--ks must be comma-separated positive integers, got {text!r}")
    return ks


@user_errors
@MODEL_CONNECTION
def retrieval(
    data: Annotated[
        Path,
        typer.Option("--data", help="JSONL, one query a line: {id, query, expected_answers: [...], "
                     "retrieved: [{doc_id, text, score}, ...]} (best first)."),
    ],
    judge: Annotated[
        str,
        typer.Option("--judge", help="A relevance judge with yes/no verdicts: token-overlap (Evret's rule, no "
                     "model), semantic, llm, or python:module:Name."),
    ] = "token-overlap",
    ks: Annotated[str, typer.Option("--ks", help="Cut-offs, comma-separated (the deepest is how many results are read).")] = "1,5,10",
    min_grade: Annotated[
        int | None,
        typer.Option("--min-grade", min=1, max=3, help="A graded judge (llm-graded, non-llm): the grade from which a "
                     "passage matches. Default 2, as 'agreement' cuts (1 is 'related', not relevant)."),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Per-query detail as JSONL: which result matched which expected text.")] = None,
    json_output: JsonOption = False,
    **connection: Any,
) -> None:
    """Score a retriever's saved results against the texts a relevant passage must match.

    Each retrieved passage is judged against each expected answer text; a passage that matches an
    expected text not yet taken by a better-ranked passage is relevant. Recall, precision, MRR,
    nDCG, hit rate and AP follow at every cut-off, over the queries whose judgments all scored.

    Example:

      ragjury retrieval --data examples/data/retrieval.jsonl --ks 1,3

    Exit codes: 0 done, 2 bad input, 3 no query could be scored.
    """
    from ragjury.evals.io.atomic_io import check_output_paths, write_text_atomic
    from ragjury.evals.io.json_contract import paths
    from ragjury.evals.io.retrieval_results import load_retrieval_results
    from ragjury.evals.pipelines.evret import evaluate_retrieval_results
    from ragjury.rag_agent.core.labels import GRADE_CUT
    from ragjury.rag_agent.core.judge_spec import parse
    from ragjury.rag_agent.judges.catalogue import resolve

    cutoffs = _cutoffs(ks)
    check_output_paths([("--out", out)], [("--data", data)])
    rows = load_retrieval_results(data)
    resolved = resolve("relevance", parse(judge))  # --judge parsed once; the catalogue gets the JudgeSpec
    if min_grade is not None and resolved.scale != "graded":
        raise fail(f"--min-grade: --judge {judge} gives yes/no verdicts, not grades")
    cut = (min_grade or GRADE_CUT) if resolved.scale == "graded" else None
    scorer = resolved.build(settings_for(**connection))
    try:
        result = run_sync(evaluate_retrieval_results(rows, scorer, k=cutoffs[-1], ks=cutoffs, min_grade=cut))
    except TypeError as error:  # a graded judge: Evret's mapping needs yes/no verdicts
        raise fail(f"--judge {judge}: {error}") from None
    if out is not None:
        detail = [
            {"id": qid, "retrieved": mapping.retrieved, "matched": mapping.matched,
             "unscored_reason": mapping.unscored_reason}
            for qid, mapping in result.mappings.items()
        ]
        write_text_atomic(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in detail))
    if json_output:
        payload: dict[str, Any] = {
            "judge": judge,
            "min_grade": cut,
            "n": result.n_queries,
            "scored": result.n_scored_queries,
            "unscored": len(result.unscored_queries),
            "judgments": result.n_judgments,
            "unscored_judgments": result.n_unscored_judgments,
            "figures": result.mean,
            "inputs": paths(data=data),
            "outputs": paths(detail=out),
        }
        print_json(payload, command="retrieval")
    else:
        table = Table(title=f"{data.name}: {result.n_scored_queries} of {result.n_queries} queries scored, judged by {judge}")
        table.add_column("measure")
        table.add_column("mean", justify="right")
        for name, value in result.mean.items():
            table.add_row(name, f"{value:.4f}")
        stdout.print(table)
        for qid, reason in list(result.unscored_queries.items())[:3]:
            stdout.print(f"unscored query {qid}: {reason}", style="yellow", highlight=False, soft_wrap=True)
    if result.n_scored_queries == 0:
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    app.command("retrieval")(retrieval)


__all__ = ["register", "retrieval"]
