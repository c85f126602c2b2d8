"""``ragjury label``: people label items in a local page (or a terminal), blind to the judge, one key per label."""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Annotated

import typer

from ragjury.commands._common import JsonOption, fail, print_json, stderr, stdout, user_errors
from ragjury.rag_agent.core.input_files import iter_jsonl


def _annotator() -> str:
    try:
        return getpass.getuser() or "annotator"
    except (KeyError, OSError):
        return os.environ.get("USER") or "annotator"


def _print_summary(items_path: Path, labels_path: Path, items: list, json_output: bool) -> None:
    from ragjury.evals.io.label_acts import read_acts
    from ragjury.evals.labelling.summary import summarize, summary_lines

    summary = summarize(items, read_acts(labels_path), allow_shown_judge=False)
    if json_output:
        print_json({**summary.as_dict(), "inputs": {"items": str(items_path)}, "outputs": {"labels": str(labels_path)}},
                   command="label")
        return
    predictions = any(item.judge is not None for item in items) and not _is_plan(items_path)
    for line in summary_lines(summary, items_path=str(items_path), labels_path=str(labels_path),
                              predictions=predictions, sources=_plan_sources(items_path)):
        stdout.print(line, highlight=False, soft_wrap=True, markup=False)


def _plan_sources(path: Path) -> list[str]:
    """The predictions files a plan was drawn from (its ``predictions`` column, in order): one, or
    config A's and B's of an A/B plan; [] for a file that does not say."""
    found = [row["predictions"] for _, row in iter_jsonl(path)
             if isinstance(row, dict) and isinstance(row.get("predictions"), str)]
    return list(dict.fromkeys(found))


def _is_plan(path: Path) -> bool:
    first = next(iter(iter_jsonl(path)), None)
    return first is not None and isinstance(first[1], dict) and "judge_label" in first[1]


@user_errors
def label(
    items_file: Annotated[
        Path, typer.Argument(help="Items to label: a label plan ('label-plan --out'), a predictions file or a "
                             "dataset (JSONL).", metavar="ITEMS.jsonl")
    ],
    out: Annotated[Path, typer.Option("--out", help="The labels file: one JSON line per act, appended; re-open "
                                      "it to resume.", metavar="LABELS.jsonl")],
    task: Annotated[str | None, typer.Option("--task", help="correctness, faithfulness or relevance, where the "
                                             "file does not tell (a dataset).")] = None,
    annotator: Annotated[str | None, typer.Option("--annotator", help="Your name in the labels file (default: "
                                                  "your login name).")] = None,
    graded: Annotated[bool, typer.Option("--graded", help="Grades 0-3 (relevance) instead of yes/no.")] = False,
    criterion: Annotated[str | None, typer.Option("--criterion", help="The question shown to the labeller "
                                                  "(a rubric's criterion); default: the task's own.")] = None,
    reveal: Annotated[bool, typer.Option("--reveal", help="Show the judge's verdict after each label; a label "
                                         "changed then is recorded as given with the judge shown.")] = False,
    overlap: Annotated[float, typer.Option("--overlap", min=0.0, max=1.0, help="Share of items every annotator "
                                           "labels (people-vs-people agreement); the rest go to one.")] = 1.0,
    recheck: Annotated[int, typer.Option("--recheck", min=0, help="Show your first K labelled items again at the "
                                         "end, unannounced: your own consistency.", metavar="K")] = 0,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the order and of the overlap draw "
                                      "(the same for every annotator of one file).")] = 0,
    terminal: Annotated[bool, typer.Option("--terminal", help="Label in this terminal (over SSH) instead of a "
                                           "page.")] = False,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Print the page's address; do not open a "
                                             "browser.")] = False,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one).")] = 0,
    summary_only: Annotated[bool, typer.Option("--summary", help="Print the summary of LABELS.jsonl and exit "
                                               "(no labelling).")] = False,
    json_output: JsonOption = False,
) -> None:
    """Label items one per screen, by keys alone, blind to the judge; labels go to an append-only file.

    The page (or --terminal) shows one item at a time, in a shuffled order, with the fields the
    task's judge reads and the question to answer. Keys: y/1 yes, n/0 no (0-3 with --graded),
    u unsure, s skip, z undo, ←/→ move, c comment, ? help, q save and quit. Each label is written
    and synced before the next item shows; re-running the same command resumes at your first
    unlabelled item. The judge's verdict is never shown before you label an item (--reveal shows it
    after). Several people can label one file at once (--annotator, --overlap).

    When you quit, the summary prints: labels, seconds per label, people against people, and the
    judge against your labels, with the next command. Every trust command reads the labels file:

      ragjury label-plan preds.jsonl --budget 40 --out plan.jsonl

      ragjury label plan.jsonl --out labels.jsonl

      ragjury estimate preds.jsonl --labels labels.jsonl
    """
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.labelling.items import load_items, question_for

    check_output_paths([("--out", out)], [("ITEMS.jsonl", items_file)])
    found_task, items = load_items(items_file, task)
    if graded and found_task != "relevance":  # a grade given to a yes/no task would be read as yes/no (#54 item 20)
        raise fail(f"--graded: {found_task} is a yes/no task (grades 0-3 are for relevance): leave out --graded")
    if summary_only:
        if not out.exists():
            raise fail(f"--out {out}: no labels file yet (run 'ragjury label {items_file} --out {out}' first)")
        _print_summary(items_file, out, items, json_output)
        return
    from ragjury.evals.io.label_acts import read_acts
    from ragjury.evals.labelling.session import LabelSession

    read_acts(out)  # a labels file that does not parse stops here, before anything is shown
    who = annotator or _annotator()
    session = LabelSession(items, out, who, seed=seed, overlap=overlap, recheck=recheck)
    question = question_for(found_task, graded, criterion)
    if terminal:
        from ragjury.evals.labelling.terminal import LabelApp

        LabelApp(session, question=question, graded=graded).run()
    else:
        _serve(session, question, graded=graded, reveal=reveal, port=port, open_browser=not no_browser)
    _print_summary(items_file, out, items, json_output)


def _serve(session, question: str, *, graded: bool, reveal: bool, port: int, open_browser: bool) -> None:  # type: ignore[no-untyped-def]
    """Serve the page on 127.0.0.1 until the labeller quits (q) or Ctrl-C."""
    import secrets
    import socket
    import webbrowser

    import uvicorn

    from ragjury.evals.labelling.page import PageState, build_app

    token = secrets.token_urlsafe(24)
    state = PageState(session, token, question, graded=graded, reveal=reveal)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as error:
        raise fail(f"--port {port}: cannot listen on 127.0.0.1 ({error.strerror})") from None
    sock.listen(128)  # connections made as soon as the address is printed wait in the backlog
    bound = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(state), log_level="warning", access_log=False, lifespan="off"))
    state.on_quit = lambda: setattr(server, "should_exit", True)
    url = f"http://127.0.0.1:{bound}/?token={token}"
    screen = session.screen()
    stderr.print(f"labelling {screen.total} items as {session.annotator} ({screen.done} done) at {url}",
                 highlight=False, soft_wrap=True, markup=False)
    stderr.print("press q in the page to finish (every label is already saved); Ctrl-C here works too",
                 highlight=False, soft_wrap=True)
    if open_browser:
        webbrowser.open(url)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


def register(app: typer.Typer) -> None:
    app.command("label")(label)


__all__ = ["label", "register"]
