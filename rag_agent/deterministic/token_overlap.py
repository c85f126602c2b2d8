"""TokenOverlapJudge: Evret's keyword relevance rule, vectorised over a whole batch.

Why a re-implementation: Evret's judge (PyPI ``evret``) loops over pairs in Python and
re-tokenises every text for every pair. Batches repeat texts (one expected passage against
many retrieved ones), so this version analyses each distinct text once, turns content tokens
into a sparse matrix, and decides every pair with a few array operations. Verdicts are the
same as Evret's on the same inputs (``bench/bench_deterministic_speed.py`` checks 100,000).

Two scoring rules (``scoring=``):

``"weighted"`` (default, Evret 0.0.3, the release on PyPI)
    1. normalised texts equal (lowercase, whitespace collapsed) -> True;
    2. exactly one text contains a negation word (no, not, never, none, without, cannot) -> False;
    3. either normalised text contains the other -> True;
    4. content tokens (``[a-z0-9]+`` runs, stopwords removed): fewer than ``min_tokens`` shared
       -> False; otherwise score = weight of shared tokens / weight of expected tokens (digits
       1.5, tokens of 1-2 chars 0.75, of 8+ chars 1.35, others 1.0), plus a phrase bonus
       (0.05 per extra token of the longest expected 2-4 token phrase found in the retrieved
       text, at most 0.15), plus 0.1 when ``query_boost`` and a shared token is a query token;
       True when the score (clamped to [0, 1]) reaches ``threshold``.

``"ratio"`` (Evret 0.0.1, the rule as the issue states it)
    1-3 as above without the negation rule; then shared / expected content tokens must reach
    ``threshold`` and ``min_tokens`` tokens must be shared; with ``query_boost``, a pair whose
    shared tokens include a query token passes at ``0.75 * threshold``. (Evret 0.0.1 kept
    stopwords: ``stopwords=()`` reproduces it exactly.)

``min_tokens`` defaults to Evret's default for the rule: 15 (weighted) or 2 (ratio). Short
answers (a name, a date) never share 15 tokens: for them use ``min_tokens=1``.

Where this judge differs from Evret, on purpose:
- An empty (or whitespace-only) retrieved or expected text is UNSCORED with a reason. Evret
  answers True for two empty texts and False for one, which is not a judgment.
- ``expected_text=None`` (Evret has no such case) judges relevance to the query: the query
  stands in for the expected text, ``min_tokens`` is capped at ``ceil(threshold x distinct
  query content tokens)`` (a 4-word query can never share 15), the query boost is off (every shared
  token would be a query token) and so is the negation rule (questions are phrased
  differently from the passages that answer them).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Literal

import numpy as np
from scipy import sparse

from rag_agent.deterministic._envelopes import batch_envelopes
from rag_agent.items import JudgmentContext
from rag_agent.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from rag_agent.results import Judgment

Scoring = Literal["weighted", "ratio"]

EVRET_TOKEN = re.compile(r"[a-z0-9]+")
"""Evret's tokenizer: ASCII letter/digit runs of the lowercased text (accents split words)."""

EVRET_STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against ain all am an and any are aren as at be because been before
    being below between both but by can couldn d did didn do does doesn doing don down during each few
    for from further had hadn has hasn have haven having he her here hers herself him himself his how i
    if in into is isn it its itself just ll m ma me mightn more most mustn my myself needn no nor not now
    o of off on once only or other our ours ourselves out over own re s same shan she should shouldn so
    some such t than that the their theirs them themselves then there these they this those through to
    too under until up ve very was wasn we were weren what when where which while who whom why will with
    won wouldn y you your yours yourself yourselves""".split()
)
"""Evret's default stopwords (NLTK's English list) minus the entries with an apostrophe, which
its tokenizer can never produce, so the verdicts are the same."""

NEGATIONS: frozenset[str] = frozenset({"no", "not", "never", "none", "without", "cannot"})

DEFAULT_MIN_TOKENS: dict[str, int] = {"weighted": 15, "ratio": 2}
QUERY_BONUS = 0.1
RELAXED_FACTOR = 0.75
_EPS = 1e-9
"""Pairs whose vectorised score lies this close to the threshold are re-scored with the exact
per-pair float arithmetic, so rounding in a different summation order never flips a verdict."""


def evret_normalise(text: str) -> str:
    """Evret's comparison form: lowercase, whitespace collapsed."""
    return " ".join(text.lower().split())


