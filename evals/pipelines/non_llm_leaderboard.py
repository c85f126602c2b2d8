"""A leaderboard of TREC RAG runs graded by the TREC AutoJudge non-LLM judge: no model, the kit's files.

The kit's whole pipeline (grade every report 0-3, average per run, rank, write ``NAME.eval.txt``,
``NAME.qrels.txt`` and ``NAME.config.yml``) lives here so ``ragjury non-llm-judge`` only parses
options. Inputs and outputs keep the kit's formats (a qrels document id is the MD5 of the report).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragjury.evals.io.atomic_io import check_output_paths, check_output_target, same_file, write_text_atomic
from ragjury.evals.io.json_contract import paths
from ragjury.evals.io.loaders import load_topics, trec_id
from ragjury.evals.runs.progress import make_progress
from ragjury.rag_agent.core.input_files import InputError, iter_jsonl

if TYPE_CHECKING:  # annotations only: the judge loads numpy when a run starts, not on import
    from rich.table import Table

    from ragjury.rag_agent.judges.model_free.non_llm import NonLLMSettings

MEASURE = "AVG_GRADE"
"""The measure name of the kit's leaderboard."""

OUTPUT_SUFFIXES = ("eval.txt", "qrels.txt", "config.yml")


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


def run_files(path: Path) -> list[Path]:
    """The run files under ``path`` (a directory: every visible regular file in it, whatever its
    name, as the kit reads a run folder) or ``path`` itself."""
    if not path.exists():
        raise InputError(path, "not found")
    if path.is_file():
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise InputError(path, "no run files in this directory")
    return files


def load_responses(path: Path) -> list[RunResponse]:
    """Every report in one run file, in file order (the kit's lenient reading: a repeated
    (run, topic) is kept, and the caller lets the last one count)."""
    out: list[RunResponse] = []
    for line, data in iter_jsonl(path):
        if not isinstance(data, dict):
            raise InputError(path, f"expected a JSON object, found {type(data).__name__}", line=line)
        metadata = data.get("metadata")
        if not isinstance(metadata, dict):
            raise InputError(path, "missing or not an object", line=line, field="metadata")
        run_id = trec_id(path, line, "metadata.run_id", _string_field(metadata, "run_id", path, line, "metadata."))
        topic_id = metadata.get("topic_id")
        if topic_id is None:
            raise InputError(path, "missing", line=line, field="metadata.topic_id")
        trec_id(path, line, "metadata.topic_id", str(topic_id))
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


def output_paths(out_dir: Path, name: str) -> tuple[Path, Path, Path]:
    """``NAME.eval.txt``, ``NAME.qrels.txt`` and ``NAME.config.yml`` in ``out_dir``; a name that
    is not one plain file name (``../x``, ``a/b``) would write elsewhere and is refused."""
    if not name or name in (".", "..") or any(c in name for c in "/\\\0") or not name.isprintable():
        raise InputError("--name", f"{name!r} is not a plain file name (no '/', '..' or control characters)")
    eval_path, qrels_path, config_path = (out_dir / f"{name}.{suffix}" for suffix in OUTPUT_SUFFIXES)
    return eval_path, qrels_path, config_path


def check_outputs(out_dir: Path, name: str, inputs: list[tuple[str, Path | None]], responses: Path) -> None:
    """Before anything is read: no output may overwrite an input, and ``out_dir`` is a folder whose
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


@dataclass
class NonLLMLeaderboard:
    """The graded runs: per-topic grades, per-run averages and ranks, and the files they make.

    ``write()`` writes the kit's three files (atomically); ``payload()`` is the ``--json`` object;
    ``table()`` the leaderboard as a rich table.
    """

    name: str
    judge_key: str
    settings: NonLLMSettings
    topics_path: Path
    responses_path: Path
    workflow: Path | None
    files: list[Path]
    n_topics: int
    grades: dict[tuple[str, str], int]
    """(run_id, topic_id) -> grade 0-3, in (run_id, topic_id) order."""
    qrels: dict[tuple[str, str], int]
    """(topic_id, md5 of the report) -> the highest grade of that text."""
    skipped: int = 0
    """Reports naming a topic that is not in the topics file (the kit skips them too)."""
    duplicated: int = 0
    """(run, topic) reports seen more than once: the last one counts."""
    written: tuple[Path, Path, Path] | None = None
    """``NAME.eval.txt``, ``NAME.qrels.txt`` and ``NAME.config.yml`` once ``write`` wrote them."""
    averages: dict[str, float] = field(init=False)
    ranks: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        per_run: dict[str, list[int]] = defaultdict(list)
        for (run_id, _topic), grade in self.grades.items():
            per_run[run_id].append(grade)
        self.averages = {run_id: sum(grades) / len(grades) for run_id, grades in per_run.items()}
        self.ranks = competition_ranks(self.averages)

    @property
    def ordered(self) -> list[str]:
        """Run ids best first (ties by name)."""
        return sorted(self.averages, key=lambda run: (self.ranks[run], run))

    def eval_text(self) -> str:
        """``NAME.eval.txt``: one line per (run, topic), then each run's ``all`` average."""
        lines = [
            "\t".join([run, MEASURE, topic, str(float(grade))]) for (run, topic), grade in self.grades.items()
        ]
        lines += ["\t".join([run, MEASURE, "all", str(avg)]) for run, avg in sorted(self.averages.items())]
        return "\n".join(lines) + "\n"

    def qrels_text(self) -> str:
        """``NAME.qrels.txt``: ``topic 0 md5 grade``, sorted."""
        return "".join(f"{topic} 0 {doc} {grade}\n" for (topic, doc), grade in sorted(self.qrels.items()))

    def config_text(self) -> str:
        """``NAME.config.yml``: the name, the judge's identity and every setting used."""
        import yaml  # deferred: only this output needs it

        config = {"name": self.name, "judge": self.judge_key, "judge_settings": self.settings.model_dump()}
        return yaml.safe_dump(config, sort_keys=False)

    def write(self, out_dir: Path) -> tuple[Path, Path, Path]:
        """Write the three files into ``out_dir`` (created, one level), each atomically."""
        out_dir.mkdir(exist_ok=True)
        eval_path, qrels_path, config_path = output_paths(out_dir, self.name)
        write_text_atomic(eval_path, self.eval_text())
        write_text_atomic(qrels_path, self.qrels_text())
        write_text_atomic(config_path, self.config_text())
        self.written = (eval_path, qrels_path, config_path)
        return self.written

    def payload(self) -> dict[str, object]:
        """The ``--json`` object (without the contract's ``schema_version`` / ``command``)."""
        written = self.written or (None, None, None)
        return {
            "judge": "non-llm",
            "leaderboard": [
                {"rank": self.ranks[run], "run_id": run, MEASURE: self.averages[run]} for run in self.ordered
            ],
            "n": len(self.grades),
            "skipped": self.skipped,
            "inputs": paths(rag_topics=self.topics_path, rag_responses=self.files, workflow=self.workflow),
            "outputs": paths(eval=written[0], qrels=written[1], config=written[2]),
        }

    def table(self) -> Table:
        """The leaderboard as a rich table: rank, run id, average grade."""
        from rich.table import Table

        table = Table(title=f"{MEASURE} over {self.n_topics} topic(s)")
        table.add_column("rank", justify="right")
        table.add_column("run_id")
        table.add_column(MEASURE, justify="right")
        for run in self.ordered:
            table.add_row(str(self.ranks[run]), run, f"{self.averages[run]:.4f}")
        return table


