"""``ragjury label``: people label items in a local page (or a terminal), blind to the judge, one key per label."""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Annotated

import typer

from ragjury.commands._common import JsonOption, fail, print_json, stderr, stdout, user_errors
from ragjury.rag_agent.core.input_files import iter_jsonl

TASKS = ("correctness", "faithfulness", "relevance")
"""The tasks ``--task`` names."""


def _annotator() -> str:
    try:
        return getpass.getuser() or "annotator"
    except (KeyError, OSError):
        return os.environ.get("USER") or "annotator"


def _print_summary(items_paths: list[Path], labels_path: Path, items: list, json_output: bool) -> None:
    from ragjury.evals.io.label_acts import read_acts
    from ragjury.evals.labelling.summary import summarize, summary_lines

    summary = summarize(items, read_acts(labels_path), allow_shown_judge=False)
    items_path = items_paths[0]
    if json_output:
        given = str(items_path) if len(items_paths) == 1 else [str(path) for path in items_paths]
        print_json({**summary.as_dict(), "inputs": {"items": given}, "outputs": {"labels": str(labels_path)}},
                   command="label")
        return
    predictions = any(item.judge is not None for item in items) and not _is_plan(items_path)
    sources = [str(path) for path in items_paths] if len(items_paths) > 1 else _plan_sources(items_path)
    for line in summary_lines(summary, items_path=" + ".join(str(path) for path in items_paths),
                              labels_path=str(labels_path), predictions=predictions, sources=sources):
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
    items_files: Annotated[
        list[Path], typer.Argument(help="Items to label: a label plan ('label-plan --out'), a predictions file or a "
                                   "dataset (JSONL); or several configs' predictions files (RUN_A RUN_B ..., "
                                   "each from 'evaluate --out'), labelled side by side.", metavar="ITEMS.jsonl")
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
    annotators: Annotated[str | None, typer.Option("--annotators", help="A team on one page server: names, "
                                                   "comma-separated; one link (its own secret) per person, "
                                                   "the annotator taken from the link.", metavar="ANA,BOB")] = None,
    host: Annotated[str | None, typer.Option("--host", help="Listen on this address instead of 127.0.0.1 "
                                             "(others on the network can reach the page; its secret and "
                                             "Host checks stay).", metavar="ADDR")] = None,
    summary_only: Annotated[bool, typer.Option("--summary", help="Print the summary of LABELS.jsonl and exit "
                                               "(no labelling).")] = False,
    until: Annotated[str | None, typer.Option("--until", help='Label until this is settled: "rate >= 0.8" (one '
                                              'run), "B - A" or "B >= A - 0.02" (RUN_A RUN_B, or a predictions '
                                              'file of two systems), "best" (RUN1 ... RUNn: the best config, or '
                                              'no difference among those left); prints the live answer after '
                                              'every label.')] = None,
    confidence: Annotated[float, typer.Option("--confidence", min=0.5, max=0.999, help="With --until: the "
                                              "confidence sequence's level.")] = 0.95,
    max_labels: Annotated[int | None, typer.Option("--max-labels", min=1, help="With --until: the budget; "
                                                   "'budget reached: not settled' after N labels.", metavar="N")] = None,
    active: Annotated[bool, typer.Option("--active", help='With --until "rate >= c": show next, more often, the '
                                         "items the judge is unsure of (each label weighted by its chance, so the "
                                         "answer stays unbiased). Measured (median labels to settle): DL19 relevance "
                                         "211 -> 195 and 135 -> 134, EVOUNA-NQ 89 -> 96 and 106 -> 105; not for "
                                         "B - A or best (98 -> 111 there).")] = False,
    review: Annotated[bool, typer.Option("--review", help="Walk the items people disagree on and settle each: "
                                         "your label is an adjudication, which the several-annotator rule "
                                         "then uses (tie or not).")] = False,
    guidelines: Annotated[Path | None, typer.Option("--guidelines", help="Your labelling guidelines (a text "
                                                    "or Markdown file, shown as text beside every item).",
                                                    metavar="FILE.md")] = None,
    json_output: JsonOption = False,
) -> None:
    """Label items one per screen, by keys alone, blind to the judge; labels go to an append-only file.

    The page (or --terminal) shows one item at a time, in a shuffled order, with the fields the
    task's judge reads and the question to answer. Keys: y/1 yes, n/0 no (0-3 with --graded),
    u unsure, s skip, z undo, ←/→ move, l jump list, c comment, ? help, q save and quit. Each label is written
    and synced before the next item shows; re-running the same command resumes at your first item
    not passed, and unsure or skipped items come back after the others until labelled. The judge's verdict is never shown before you label an item (--reveal shows it
    after). Several people can label one file at once (--annotator, --overlap), or on one
    server with a link each (--annotators ana,bob); --review settles the items they disagree on.

    When you quit, the summary prints: labels, seconds per label, people against people, and the
    judge against your labels, with the next command. Every trust command reads the labels file:

      ragjury label-plan preds.jsonl --budget 40 --out plan.jsonl

      ragjury label plan.jsonl --out labels.jsonl

      ragjury estimate preds.jsonl --labels labels.jsonl

    Label until you know (the answer shown after every label, with a confidence sequence that
    stays valid whenever you stop; docs/labelling.md):

      ragjury label A.jsonl B.jsonl --until "B - A" --out labels.jsonl

      ragjury label v1.jsonl v2.jsonl v3.jsonl --until best --out labels.jsonl
    """
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.labelling.items import items_of_runs, load_items, question_for

    check_output_paths([("--out", out)], [("ITEMS.jsonl", path) for path in items_files])
    items_file = items_files[0]
    if task is not None and task not in TASKS:
        raise fail(f"--task {task!r}: not a task; choose one of {', '.join(TASKS)}")
    if terminal and reveal:
        raise fail("--reveal works in the page only (the terminal never shows the judge): leave out --terminal or --reveal")
    if len(items_files) > 1:
        if len(set(map(str, items_files))) < len(items_files):
            raise fail("the same file given twice: give each config's predictions file once")
        if any(_is_plan(path) for path in items_files):
            raise fail(f"{next(p for p in items_files if _is_plan(p))} is a label plan: give one plan (label-plan "
                       "A B draws both configs into one), or several predictions files")
        found_task, items = items_of_runs(items_files)
        if task is not None and task != found_task:
            raise fail(f"--task {task}: the files are {found_task} runs")
    else:
        found_task, items = load_items(items_file, task)
    if graded and found_task != "relevance":  # a grade given to a yes/no task would be read as yes/no (#54 item 20)
        raise fail(f"--graded: {found_task} is a yes/no task (grades 0-3 are for relevance): leave out --graded")
    if summary_only:
        if not out.exists():
            files = " ".join(str(path) for path in items_files)
            raise fail(f"--out {out}: no labels file yet (run 'ragjury label {files} --out {out}' first)")
        _print_summary(items_files, out, items, json_output)
        return
    from ragjury.evals.io.label_acts import read_acts
    from ragjury.evals.labelling.session import LabelSession

    team = _team(annotators, annotator, terminal)
    rules = None if guidelines is None else read_guidelines(guidelines)
    if review and (team or terminal or until is not None):
        raise fail("--review is one person settling disagreements in the page: leave out "
                   + ("--annotators" if team else "--terminal" if terminal else "--until"))
    listen = _listen_address(host, terminal)
    read_acts(out)  # a labels file that does not parse stops here, before anything is shown
    _check_writable(out)
    who = annotator or _annotator()
    live = _live_status(items_files, items, until, confidence, max_labels, graded, active)
    session = LabelSession(items, out, who, seed=seed, overlap=overlap, recheck=recheck,
                           sequential=None if live is None else live.mark, review=review)
    if review and not session.queue():
        stderr.print(f"--review: people disagree on no item of {out} (nothing to settle)", highlight=False,
                     soft_wrap=True, markup=False)
        _print_summary(items_files, out, items, json_output)
        return
    if live is not None and live.decision.kind != "rate":
        session.order = live.paired_order(session.order)  # a question's two answers one after the other
    if live is not None and live.chances is not None:
        session.order = live.active_order(f"{seed}:{who}")  # drawn once, never from the labels
    question = question_for(found_task, graded, criterion)
    if team:
        sessions = {name: LabelSession(items, out, name, seed=seed, overlap=overlap, recheck=recheck,
                                       sequential=None if live is None else live.mark) for name in team}
        if live is not None and live.decision.kind != "rate":
            for one in sessions.values():
                one.order = live.paired_order(one.order)
        if live is not None and live.chances is not None:
            for name, one in sessions.items():
                one.order = live.active_order(f"{seed}:{name}")
        _serve_team(sessions, question, graded=graded, reveal=reveal, port=port, listen=listen, guidelines=rules,
                    on_act=None if live is None else (lambda: _say_status(live, out)))
    elif terminal:
        from ragjury.evals.labelling.terminal import LabelApp

        LabelApp(session, question=question, graded=graded, guidelines=rules,
                 live=None if live is None else (lambda: _status_words(live, out))).run()
        if live is not None:  # and once more here, where it stays after the app's screen is gone
            _say_status(live, out)
    else:
        _serve(session, question, graded=graded, reveal=reveal, port=port, open_browser=not no_browser,
               on_act=None if live is None else (lambda: _say_status(live, out)), listen=listen, guidelines=rules)
    _print_summary(items_files, out, items, json_output)