def token_weight(token: str) -> float:
    """Evret's token weights: numbers count most, long words more, very short words less."""
    if token.isdigit():
        return 1.5
    if len(token) <= 2:
        return 0.75
    if len(token) >= 8:
        return 1.35
    return 1.0


def _weight20(token: str) -> int:
    """``token_weight`` times 20: an integer, so batch sums are exact."""
    return int(round(token_weight(token) * 20))


def phrase_bonus(expected_tokens: Sequence[str], retrieved_norm: str) -> float:
    """0.05 per extra token of the longest 2-4 token run of ``expected_tokens`` that occurs as a
    substring of ``retrieved_norm`` (at most 0.15); 0.0 for fewer than two tokens."""
    count = len(expected_tokens)
    for size in range(min(4, count), 1, -1):
        for start in range(count - size + 1):
            if " ".join(expected_tokens[start : start + size]) in retrieved_norm:
                return min(0.05 * (size - 1), 0.15)
    return 0.0


@dataclass
class _Analysis:
    """Everything the batch needs about its distinct texts, each computed once per text.

    The vectorised path needs only the arrays; the per-text strings, lists and sets (for the
    few pairs that need the exact per-pair arithmetic) are built lazily and cached.
    """

    texts: list[str]
    tokens: list[list[str]]  # Evret's tokens of each text, stopwords included, in order
    negation: np.ndarray  # bool: the text has a negation word
    content: sparse.csr_matrix  # distinct content tokens (binary), one row per text
    set_size: np.ndarray  # distinct content tokens per text
    bonus_bound: np.ndarray  # the largest phrase bonus the text could earn as expected text
    weight: np.ndarray  # sum of token weights x 20 per text (int64)
    token_weight20: np.ndarray  # per vocabulary id
    stopwords: frozenset[str]
    _norms: dict[int, str]
    _content: dict[int, tuple[list[str], set[str], float]]
    _phrases: dict[int, dict[int, list[str]]]

    def norm(self, index: int) -> str:
        """Evret's normalised form."""
        cached = self._norms.get(index)
        if cached is None:
            cached = self._norms[index] = evret_normalise(self.texts[index])
        return cached

    def content_of(self, index: int) -> tuple[list[str], set[str], float]:
        """Content tokens in order, their set built as Evret builds it, and its float weight
        summed in that set's iteration order (so sums equal Evret's to the last bit)."""
        cached = self._content.get(index)
        if cached is None:
            stop = self.stopwords
            ordered = [token for token in self.tokens[index] if token not in stop]
            distinct = set(ordered)
            cached = self._content[index] = (ordered, distinct, sum(_weight(token) for token in distinct))
        return cached

    def phrases(self, index: int, size: int) -> list[str]:
        """The text's content-token runs of ``size`` tokens joined by spaces (phrase-bonus needles)."""
        by_size = self._phrases.setdefault(index, {})
        cached = by_size.get(size)
        if cached is None:
            ordered = self.content_of(index)[0]
            cached = by_size[size] = [" ".join(ordered[i : i + size]) for i in range(len(ordered) - size + 1)]
        return cached


_WEIGHTS: dict[str, float] = {}


def _weight(token: str) -> float:
    weight = _WEIGHTS.get(token)
    if weight is None:
        weight = token_weight(token)
        if len(_WEIGHTS) < 1_000_000:
            _WEIGHTS[token] = weight
    return weight


