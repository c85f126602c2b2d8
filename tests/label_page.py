"""Drive ``ragjury label``'s page in a real Chromium (Debian's chromium + chromium-driver, Selenium).

Shared by the Chromium tests and ``bench/bench_label.py``: start the real command in a subprocess,
read its address from stderr, and open it in headless Chromium with the performance log on (every
request the page makes is listed, so a test can say none left 127.0.0.1).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = next((p for n in ("chromium", "chromium-browser") if (p := shutil.which(n))), None)
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900")


def available() -> bool:
    if CHROMIUM is None or CHROMEDRIVER is None:
        return False
    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    return True


def write_items(path: Path, n: int, *, answer=None) -> None:  # type: ignore[no-untyped-def]
    """A label plan of ``n`` correctness items (the judge's verdict and probability on each)."""
    with path.open("w") as handle:
        for k in range(n):
            handle.write(json.dumps({
                "id": f"q{k:04d}", "system": "A" if k % 2 else "B", "label": None, "inclusion_probability": 0.5,
                "judge_label": k % 3 == 0, "judge_probability": round(0.05 + 0.9 * k / max(1, n - 1), 4),
                "question": f"Question {k}: who wrote play number {k}?",
                "answer": answer(k) if answer else f"Answer {k}: " + "a long answer that wraps. " * (1 + k % 7),
                "references": [f"Reference {k}"],
            }) + "\n")


@contextmanager
def serving(items: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """``ragjury label ITEMS --out OUT --no-browser`` in a subprocess; yields it and the page address."""
    cmd = [sys.executable, "-m", "ragjury.cli", "label", str(items), "--out", str(out), "--no-browser", *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {}), "COLUMNS": "200"})
    try:
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and url is None:
            line = proc.stderr.readline()  # type: ignore[union-attr]
            if not line:
                if proc.poll() is not None:
                    raise RuntimeError(f"ragjury label exited {proc.returncode}: {proc.stdout.read()}")  # type: ignore[union-attr]
                continue
            found = re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", line)
            url = found.group(1) if found else None
        if url is None:
            raise RuntimeError("no address printed")
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


@contextmanager
def browser() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # type: ignore[assignment]
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={Path(os.environ.get('TMPDIR', '/tmp')) / f'chromium-{os.getpid()}-{time.time_ns()}'}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def requested_urls(driver) -> list[str]:  # type: ignore[no-untyped-def]
    """Every URL the page asked for since the last call (Chromium's performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def wait_for(driver, condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.002)
    raise TimeoutError("the page did not get there")


def body_data(driver, name: str) -> str:  # type: ignore[no-untyped-def]
    return driver.execute_script(f"return document.body.dataset.{name} || ''")