def _live_status(items_files: list[Path], items: list, until: str | None, level: float, max_labels: int | None,  # type: ignore[type-arg]
                 graded: bool, active: bool = False):  # type: ignore[no-untyped-def]
    """``--until``'s live status over the items, or None; a decision that does not fit ends in one line."""
    if until is None:
        if max_labels is not None or active:
            raise fail(f"{'--max-labels is the budget' if max_labels is not None else '--active is the order'} of "
                       "--until: add --until")
        return None
    from ragjury.evals.stats.live_status import LiveStatus
    from ragjury.evals.stats.sequential import parse_decision

    try:
        decision = parse_decision(until)
    except ValueError as error:
        raise fail(f"--until {error}") from None
    if graded:
        raise fail("--until reads yes/no labels: leave out --graded")
    items_file = " + ".join(str(path) for path in items_files)
    if _is_plan(items_files[0]):
        raise fail(f"--until: {items_file} is a label plan (already a sample); give the predictions file "
                   "itself ('evaluate --out'): the sequence draws the order from all of its items")
    try:
        return LiveStatus.of(items, decision, level=level, max_labels=max_labels, active=active)
    except ValueError as error:
        raise fail(f"--until: {items_file}: {error}") from None


GUIDELINES_BYTES = 32 * 1024
"""The most bytes of ``--guidelines`` (shown beside every item: a page of rules, not a book)."""