class TokenOverlapJudge(BaseJudge[JudgmentContext, bool]):
    """Is ``retrieved_text`` the expected text (or relevant to the query)? Evret's token rule.

    Example::

        judge = TokenOverlapJudge(min_tokens=1)
        judge.judge(JudgmentContext(query="capital of France", expected_text="Paris",
                                    retrieved_text="The capital is Paris."))  # True (substring)
    """

    name = "token_overlap"

    def __init__(
        self,
        *,
        threshold: float = 0.6,
        min_tokens: int | None = None,
        query_boost: bool = True,
        scoring: Scoring = "weighted",
        stopwords: Iterable[str] | None = None,
        chunk_size: int = 25_000,
    ) -> None:
        if scoring not in DEFAULT_MIN_TOKENS:
            raise ValueError(f"scoring must be 'weighted' or 'ratio', not {scoring!r}")
        if not 0 < threshold <= 1:
            raise ValueError("threshold must be in (0, 1]")
        resolved = DEFAULT_MIN_TOKENS[scoring] if min_tokens is None else min_tokens
        if resolved < 1:
            raise ValueError("min_tokens must be >= 1")
        self.threshold = float(threshold)
        self.min_tokens = int(resolved)
        self.query_boost = bool(query_boost)
        self.scoring: Scoring = scoring
        self.stopwords = EVRET_STOPWORDS if stopwords is None else frozenset(stopwords)
        self.chunk_size = max(1, chunk_size)

    @property
    def identity(self) -> JudgeIdentity:
        stop = "evret" if self.stopwords == EVRET_STOPWORDS else f"custom{len(self.stopwords)}"
        return JudgeIdentity(
            name=self.name,
            prompt_version=f"token_overlap_{self.scoring}@1.0",
            params=(
                f"threshold={self.threshold},min_tokens={self.min_tokens},"
                f"query_boost={self.query_boost},stopwords={stop}"
            ),
        )

    # -- public conveniences ---------------------------------------------------------------

    def judge(self, ctx: JudgmentContext) -> bool:
        """The verdict for one pair; raises ``JudgmentUnscored`` for empty text."""
        return self.batch_judge([ctx])[0]

    def batch_judge(self, ctxs: Sequence[JudgmentContext]) -> list[bool]:
        """Verdicts for many pairs in one vectorised pass; raises ``JudgmentUnscored`` when any
        pair cannot be judged (use ``ajudge_batch`` to get per-pair envelopes instead)."""
        verdicts, reasons = self.decide(ctxs)
        for reason in reasons:
            if reason is not None:
                raise JudgmentUnscored(reason)
        return verdicts.tolist()

    async def _judge(self, item: JudgmentContext) -> Judgment[bool]:
        started = time.perf_counter()
        verdicts, reasons = self.decide([item])
        if reasons[0] is not None:
            return self.unscored(reasons[0], started=started)
        return self.scored(bool(verdicts[0]), started=started)

    async def ajudge_batch(
        self, items: Sequence[JudgmentContext], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[bool]]:
        """All envelopes from one vectorised pass (no per-item task); latency is the batch's share."""
        started = time.perf_counter()
        verdicts, reasons = self.decide(items)
        return batch_envelopes(
            self, verdicts.tolist(), reasons, elapsed_s=time.perf_counter() - started, on_result=on_result
        )

    # -- the vectorised core -----------------------------------------------------------------

    def decide(self, ctxs: Sequence[JudgmentContext]) -> tuple[np.ndarray, list[str | None]]:
        """Verdicts (bool array) and, per pair, the reason it is unscored or ``None``."""
        queries = list(map(attrgetter("query"), ctxs))
        expected = list(map(attrgetter("expected_text"), ctxs))
        retrieved = list(map(attrgetter("retrieved_text"), ctxs))
        return self.decide_texts(queries, expected, retrieved)

    def decide_texts(
        self, queries: Sequence[str], expected: Sequence[str | None], retrieved: Sequence[str]
    ) -> tuple[np.ndarray, list[str | None]]:
        """``decide`` on plain string sequences (no item objects needed)."""
        n = len(retrieved)
        if not (len(queries) == len(expected) == n):
            raise ValueError("queries, expected and retrieved must have the same length")
        if None in expected:
            query_mode = np.fromiter((text is None for text in expected), dtype=bool, count=n)
            targets: Sequence[str] = [q if e is None else e for q, e in zip(queries, expected)]
        else:
            query_mode = np.zeros(n, dtype=bool)
            targets = expected  # type: ignore[assignment]
        ids: dict[str, int] = {text: i for i, text in enumerate(dict.fromkeys(chain(targets, retrieved, queries)))}
        e = np.fromiter(map(ids.__getitem__, targets), dtype=np.int64, count=n)
        r = np.fromiter(map(ids.__getitem__, retrieved), dtype=np.int64, count=n)
        q = np.fromiter(map(ids.__getitem__, queries), dtype=np.int64, count=n)
        texts = list(ids)
        blank = np.fromiter((not text.strip() for text in texts), dtype=bool, count=len(texts))
        reasons: list[str | None] = [None] * n
        for i in np.flatnonzero(blank[r] | blank[e]).tolist():
            if blank[r[i]]:
                reasons[i] = "empty retrieved text: nothing to judge"
            elif query_mode[i]:
                reasons[i] = "empty query and no expected text: nothing to judge against"
            else:
                reasons[i] = "empty expected text: nothing to match"
        info = self._analyse(texts)
        verdicts = np.zeros(n, dtype=bool)
        for start in range(0, n, self.chunk_size):
            stop = min(n, start + self.chunk_size)
            verdicts[start:stop] = self._decide_chunk(
                info, e[start:stop], r[start:stop], q[start:stop], query_mode[start:stop]
            )
        verdicts[blank[r] | blank[e]] = False
        return verdicts, reasons

    def _analyse(self, texts: list[str]) -> _Analysis:
        """Tokenise each distinct text once: negation flag, content-token set, weights."""
        stop = self.stopwords
        findall = EVRET_TOKEN.findall
        tokens: list[list[str]] = [findall(text.lower()) for text in texts]
        sets: list[set[str]] = [set(found) for found in tokens]
        negation = np.fromiter((not found.isdisjoint(NEGATIONS) for found in sets), dtype=bool, count=len(sets))
        for distinct in sets:
            distinct -= stop
        token_count = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        sizes = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
        # The largest phrase bonus a text could earn as the expected text; the count of all its
        # tokens bounds its content-token count, so the bound never underestimates.
        bonus_bound = np.where(
            (sizes > 0) & (token_count >= 2), np.minimum(0.05 * (np.minimum(4, token_count) - 1), 0.15), 0.0
        )
        indptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        flat = list(chain.from_iterable(sets))
        vocab_tokens, indices = _vocabulary(flat)
        width = max(1, len(vocab_tokens))
        matrix = sparse.csr_matrix((np.ones(indices.size, dtype=np.int64), indices, indptr), shape=(len(sets), width))
        matrix.sort_indices()
        weights = np.zeros(width, dtype=np.int64)
        if vocab_tokens:
            lengths = np.fromiter(map(len, vocab_tokens), dtype=np.int64, count=len(vocab_tokens))
            digits = np.fromiter(map(str.isdigit, vocab_tokens), dtype=bool, count=len(vocab_tokens))
            weights[: len(vocab_tokens)] = np.where(
                digits, 30, np.where(lengths <= 2, 15, np.where(lengths >= 8, 27, 20))
            )
        return _Analysis(
            texts=texts,
            tokens=tokens,
            negation=negation,
            content=matrix,
            set_size=sizes,
            bonus_bound=bonus_bound,
            weight=matrix @ weights,
            token_weight20=weights,
            stopwords=stop,
            _norms={},
            _content={},
            _phrases={},
        )

    def _decide_chunk(
        self, info: _Analysis, e: np.ndarray, r: np.ndarray, q: np.ndarray, query_mode: np.ndarray
    ) -> np.ndarray:
        n = e.size
        verdict = np.zeros(n, dtype=bool)
        decided = e == r  # the same text: normalised forms are equal
        verdict[decided] = True
        live = np.flatnonzero(~decided)
        if live.size == 0:
            return verdict
        e_l, r_l, q_l, query_l = e[live], r[live], q[live], query_mode[live]
        size_e, size_r = info.set_size[e_l], info.set_size[r_l]

        # Shared content tokens of every pair: one sparse element-wise product.
        shared = info.content[e_l].multiply(info.content[r_l]).tocsr()
        shared_count = np.diff(shared.indptr)

        # Equal or containing texts. If the shorter normalised text occurs inside the longer one,
        # all its content tokens but the first and last (which may be cut) are tokens of the
        # longer one, so only pairs within 2 of full overlap need the real string comparison.
        out = np.zeros(live.size, dtype=bool)
        done = np.zeros(live.size, dtype=bool)
        weighted = self.scoring == "weighted"
        mismatch = (info.negation[e_l] != info.negation[r_l]) & ~query_l if weighted else np.zeros(live.size, bool)
        for i in np.flatnonzero(shared_count >= np.minimum(size_e, size_r) - 2).tolist():
            a, b = info.norm(int(e_l[i])), info.norm(int(r_l[i]))
            if a == b:
                out[i] = done[i] = True
            elif not mismatch[i] and a and b and ((a in b) if len(a) <= len(b) else (b in a)):
                out[i] = done[i] = True
        done |= mismatch

        query_cap = np.maximum(1, np.ceil(self.threshold * size_e - _EPS)).astype(np.int64)
        min_tokens = np.where(query_l, np.minimum(self.min_tokens, query_cap), self.min_tokens)
        open_ = ~done & (size_e > 0) & (size_r > 0) & (shared_count >= min_tokens)
        boosted = np.zeros(live.size, dtype=bool)
        if self.query_boost and open_.any():
            hits = shared.multiply(info.content[q_l]).tocsr()
            boosted = (np.diff(hits.indptr) > 0) & ~query_l

        if self.scoring == "ratio":
            ratio = shared_count / np.maximum(size_e, 1)
            passed = (ratio >= self.threshold) | (boosted & (ratio >= self.threshold * RELAXED_FACTOR))
            out[open_] = passed[open_]
        else:
            base = (shared @ info.token_weight20) / np.maximum(info.weight[e_l], 1)
            low = base + np.where(boosted, QUERY_BONUS, 0.0)
            sure = open_ & (np.minimum(low, 1.0) >= self.threshold + _EPS)
            out[sure] = True
            high = low + info.bonus_bound[e_l]
            for i in np.flatnonzero(open_ & ~sure & (np.minimum(high, 1.0) >= self.threshold - _EPS)).tolist():
                out[i] = self._near_threshold(info, int(q_l[i]), int(e_l[i]), int(r_l[i]), float(low[i]), bool(boosted[i]))
        verdict[live] = out
        return verdict

    def _near_threshold(self, info: _Analysis, q: int, e: int, r: int, low: float, boosted: bool) -> bool:
        """A pair that only the phrase bonus (or float rounding) can decide.

        The bonus is searched from 4-token phrases down, but only at sizes whose bonus could
        still reach the threshold; the score is then exact up to rounding, and a score within
        rounding distance of the threshold is recomputed with Evret's float arithmetic.
        """
        need = self.threshold - low
        retrieved_norm = info.norm(r)
        bonus = 0.0
        for size in (4, 3, 2):
            level = min(0.05 * (size - 1), 0.15)
            if level < need - _EPS:
                break
            if any(phrase in retrieved_norm for phrase in info.phrases(e, size)):
                bonus = level
                break
        estimate = min(low + bonus, 1.0)
        if estimate >= self.threshold + _EPS:
            return True
        if estimate < self.threshold - _EPS:
            return False
        return self._weighted_score_exact(info, e, r, bonus=bonus, boosted=boosted) >= self.threshold

    @staticmethod
    def _weighted_score_exact(info: _Analysis, e: int, r: int, *, bonus: float, boosted: bool) -> float:
        """Evret's weighted score of one pair, operation for operation: the same sets, the same
        summation order, the same additions, so the float result is the same."""
        _, expected_set, expected_weight = info.content_of(e)
        shared = expected_set & info.content_of(r)[1]
        score = sum(map(_weight, shared)) / expected_weight if expected_weight else 0.0
        score += bonus
        if boosted:
            score += QUERY_BONUS
        return max(0.0, min(1.0, score))


def _vocabulary(flat: list[str]) -> tuple[list[str], np.ndarray]:
    """Distinct tokens and the id of each token of ``flat``.

    Ids come from the strings' hashes (one C-level pass, then a sort of integers); if two
    distinct tokens ever shared a hash, the count of distinct hashes would fall short of the
    count of distinct strings, and a dictionary assigns the ids instead.
    """
    if not flat:
        return [], np.zeros(0, dtype=np.int64)
    hashes = np.fromiter(map(hash, flat), dtype=np.int64, count=len(flat))
    unique, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    distinct = dict.fromkeys(flat)
    if unique.size == len(distinct):
        return [flat[i] for i in first.tolist()], inverse.astype(np.int64, copy=False)
    ids = {token: i for i, token in enumerate(distinct)}
    return list(distinct), np.fromiter(map(ids.__getitem__, flat), dtype=np.int64, count=len(flat))
