"""What a test's child process needs to meet a signal as an interactive user's command would."""

from __future__ import annotations

import signal


def sigint_at_default() -> None:
    """Runs in the child before exec: SIGINT back to its default disposition.

    A test run launched in the background by a non-interactive shell (``pytest &``, CI runners,
    nohup) starts with SIGINT ignored, and children inherit that; Python then installs no
    KeyboardInterrupt handler and the SIGINT a test sends would do nothing. ragjury itself
    keeps an inherited "ignore" on purpose (the Unix convention nohup relies on), so a test
    gives its child the disposition an interactive Ctrl-C would meet.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