def read_guidelines(path: Path) -> str:
    """``--guidelines``: the user's file as text (untrusted: a regular file, at most
    ``GUIDELINES_BYTES``, UTF-8); the page shows it with textContent, never as HTML."""
    from ragjury.evals.io.people import check_regular_file

    check_regular_file(path)
    with path.open("rb") as handle:
        raw = handle.read(GUIDELINES_BYTES + 1)
    if len(raw) > GUIDELINES_BYTES:
        raise fail(f"--guidelines {path}: over {GUIDELINES_BYTES // 1024} KB; keep the rules a labeller reads "
                   "beside each item short")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise fail(f"--guidelines {path}: not UTF-8 text (byte {error.start})") from None
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())


NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}"
WILDCARDS = ("0.0.0.0", "::", "")


def _team(names: str | None, annotator: str | None, terminal: bool) -> list[str]:
    """``--annotators``' names, checked (each is part of its link's path); [] without it."""
    import re

    if names is None:
        return []
    if annotator is not None:
        raise fail("--annotators names every person (each link carries its annotator): leave out --annotator")
    if terminal:
        raise fail("--annotators serves a page per person: leave out --terminal")
    team = [name.strip() for name in names.split(",") if name.strip()]
    bad = next((name for name in team if not re.fullmatch(NAME, name)), None)
    if bad is not None:
        raise fail(f"--annotators {bad[:60]!r}: a name is 1-40 letters, digits, '.', '_' or '-'")
    if len(set(team)) != len(team) or not team:
        raise fail("--annotators: give each person once (e.g. --annotators ana,bob,cy)")
    return team