def _read_reports(
    files: Sequence[Path], topics: dict[str, str], progress: bool
) -> tuple[dict[tuple[str, str], RunResponse], int, int]:
    """The reports by (run, topic), the last one winning as in the kit's ``judge()``; with the
    count of reports skipped (unknown topic) and of (run, topic) reports seen twice."""
    reports: dict[tuple[str, str], RunResponse] = {}
    skipped = duplicated = 0
    with make_progress(enabled=progress, transient=True) as bar:
        task = bar.add_task("reading runs", total=len(files))
        for file in files:
            for report in load_responses(file):
                if report.topic_id not in topics:
                    skipped += 1
                    continue
                key = (report.run_id, report.topic_id)
                duplicated += key in reports
                reports[key] = report
            bar.advance(task)
    return reports, skipped, duplicated


def run_non_llm_judge(
    topics_path: Path,
    responses_path: Path,
    out_dir: Path | None,
    *,
    workflow: Path | None = None,
    name: str = "default",
    progress: bool = True,
) -> NonLLMLeaderboard:
    """Grade every run's report per topic 0-3 with the non-LLM judge and rank the runs.

    ``workflow`` is a TREC AutoJudge ``workflow.yml`` whose ``judge_settings`` set the weights (the
    kit's defaults without one). With ``out_dir`` the kit's three files are written there, after
    checking, before anything is read, that none of them would overwrite an input. Input problems
    are ``InputError`` (file, line, field); no report naming a known topic is one too.
    """
    files = run_files(responses_path)
    if out_dir is not None:
        inputs = [("--rag-topics", topics_path), ("--workflow", workflow)]
        inputs += [("--rag-responses", file) for file in files]
        check_outputs(out_dir, name, inputs, responses_path)
    from ragjury.rag_agent.judges.model_free.non_llm import NonLLMJudge, NonLLMSettings  # deferred: numpy

    settings = NonLLMSettings.from_workflow(workflow) if workflow else NonLLMSettings()
    topics = load_topics(topics_path, settings.topic_format)
    reports, skipped, duplicated = _read_reports(files, topics, progress)
    if not reports:
        raise InputError(responses_path, f"no report names a topic of {topics_path}")
    keys = sorted(reports)
    judge = NonLLMJudge(settings)
    scores = judge.batch_scores([topics[t] for _, t in keys], [reports[k].text for k in keys])
    grades: dict[tuple[str, str], int] = {}
    qrels: dict[tuple[str, str], int] = {}
    for key, score in zip(keys, scores, strict=True):
        assert score is not None  # topics always have a query (checked when loading)
        grades[key] = score.grade
        doc = (key[1], doc_id_md5(reports[key].text))
        qrels[doc] = max(score.grade, qrels.get(doc, 0))
    board = NonLLMLeaderboard(
        name=name,
        judge_key=judge.identity.key(),
        settings=settings,
        topics_path=topics_path,
        responses_path=responses_path,
        workflow=workflow,
        files=files,
        n_topics=len(topics),
        grades=grades,
        qrels=qrels,
        skipped=skipped,
        duplicated=duplicated,
    )
    if out_dir is not None:
        board.write(out_dir)
    return board


__all__ = [
    "MEASURE",
    "OUTPUT_SUFFIXES",
    "NonLLMLeaderboard",
    "RunResponse",
    "check_outputs",
    "competition_ranks",
    "doc_id_md5",
    "load_responses",
    "output_paths",
    "run_files",
    "run_non_llm_judge",
]
