"""The examples of the README and of every ``docs/*.md`` page run verbatim from a clone — the ones
that need no model server, here — and the README stays a first visit.

Why: an example that fails as written is the first thing a new user meets. Each fenced ``bash`` or
``python`` block preceded by ``<!-- readme-test: offline -->`` is run exactly as written, in a
scratch folder that holds the clone's ``examples/`` (as a fresh clone's working folder would), with
the venv's ``bin`` first on PATH (the README activates the venv). A ```` ```text```` block right
after it, introduced by ``<!-- readme-test: output -->``, is the output the README promises: each of
its lines must appear in what the example printed (whitespace-normalised, so table borders drawn
at another width still match). Blocks without the marker need a model server or install software;
the test checks that there is at least one of each kind, so a README edit cannot silently switch
the test off. Examples write under ``out/`` (ignored by git), each to its own folder, so none
overwrites another's output or leaves files in the clone's tracked tree.

The README is what a first visit reads: at most ``README_MAX_LINES`` lines, every page of
``docs/`` linked from it, and every link to a page there resolving.
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
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
README_MAX_LINES = 300
MARK_RUN = "<!-- readme-test: offline -->"
MARK_OUTPUT = "<!-- readme-test: output -->"
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Example:
    page: str
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


def page_examples(page: Path) -> list[Example]:
    name = page.relative_to(ROOT).as_posix()
    lines = page.read_text(encoding="utf-8").split("\n")
    examples: list[Example] = []
    for line, language, code, above in _blocks(lines):
        if above == MARK_RUN:
            examples.append(Example(name, line, language, code, []))
        elif above == MARK_OUTPUT:
            assert examples, f"{name}:{line}: an output block with no example before it"
            examples[-1].expected = [text for text in code.split("\n") if text.strip()]
    return examples


def readme_examples() -> list[Example]:
    return page_examples(README)


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[│┃┏┓┗┛┡┩┣┫━─═╇╈┯┷┠┨┌┐└┘├┤┼┬┴]", " ", text).split())


EXAMPLES = [example for page in PAGES for example in page_examples(page)]


def test_readme_has_tested_and_untested_examples() -> None:
    examples = readme_examples()
    languages = {example.language for example in examples}
    assert {"bash", "python"} <= languages, "the README's offline examples lost their test markers"
    all_blocks = _blocks(README.read_text(encoding="utf-8").split("\n"))
    assert len(all_blocks) > len(examples), "no block is marked as needing a model server: check the markers"


def test_docs_pages_have_their_examples_tested() -> None:
    """The pages that moved out of the README keep their examples under test."""
    tested = {example.page for example in EXAMPLES}
    for name in ("cli", "python-api", "reports", "tracing"):
        assert f"docs/{name}.md" in tested, f"docs/{name}.md lost its readme-test markers"
    languages = {example.language for example in EXAMPLES if example.page.startswith("docs/")}
    assert {"bash", "python"} <= languages


def test_readme_is_a_first_visit() -> None:
    lines = README.read_text(encoding="utf-8").split("\n")
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"
    text = "\n".join(lines)
    # the Quickstart's test command is exactly what CI runs
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = 'python3 -m venv .venv && .venv/bin/pip install -q -e ".[dev]" && .venv/bin/pytest'
    assert command in text and ci.rstrip().endswith(command)
    # every docs page is linked from the README, and every local link resolves
    for page in DOCS:
        assert f"(docs/{page.name})" in text, f"README.md does not link docs/{page.name}"
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.relative_to(ROOT)}: broken link {target}"


def test_examples_write_to_their_own_folders_under_out() -> None:
    """No example writes into the clone's tracked tree, and no two write the same folder."""
    folders: dict[str, str] = {}
    for example in EXAMPLES:
        for folder in set(re.findall(r"\bout/([\w-]+)/", example.code)):
            where = f"{example.page}:{example.line}"
            assert folders.setdefault(folder, where) == where, f"out/{folder}/ is written by {folders[folder]} and {where}"
        # the outputs these commands write (--out, --html, --out-dir, a shell redirect) stay under out/
        if example.language != "bash":
            continue
        for target in re.findall(r"(?:--out|--html|--out-dir|>)\s+([^\s|&;]+)", example.code):
            if target not in ("/dev/null", "&1") and not target.startswith("&"):
                assert target.startswith("out/"), f"{example.page}:{example.line} writes {target} outside out/"
    gitignore = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "out/" in gitignore


def test_help_opens_with_what_ragjury_is_and_an_example_that_runs() -> None:
    """``help(ragjury)`` starts with what ragjury is and a short example, not packaging internals."""
    import ragjury

    doc = ragjury.__doc__ or ""
    first = doc.strip().split("\n")[0]
    assert first.startswith("ragjury: LLM-as-judge for RAG systems")
    example = [line.strip() for line in doc.split("Example::", 1)[1].strip().split("\n") if line.strip()]
    assert len(example) == 3
    done = subprocess.run([sys.executable, "-c", "\n".join(example)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "value=True" in done.stdout, done.stderr


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.page}:{e.line}" for e in EXAMPLES])
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
    where = f"{example.page}:{example.line}"
    assert done.returncode == 0, f"{where} exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    printed = _normalise(done.stdout)
    missing = [line for line in example.expected if _normalise(line) not in printed]
    assert not missing, f"{where}: promised output not printed: {missing}\n--- printed:\n{done.stdout}"