def _listen_address(host: str | None, terminal: bool) -> str:
    """The address the page listens on: 127.0.0.1 unless ``--host`` asks, said in one warning line."""
    if host is None:
        return "127.0.0.1"
    if terminal:
        raise fail("--host serves the page: leave out --terminal")
    if host.strip() in WILDCARDS:
        raise fail(f"--host {host!r}: name the address people will open (this machine's IP or name): the page "
                   "answers only requests whose Host header is that address")
    stderr.print(f"warning: --host {host}: the page listens beyond this machine; anyone who can reach "
                 f"{host} and has a link can label (use SSH forwarding or a TLS proxy: docs/labelling.md)",
                 highlight=False, soft_wrap=True, markup=False)
    return host.strip()


def _status_words(live, out: Path) -> str:  # type: ignore[no-untyped-def]
    """The live status line for the terminal app (the same words the page shows)."""
    from ragjury.evals.io.label_acts import read_acts

    return live.status(read_acts(out)).words


def _say_status(live, out: Path) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """Print the live status line (stderr) and give it to the page: an aggregate, never an item's verdict."""
    from ragjury.evals.io.label_acts import read_acts

    status = live.status(read_acts(out))
    stderr.print(status.words, highlight=False, soft_wrap=True, markup=False)
    return status.as_dict()


def _check_writable(out: Path) -> None:
    """A labels file that cannot be appended to stops here in one line, not with an error per key."""
    try:
        fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as error:
        raise fail(f"--out {out}: cannot write the labels file ({error.strerror or error})") from None
    os.close(fd)


def _open_privately(url: str) -> Path:
    """Open the page through a 0600 file that redirects to ``url``: the secret never reaches the
    browser's command line (``ps`` and /proc/PID/cmdline show that to every local user)."""
    import tempfile
    import webbrowser

    folder = Path(tempfile.mkdtemp(prefix="ragjury-label-"))  # 0700
    opener = _write_opener(folder / "open.html", url)
    webbrowser.open(opener.as_uri())
    return opener


def _write_opener(opener: Path, url: str) -> Path:
    """A 0600 HTML file that redirects to ``url`` (the secret stays off every command line)."""
    import html

    fd = os.open(opener, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={html.escape(url)}">'
                     f'<title>ragjury label</title><p>Opening the labelling page…</p>')
    return opener


