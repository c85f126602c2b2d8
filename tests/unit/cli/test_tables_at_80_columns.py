"""Piped output at 80 columns: a table fits the width and never cuts a number or a word across a
line ("judg|e", "1|00 %", "42/|167" once): its widest columns give way first, each down to its
longest word; only the first column (a system's name, an id) folds below that, and a name in a
header may end in "…", never a number."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RAGJURY = Path(sys.executable).with_name("ragjury")
LONG_NAMES = {
    "chatgpt": "retrieval-augmented-gpt-4o-mini-2024-07-18",
    "fid": "fusion-in-decoder-large-nq-finetuned",
    "third": "bm25-plus-llama-3.1-8b-instruct-q4",
}
BOX = re.compile(r"[\u2500-\u257f]")
NUMBER = re.compile(r"[^A-Za-z]*\d[^A-Za-z]*")


def run(*args: str, cwd: Path, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    done = subprocess.run([str(RAGJURY), *args], check=False, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def tokens(text: str) -> Counter[str]:
    kept = [line for line in text.splitlines() if "wall time" not in line and "judgments/s" not in line]
    return Counter(BOX.sub(" ", "\n".join(kept)).split())


def a_piece_of_a_name(token: str, wide: Counter[str]) -> bool:
    """A folded system name's piece, or a name ended in '…' (never a number)."""
    if any(token in name for name in LONG_NAMES.values()):
        return True
    return token.endswith("…") and not NUMBER.fullmatch(token) and any(w.startswith(token[:-1]) for w in wide)


def test_tables_at_80_columns_keep_every_number_and_word_whole(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (ROOT / "examples" / "data" / "systems.jsonl").read_text().splitlines()]
    with (tmp_path / "long.jsonl").open("w") as out:
        for number, row in enumerate(rows):  # three systems with long names, as a team names its configs
            system = LONG_NAMES["third"] if number % 3 == 0 else LONG_NAMES[row["system"]]
            out.write(json.dumps({**row, "system": system, "id": f"{row['id']}-{number}"}) + "\n")
    for config in ("a", "b"):
        run("evaluate", "--task", "correctness", "--judge", "contains", "--data",
            str(ROOT / "examples" / "data" / f"config_{config}.jsonl"), "--out", f"config-{config}-long-name.jsonl",
            "--no-progress", "--no-cache", cwd=tmp_path, columns=80)
    a, b = LONG_NAMES["fid"], LONG_NAMES["chatgpt"]
    commands = [
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", "long.jsonl", "--out", "pred.jsonl",
         "--no-progress", "--no-cache"],
        ["evaluate", "--task", "correctness", "--judge", "contains", "--judge", "token-overlap", "--data",
         "long.jsonl", "--out", "multi.jsonl", "--no-progress", "--no-cache"],
        ["estimate", "pred.jsonl", "--compare", a, b],
        ["report", "pred.jsonl", "--compare", a, b],
        ["report", "config-a-long-name.jsonl", "config-b-long-name.jsonl"],
        ["label-plan", "pred.jsonl", "--budget", "40", "--out", "plan.jsonl"],
        ["judges"],
    ]
    for command in commands:
        narrow = run(*command, cwd=tmp_path, columns=80)
        wide = tokens(run(*command, cwd=tmp_path, columns=1000))
        for line in narrow.splitlines():  # a table's line (a one-line message stays whole, by design)
            if BOX.search(line[:1] + line[-1:]):
                assert len(line) <= 80, (command, line)
        shown = tokens(narrow)
        numbers = Counter({token: count for token, count in wide.items() if NUMBER.fullmatch(token)})
        assert not numbers - shown, (command, "numbers cut or lost", sorted(numbers - shown)[:10], narrow)
        cut = [token for token in shown - wide if not a_piece_of_a_name(token, wide)]
        assert not cut, (command, "words cut", cut[:10], narrow)
