"""The words of a ``--judge`` value beyond a judge's own name: ``auto``, panels and plug-ins.

Why here, at the bottom: the catalogue resolves these words, but others need to recognise them
without importing it (a calibration file fitted on a panel takes no judge options).
"""

from __future__ import annotations

AUTO = "auto"
PLUGIN_PREFIX = "python:"
PANEL_PREFIXES: dict[str, str] = {"panel:": "majority", "panel-mean:": "mean"}
"""``--judge panel:A,B,C`` (majority vote) and ``panel-mean:A,B,C`` (mean probability)."""
FITTED_PREFIX = "fitted:"
"""``--judge fitted:HEAD.json``: a head fitted on the user's labels by ``ragjury fit``."""
RUBRIC_PREFIX = "rubric:"
"""``--judge rubric:RUBRIC.yaml``: the user's own criterion in plain words (``judges.llm.rubric``)."""
RUBRIC_TEXT_PREFIX = "rubric-text:"
"""``--judge "rubric-text:The answer cites a source"`` (what ``--rubric TEXT`` gives): a one-line rubric."""
CROSS_ENCODER_PREFIX = "cross-encoder:"
"""``--judge cross-encoder:DIR``: a local sequence-classification checkpoint (config, weights,
tokenizer; ``model.onnx`` runs without torch) read as a text pair, giving P(yes)
(``judges.model_free.cross_encoder``). A panel splits its members on commas, so a folder whose path
holds a comma cannot be a panel member: link it under another name."""
CHECK_NAME_PREFIX = "evaluator:"
"""The judge name of a user's Python check (``CheckJudge``): ``evaluator:CHECK``."""


def is_panel(spec: str) -> bool:
    """Whether a ``--judge`` value names a panel of judges."""
    return spec.startswith(tuple(PANEL_PREFIXES))


__all__ = ["AUTO", "CHECK_NAME_PREFIX", "CROSS_ENCODER_PREFIX", "FITTED_PREFIX", "PANEL_PREFIXES", "PLUGIN_PREFIX", "RUBRIC_PREFIX", "RUBRIC_TEXT_PREFIX", "is_panel"]
