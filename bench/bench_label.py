"""The labelling page's own time per label, in a real Chromium: key press -> act saved and synced on
the server -> next item drawn (the page's ``ragjuryTimings``), median and p95, on 1,000-item plans;
and the SIGKILL check (acknowledged labels kept exactly once over 20 kills).

    python bench/bench_label.py [--items 1000] [--labels 300] [--kills 20]

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


def timings(n_items: int, n_labels: int) -> list[float]:
    from selenium.webdriver.common.action_chains import ActionChains

    with tempfile.TemporaryDirectory() as tmp:
        items, out = Path(tmp) / "plan.jsonl", Path(tmp) / "labels.jsonl"
        write_items(items, n_items)
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
    parser.add_argument("--kills", type=int, default=20)
    args = parser.parse_args()
    if not available():
        print("needs chromium, chromedriver and selenium", file=sys.stderr)
        return 2
    ms = sorted(timings(args.items, args.labels))
    p95 = ms[int(0.95 * (len(ms) - 1))]
    print(f"time per label (key -> saved -> next item drawn), {args.items}-item plan, {len(ms)} labels: "
          f"median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms")
    if args.kills:
        import pytest

        code = pytest.main(["-q", "-p", "no:cacheprovider",
                            str(ROOT / "tests/unit/evals/labelling/test_label_kill.py")])
        print(f"SIGKILL at 20 random moments of a scripted session: {'every acknowledged label kept exactly once, the file parses, resume at the next item' if code == 0 else 'FAILED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
