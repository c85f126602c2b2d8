"""The words of a ``--judge`` value are known below the catalogue: stats need not import it."""

from __future__ import annotations

import subprocess
import sys

from ragjury.rag_agent.core.judge_spec import is_panel


def test_panels_are_recognised_by_their_prefix() -> None:
    assert is_panel("panel:llm,contains") and is_panel("panel-mean:llm,semantic")
    assert not is_panel("llm") and not is_panel("python:mod:Panel")


def test_calibration_options_do_not_import_the_catalogue() -> None:
    code = (
        "import sys\n"
        "from ragjury.evals.stats.calibration import logprob_options\n"
        "assert logprob_options('panel-mean:llm,semantic') == {} and logprob_options('llm') == {'method': 'logprobs'}\n"
        "assert logprob_options('support', model_free=True) == {}\n"
        "assert 'ragjury.rag_agent.judges.catalogue' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
