"""#53 item 8: ``--judge`` is parsed once per run and carried parsed.

Why: the judge words were parsed 4 times per run (14 for a two-member panel): by the command, the
catalogue, each panel member again, and the headline from the joined name, which read
``panel:a,b`` as two judges; and the catalogue was asked again after judging, for the verdicts'
names. Now the command parses once; the catalogue, the finished run, the headline and the
``--json`` trust block get that ``JudgeSpec``, never the words; the catalogue is asked once.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.rag_agent.core.judge_spec import JudgeSpec
from ragjury.rag_agent.judges import catalogue

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "config_a.jsonl"


def _count_specs(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many ``JudgeSpec`` each judge's words built, from here on in the test."""
    built: Counter[str] = Counter()
    init = JudgeSpec.__init__

    def counting(self: JudgeSpec, value: str, *args: Any, **kwargs: Any) -> None:
        built[value] += 1
        init(self, value, *args, **kwargs)

    monkeypatch.setattr(JudgeSpec, "__init__", counting)
    return built


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        ("contains", {"contains": 1}),
        ("panel:contains,token-overlap", {"panel:contains,token-overlap": 1, "contains": 1, "token-overlap": 1}),
        ("contains --judge token-overlap", {"contains": 1, "token-overlap": 1}),  # two criteria in one run
    ],
)
def test_the_judge_spec_is_built_once_per_run(judge: str, expected: dict[str, int], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_specs(monkeypatch)
    asked: Counter[str] = Counter()  # the catalogue's answers asked for from outside it

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if (event == "call" and frame.f_code in (catalogue.resolve.__code__, catalogue.verdict_names.__code__)
                and frame.f_back.f_code.co_filename != catalogue.__file__):
            asked[frame.f_code.co_name] += 1

    sys.setprofile(profile)
    try:
        result = CliRunner().invoke(app, [
            "evaluate", "--task", "correctness", "--judge", *judge.split(" "), "--data", str(DATA), "--out",
            str(tmp_path / "p.jsonl"), "--html", str(tmp_path / "p.html"), "--no-cache", "--no-progress", "--json"])
    finally:
        sys.setprofile(None)
    assert result.exit_code == 0, result.output
    assert dict(built) == expected
    criteria = judge.split(" --judge ")
    assert dict(asked) == {"resolve": len(criteria)}  # each resolved once; its verdict names travel with it
    if len(criteria) > 1:
        return
    header = json.loads((tmp_path / "p.run.json").read_text(encoding="utf-8"))  # the run header keeps the spec
    assert header["judge"] == judge and header["judge_spec"]["kind"] == ("panel" if "," in judge else "builtin")
    assert header["judge_spec"]["members"] == (["contains", "token-overlap"] if "," in judge else None)
    assert json.loads(result.stdout)["trust"]["judge_kind"] == "built-in"


def test_a_panel_of_built_in_judges_is_not_read_as_two_judges() -> None:
    """The joined words of a run read back: a panel's own commas are no list of judges."""
    from ragjury.evals.results.headline import unmeasured_kind

    assert unmeasured_kind("panel:contains,token-overlap") is None
    assert unmeasured_kind("panel:contains,rubric:x.yaml") == "a rubric"
    assert unmeasured_kind("llm, rubric:x.yaml") == "a rubric"


EXAMPLES = DATA.parent


def _one_item_commands(tmp_path: Path) -> dict[str, list[str]]:
    trec = EXAMPLES / "trec"
    return {
        "verdict": ["verdict", "correctness", "--judge", "contains", "-q", "capital of france?", "-a", "Paris", "-r",
                    "Paris", "--json"],
        "judge-evaluate": ["judge-evaluate", "--judge", "heuristic", "-q", "capital of france?", "-a",
                           "Paris is the capital.", "--json"],
        "relevance": ["relevance", "--judge", "token-overlap", "--pairs", str(trec / "qrels.txt"), "--topics",
                      str(trec / "topics.jsonl"), "--passages", str(trec / "passages.jsonl"), "--out",
                      str(tmp_path / "judged.qrels"), "--no-cache", "--no-progress"],
        "retrieval": ["retrieval", "--data", str(EXAMPLES / "retrieval.jsonl"), "--judge", "token-overlap", "--json"],
        "ask": ["ask", "what is the capital of france", "-c", str(trec / "passages.jsonl"), "--judge", "--judge-mode",
                "heuristic", "--retrieval", "pre", "--model", "phi3:mini", "--judge-model", "phi3:mini", "--json"],
    }


@pytest.mark.parametrize("command", ["verdict", "judge-evaluate", "relevance", "retrieval", "ask"])
def test_the_other_commands_parse_the_judge_once_and_carry_it_parsed(command: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``verdict`` parsed ``--judge`` twice (``build_choice`` read its kind, then ``resolve`` parsed it
    again); ``judge-evaluate``, ``relevance``, ``retrieval`` and ``ask`` handed the catalogue the words.
    Now each parses once and the catalogue gets that ``JudgeSpec``. (``fit`` takes no ``--judge``: its
    base judges are built by class.)"""
    argv = _one_item_commands(tmp_path)[command]
    words = argv[argv.index("--judge-mode" if command == "ask" else "--judge") + 1]
    built = _count_specs(monkeypatch)
    doors = {catalogue.resolve.__code__: "name", catalogue.build_judge.__code__: "name",
             catalogue.build_choice.__code__: "choice"}
    given: list[type] = []  # what the catalogue was handed from outside it

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if (event == "call" and frame.f_code in doors
                and frame.f_back.f_code.co_filename != catalogue.__file__):
            given.append(type(frame.f_locals[doors[frame.f_code]]))

    if command == "ask":
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
        from fake_endpoints import fake_endpoint

        answer = json.dumps({"answer": "Paris is the capital of France.", "sources_used": []})  # nothing retrieved
        server = fake_endpoint(content=answer)
        argv += ["--base-url", server.__enter__().base_url]
    sys.setprofile(profile)
    try:
        result = CliRunner().invoke(app, argv)
    finally:
        sys.setprofile(None)
        if command == "ask":
            server.__exit__(None, None, None)
    assert result.exit_code == 0, result.output
    assert dict(built) == {words: 1}
    assert given and all(kind is JudgeSpec for kind in given), given
