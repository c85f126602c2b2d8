"""Agreement of the worked rubrics (``examples/rubrics/``) with their labelled example files.

Each rubric judges its 16 labelled items (8 pass, 8 fail, written for ragjury) through
``ragjury evaluate --task faithfulness --judge rubric:FILE`` against a real llama-server with
the reference model (Qwen2.5-Coder-1.5B, ``tests/llama_server.py``); printed: kappa with its
bootstrap interval, accuracy, unscored, seconds. Small files: a check that each rubric works as
written, not a benchmark of the judge (n = 16 each, intervals wide).

Run:  .venv/bin/python bench/bench_rubrics.py   (a quiet machine; about 2 minutes)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import llama_server  # noqa: E402


def main() -> None:
    print(f"load before {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("| rubric | n | kappa [95 % CI] | accuracy | unscored | s/item |")
    print("|---|---|---|---|---|---|")
    with llama_server.running_server(model_name="qwen1.5b") as server:
        for rubric in sorted((ROOT / "examples" / "rubrics").glob("*.yaml")):
            data = ROOT / "examples" / "rubrics" / "data" / f"{rubric.stem}.jsonl"
            env = {**os.environ, "RAGJURY_BASE_URL": server.base_url, "RAGJURY_CACHE_PATH": "/tmp/ragjury-rubrics.sqlite"}
            started = time.perf_counter()
            done = subprocess.run([str(Path(sys.executable).parent / "ragjury"), "evaluate", "--task", "faithfulness",
                                   "--judge", f"rubric:{rubric}", "--data", str(data), "--no-progress", "--json"],
                                  env=env, capture_output=True, text=True, timeout=900)
            seconds = time.perf_counter() - started
            payload = json.loads(done.stdout)
            agreement = payload.get("agreement") or {}
            kappa = agreement.get("cohen_kappa")
            low, high = (payload.get("intervals") or {}).get("cohen_kappa") or (None, None)
            kappa_text = "—" if kappa is None else f"{kappa:.2f} [{low:.2f}, {high:.2f}]" if low is not None else f"{kappa:.2f}"
            accuracy = agreement.get("accuracy")
            print(f"| {rubric.stem} | {payload['n']} | {kappa_text} | {accuracy if accuracy is None else f'{accuracy:.2f}'} | "
                  f"{payload['unscored']} | {seconds / payload['n']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
