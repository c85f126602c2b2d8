"""The judge catalogue: a judge is its class file (with ``@judge_entry``) and its prompt.

The toy-judge test is the catalogue's promise, checked end to end: in a copy of the package, it
writes one new judge module, its prompt included -- nothing else -- and the judge is then usable
from ``ragjury evaluate --judge toy``, ``evals.registry`` and the Python API, talking to a real
(local, recording) HTTP server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from recording_server import recording_server

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges import catalogue

ROOT = Path(__file__).resolve().parents[4]

TOY_PROMPT = '''TOY_VERDICT = Instruction(
    name="toy_verdict",
    version="1.0",
    text='TOY PROMPT: give "1" when the answer is a toy answer, else "0". Answer with the JSON object only.',
)
'''

TOY_JUDGE = '''"""A toy LLM judge: correct when the model says so."""

from __future__ import annotations

from ragjury.config.instructions import Instruction
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.prompting import EVALUATED_ANSWER, tagged
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.llm.verdict_base import LLMVerdictJudge, VerdictOutput

''' + TOY_PROMPT + '''

@judge_entry("correctness", "toy", "a toy LLM verdict", uses_model=True)
class ToyJudge(LLMVerdictJudge[CorrectnessItem, bool]):
    name = "toy"
    instructions = (TOY_VERDICT,)

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        prompt = tagged(EVALUATED_ANSWER, item.answer)
        ballot = await self.ballot(TOY_VERDICT, VerdictOutput, prompt, key=lambda out: out.verdict)
        if ballot.winner is None:
            return self.failed(ballot.failure_reason(), usage=ballot.usage)
        return self.sampled(ballot.winner == "1", usage=ballot.usage)
'''
"""The whole toy judge: its prompt (``TOY_PROMPT``) sits in its own module, beside its class."""


@pytest.fixture(scope="module")
def package_with_a_toy_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the ``ragjury`` package with exactly one change: the toy module, prompt included."""
    site = tmp_path_factory.mktemp("site")
    package = site / "ragjury"
    shutil.copytree(ROOT, package, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".ragjury", "tests", "bench", "examples"))
    (package / "rag_agent" / "judges" / "llm" / "toy.py").write_text(TOY_JUDGE, encoding="utf-8")
    return site


def run_python(site: Path, code: str, *args: str, base_url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "RAGJURY_BASE_URL": base_url}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_toy_judge_is_one_class_file_and_one_prompt(package_with_a_toy_judge: Path, tmp_path: Path) -> None:
    site = package_with_a_toy_judge
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"question": "q?", "answer": "a toy answer", "references": ["toy"]}) + "\n")
    with recording_server(content='{"reason": "it is a toy", "verdict": "1"}') as server:
        python_api = run_python(site, (
            "import ragjury\n"
            "from ragjury.rag_agent.judges.catalogue import declared, judge_names\n"
            "assert ragjury.__file__.startswith(sys.argv[1]), ragjury.__file__\n"
            "assert 'toy' in judge_names('correctness'), judge_names('correctness')\n"
            "assert declared()[('correctness', 'toy')].description == 'a toy LLM verdict'\n"
            "judge = ragjury.build_judge('correctness', 'toy')\n"
            "item = ragjury.CorrectnessItem(question='q?', answer='a toy answer', references=['toy'])\n"
            "print(judge.identity.prompt_version, judge.judge(item))\n"
        ).replace("import ragjury\n", "import sys, ragjury\n", 1), str(site), base_url=server.base_url, cwd=tmp_path)
        assert python_api.returncode == 0, python_api.stderr[-3000:]
        assert python_api.stdout.split() == ["toy_verdict@1.0", "True"]

        cli = run_python(site, "from ragjury.cli import main; main()", "evaluate", "--task", "correctness",
                         "--judge", "toy", "--data", str(data), "--json", "--no-progress",
                         base_url=server.base_url, cwd=tmp_path)
        assert cli.returncode == 0, cli.stderr[-3000:]
        helped = run_python(site, "from ragjury.cli import main; main()", "evaluate", "--help",
                            base_url=server.base_url, cwd=tmp_path)
        assert " toy," in " ".join(helped.stdout.replace("│", " ").split()), helped.stdout  # --judge help lists it
        payload = json.loads(cli.stdout)
        assert (payload["judge"], payload["judges"], payload["scored"]) == ("toy", {"toy": 1}, 1)
        assert payload["figures"]["mean_label"] == 1.0
        system_prompts = [
            message["content"]
            for request in server.chat_requests
            for message in (request.body or {}).get("messages", [])
            if message.get("role") == "system"
        ]
        # both doors sent the toy's own prompt to the server
        assert len(system_prompts) >= 2 and all("TOY PROMPT" in p for p in system_prompts)


def test_declarations_are_read_from_source_and_match_the_decorators() -> None:
    declared = catalogue.declared()
    assert declared[("correctness", "contains")].module == "ragjury.rag_agent.judges.model_free.contains"
    assert declared[("correctness", "llm")].default and not declared[("correctness", "contains")].default
    for (task, name), declaration in declared.items():
        entry = catalogue.entry(task, name)  # importing the module ran the decorator
        assert entry.module == declaration.module and entry.description == declaration.description
        assert entry.default == declaration.default
        if entry.fallback is not None:
            assert (task, entry.fallback) in declared and not catalogue.entry(task, entry.fallback).uses_model


def test_auto_is_the_default_judge_with_its_fallback_of_the_same_value_type() -> None:
    settings = RagjurySettings(base_url="http://127.0.0.1:9/v1")
    auto = catalogue.build_judge("correctness", "auto", settings)
    assert auto.identity.name == "answer_correctness|fallback:contains"
    fallback = catalogue.fallback_of("correctness", "llm", settings)
    assert type(fallback).__name__ == "BoolAsVerdict"  # a bool seen as a Verdict: one value type
    assert catalogue.build_judge("faithfulness", "auto", settings).identity.name == "faithfulness|fallback:support"
    assert type(catalogue.fallback_of("faithfulness", "llm", settings)).__name__ == "SupportAsFaithfulness"
    with pytest.raises(catalogue.UnknownJudgeError, match="unknown judge 'auto' for task relevance"):
        catalogue.build_judge("relevance", "auto", settings)  # no default judge: no auto


def test_declarations_are_read_from_decorator_lines_only() -> None:
    source = (
        '"""Docs may show `@judge_entry("correctness", "z", "not a declaration")`."""\n'
        '@judge_entry("correctness", "x", "one (with a paren) and \\"quotes\\"")\nclass A: ...\n'
        '@judge_entry(\n    "correctness",\n    "y",\n    "two",\n    default=True,\n)\nclass B: ...\n'
    )
    found = list(catalogue._declarations(source, "pkg.mod"))
    assert [(key, d.description, d.default) for key, d in found] == [
        (("correctness", "x"), 'one (with a paren) and "quotes"', False),
        (("correctness", "y"), "two", True),
    ]


def test_faithfulness_auto_falls_back_to_support_with_the_primary_value_type() -> None:
    from ragjury.rag_agent.core.items import FaithfulnessItem
    from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessResult

    settings = RagjurySettings(base_url="http://127.0.0.1:9/v1")
    fallback = catalogue.fallback_of("faithfulness", "llm", settings)
    item = FaithfulnessItem(answer="Paris is the capital of France.", contexts=["Paris is the capital of France."])
    judgment = fallback.judge_sync(item)
    assert isinstance(judgment.value, FaithfulnessResult) and judgment.value.label is True
    assert judgment.value.statements == [] and 0 < judgment.value.threshold < 1
