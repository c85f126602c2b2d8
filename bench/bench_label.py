"""The labelling page's own time per label, in a real Chromium: key press -> act saved and synced on
the server -> next item drawn (the page's ``ragjuryTimings``), median and p95, on 1,000-item plans,
with ``--prefill`` acts already in the labels file (another annotator's), and the p95 of the first
and of the last 100 labels (the page reads the file from where its last read ended: no growth);
and the SIGKILL check (acknowledged labels kept exactly once over 20 kills).

    python bench/bench_label.py [--items 1000] [--labels 300] [--prefill 900] [--kills 20]

Needs Debian's chromium and chromium-driver and Selenium (the dev extra). Say how quiet the machine was.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from label_page import available, body_data, browser, serving, wait_for, write_items  # noqa: E402


def prefill(out: Path, items: Path, n: int) -> None:
    """``n`` acts of another annotator (pat) already in the labels file."""
    import json

    ids = [json.loads(line) for line in items.read_text().splitlines()]
    with out.open("w") as handle:
        for k in range(n):
            row = ids[k % len(ids)]
            handle.write(json.dumps({"id": row["id"], "system": row["system"], "act": "label", "label": k % 2 == 0,
                                     "annotator": "pat", "at": "2026-01-01T00:00:00Z", "seconds": 3.0}) + "\n")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]


def timings(n_items: int, n_labels: int, n_prefill: int = 0) -> list[float]:
    from selenium.webdriver.common.action_chains import ActionChains

    with tempfile.TemporaryDirectory() as tmp:
        items, out = Path(tmp) / "plan.jsonl", Path(tmp) / "labels.jsonl"
        write_items(items, n_items)
        prefill(out, items, n_prefill)
        with serving(items, out) as (_, url), browser() as driver:
            driver.get(url)  # type: ignore[attr-defined]
            wait_for(driver, lambda: body_data(driver, "itemId") != "")
            for k in range(n_labels):
                ActionChains(driver).send_keys("y" if k % 2 else "n").perform()
                wait_for(driver, lambda: body_data(driver, "done") == str(k + 1))
            time.sleep(0.1)
            return list(driver.execute_script("return window.ragjuryTimings"))  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--labels", type=int, default=300)
    parser.add_argument("--prefill", type=int, default=900, help="acts already in the labels file")
    parser.add_argument("--kills", type=int, default=20)
    args = parser.parse_args()
    if not available():
        print("needs chromium, chromedriver and selenium", file=sys.stderr)
        return 2
    measured = timings(args.items, args.labels, args.prefill)
    ms = sorted(measured)
    print(f"time per label (key -> saved -> next item drawn), {args.items}-item plan, {args.prefill} acts already "
          f"in the file, {len(ms)} labels: median {statistics.median(ms):.1f} ms, p95 {p95(ms):.1f} ms, "
          f"max {ms[-1]:.1f} ms")
    if len(measured) >= 200:
        print(f"p95 of the first 100 labels {p95(measured[:100]):.1f} ms, of the last 100 {p95(measured[-100:]):.1f} ms")
    if args.kills:
        import pytest

        code = pytest.main(["-q", "-p", "no:cacheprovider",
                            str(ROOT / "tests/unit/evals/labelling/test_label_kill.py")])
        print(f"SIGKILL at 20 random moments of a scripted session: {'every acknowledged label kept exactly once, the file parses, resume at the next item' if code == 0 else 'FAILED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