def _bind(listen: str, port: int):  # type: ignore[no-untyped-def]
    """A listening socket on ``listen``:``port`` and the Host values the page answers there."""
    import socket

    try:
        family = socket.getaddrinfo(listen, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as error:
        raise fail(f"--host {listen}: not an address here ({error.strerror or error})") from None
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((listen, port))
    except OSError as error:
        sock.close()
        raise fail(f"--port {port}: cannot listen on {listen} ({error.strerror})") from None
    sock.listen(128)  # connections made as soon as the address is printed wait in the backlog
    bound = sock.getsockname()[1]
    shown = f"[{listen}]" if ":" in listen else listen
    hosts = {f"127.0.0.1:{bound}", f"localhost:{bound}", f"{shown}:{bound}"}
    return sock, bound, frozenset(hosts), f"http://{shown}:{bound}"


def _serve(session, question: str, *, graded: bool, reveal: bool, port: int, open_browser: bool,  # type: ignore[no-untyped-def]
           on_act=None, listen: str = "127.0.0.1", guidelines: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """Serve the page on 127.0.0.1 (or ``--host``) until the labeller quits (q) or Ctrl-C."""
    import secrets

    import uvicorn

    from ragjury.evals.labelling.page import PageState, build_app

    token = secrets.token_urlsafe(24)
    state = PageState(session, token, question, graded=graded, reveal=reveal, on_act=on_act, guidelines=guidelines)
    sock, _, state.hosts, base = _bind(listen, port)
    server = uvicorn.Server(uvicorn.Config(build_app(state), log_level="warning", access_log=False, lifespan="off"))
    state.on_quit = lambda: setattr(server, "should_exit", True)
    url = f"{base}/?token={token}"
    screen = session.screen()
    stderr.print(f"labelling {screen.total} items as {session.annotator} ({screen.done} done) at {url}",
                 highlight=False, soft_wrap=True, markup=False)
    stderr.print("press q in the page to finish (every label is already saved); Ctrl-C here works too",
                 highlight=False, soft_wrap=True)
    opener = _open_privately(url) if open_browser else None
    _run_until_done(server, sock, opener.parent if opener is not None else None)


def _run_until_done(server, sock, secrets: Path | None) -> None:  # type: ignore[no-untyped-def]
    """Run the page server until q or Ctrl-C, then close its socket and remove the folder of the
    token's opener files (``secrets``): they are of no use once the session ends."""
    import shutil

    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        if secrets is not None:
            shutil.rmtree(secrets, ignore_errors=True)


def progress_line(sessions: dict) -> str:  # type: ignore[type-arg]
    """The team's progress in one line: each person's labels of their queue (``ana 12/40 · bob 3/38``)."""
    parts = []
    for name, one in sessions.items():
        screen = one.screen()
        parts.append(f"{name} {screen.done}/{screen.total}" + (" (done)" if screen.finished else ""))
    return "progress: " + " · ".join(parts)


def _serve_team(sessions: dict, question: str, *, graded: bool, reveal: bool, port: int, listen: str,  # type: ignore[no-untyped-def, type-arg]
                on_act=None, guidelines: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """One page server for a team: a link per person (its own secret), a progress line here after
    every act; it ends when everyone has pressed q, or on Ctrl-C."""
    import secrets

    import uvicorn

    from ragjury.evals.labelling.page import PageState, build_team_app

    sock, _, hosts, base = _bind(listen, port)
    quit_: set[str] = set()
    states: dict[str, PageState] = {}

    def acted() -> dict | None:  # type: ignore[type-arg]
        stderr.print(progress_line(sessions), highlight=False, soft_wrap=True, markup=False)
        return None if on_act is None else on_act()

    for name, one in sessions.items():
        states[name] = PageState(one, secrets.token_urlsafe(24), question, graded=graded, reveal=reveal,
                                 on_act=acted, hosts=hosts, guidelines=guidelines)
    server = uvicorn.Server(uvicorn.Config(build_team_app(states), log_level="warning", access_log=False,
                                           lifespan="off"))

    def quitter(name: str):  # type: ignore[no-untyped-def]
        def done() -> None:
            quit_.add(name)
            stderr.print(f"{name} finished for now ({len(quit_)} of {len(states)})", highlight=False,
                         soft_wrap=True, markup=False)
            if len(quit_) == len(states):
                server.should_exit = True
        return done

    for name, state in states.items():
        state.on_quit = quitter(name)
    total = next(iter(sessions.values())).screen().total if sessions else 0
    stderr.print(f"labelling {total} items as a team of {len(states)}: one link per person (send each only "
                 "their own; the annotator comes from the link)", highlight=False, soft_wrap=True, markup=False)
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="ragjury-label-"))  # 0700: each person's 0600 opener
    for name, state in states.items():
        link = f"{base}/p/{name}/?token={state.token}"
        opener = _write_opener(folder / f"{name}.html", link)
        stderr.print(f"  {name}: {link} (on this machine: open {opener})", highlight=False, soft_wrap=True,
                     markup=False)
    stderr.print(progress_line(sessions), highlight=False, soft_wrap=True, markup=False)
    stderr.print("the server ends when everyone has pressed q (every label is already saved); Ctrl-C works too",
                 highlight=False, soft_wrap=True)
    _run_until_done(server, sock, folder)


def register(app: typer.Typer) -> None:
    app.command("label")(label)


__all__ = ["label", "register"]
