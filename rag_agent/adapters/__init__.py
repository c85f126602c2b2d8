"""ragjury judges inside other evaluation frameworks.

- ``rag_agent.adapters.pydantic_evals``: ``RagjuryEvaluator``, a pydantic-evals ``Evaluator``
  (extra ``ragjury[pydantic-evals]``).
- ``rag_agent.adapters.inspect``: ``ragjury_scorer``, an Inspect scorer (extra ``ragjury[inspect]``).
- ``rag_agent.adapters.pytest_helpers``: ``assert_judged``, a test assertion (needs nothing more).

Why a package of small modules: each framework is optional, and importing one adapter must not
import the others' frameworks. What they share (building a judge's item from the loose fields a
framework hands over, and reading a judgment's label, score and reason) is in
``rag_agent.adapters.judging``. In all three, an unscored judgment is a failure that carries the
judge's reason, never a 0.
"""

__all__: list[str] = []
