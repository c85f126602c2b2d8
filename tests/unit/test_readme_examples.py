"""The README's examples run verbatim from a clone — the ones that need no model server, here.

Why: an example that fails as written is the first thing a new user meets. Each fenced ``bash`` or
``python`` block preceded by ``<!-- readme-test: offline -->`` is run exactly as written, in a
scratch folder that holds the clone's ``examples/`` (as a fresh clone's working folder would), with
the venv's ``bin`` first on PATH (the README activates the venv). A ```` ```text```` block right
after it, introduced by ``<!-- readme-test: output -->``, is the output the README promises: each of
its lines must appear in what the example printed (whitespace-normalised, so table borders drawn
at another width still match). Blocks without the marker need a model server or install software;
the test checks that there is at least one of each kind, so a README edit cannot silently switch
the test off.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MARK_RUN = "<!-- readme-test: offline -->"
MARK_OUTPUT = "<!-- readme-test: output -->"
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Example:
    line: int
    language: str
    code: str
    expected: list[str]


def _blocks(lines: list[str]) -> list[tuple[int, str, str, str | None]]:
    """(first line, language, code, marker just above) of every fenced block."""
    blocks = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        above = next((lines[k].strip() for k in range(index - 1, -1, -1) if lines[k].strip()), None)
        end = index + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        blocks.append((index + 1, match.group(1), "\n".join(lines[index + 1 : end]), above))
        index = end + 1
    return blocks


def readme_examples() -> list[Example]:
    lines = README.read_text(encoding="utf-8").split("\n")
    examples: list[Example] = []
    for line, language, code, above in _blocks(lines):
        if above == MARK_RUN:
            examples.append(Example(line, language, code, []))
        elif above == MARK_OUTPUT:
            assert examples, f"README.md:{line}: an output block with no example before it"
            examples[-1].expected = [text for text in code.split("\n") if text.strip()]
    return examples


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[│┃┏┓┗┛┡┩┣┫━─═╇╈┯┷┠┨┌┐└┘├┤┼┬┴]", " ", text).split())


EXAMPLES = readme_examples()


def test_readme_has_tested_and_untested_examples() -> None:
    languages = {example.language for example in EXAMPLES}
    assert {"bash", "python"} <= languages, "the README's offline examples lost their test markers"
    all_blocks = _blocks(README.read_text(encoding="utf-8").split("\n"))
    assert len(all_blocks) > len(EXAMPLES), "no block is marked as needing a model server: check the markers"


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"README.md:{e.line}" for e in EXAMPLES])
def test_readme_example_runs_as_written(example: Example, tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",
        "RAGJURY_CACHE_PATH": str(tmp_path / "cache.sqlite"),
        # No model server in this test: a refused port, so the examples that handle "server down"
        # show that path quickly.
        "RAGJURY_BASE_URL": "http://127.0.0.1:9/v1",
        "OLLAMA_HOST": "http://127.0.0.1:9",
    }
    command = ["bash", "-euo", "pipefail", "-c", example.code] if example.language == "bash" else [
        sys.executable, "-c", example.code]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"README.md:{example.line} exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    printed = _normalise(done.stdout)
    missing = [line for line in example.expected if _normalise(line) not in printed]
    assert not missing, f"README.md:{example.line}: promised output not printed: {missing}\n--- printed:\n{done.stdout}"
