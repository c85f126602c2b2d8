"""TokenOverlapJudge: Evret's keyword relevance rule, vectorised over a whole batch.

Evret (PyPI ``evret``) re-tokenises every text for every pair, while batches repeat texts; here
each distinct text is analysed once and pairs are decided with sparse-matrix operations. Verdicts
are Evret's, except on purpose: exact ties are decided by exact arithmetic (Evret's float sums
follow the string hash seed, so a tie flips between processes) and an empty text is unscored.
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

from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes

Scoring = Literal["weighted", "ratio"]

EVRET_TOKEN = re.compile(r"[a-z0-9]+")
"""Evret's tokenizer: ASCII letter/digit runs of the lowercased text (accents split words)."""

_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_SPACE_OUT = bytes(byte if byte in _KEEP else 32 for byte in range(256))


def evret_tokens(text: str) -> list[str]:
    """``EVRET_TOKEN.findall(text.lower())``, faster: in UTF-8 every byte of a non-ASCII
    character is >= 0x80, so blanking every byte but ``a-z0-9`` and splitting gives the same
    tokens in a third less time than the regex engine."""
    return text.lower().encode("utf-8", "surrogatepass").translate(_SPACE_OUT).decode("ascii").split()


EVRET_STOPWORDS: frozenset[str] = frozenset(
    ["a", "about", "above", "after", "again", "against", "ain", "all", "am", "an", "and", "any", "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "couldn", "d", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during", "each", "few", "for", "from", "further", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "isn", "it", "its", "itself", "just", "ll", "m", "ma", "me", "mightn", "more", "most", "mustn", "my", "myself", "needn", "no", "nor", "not", "now", "o", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "re", "s", "same", "shan", "she", "should", "shouldn", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "ve", "very", "was", "wasn", "we", "were", "weren", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "won", "wouldn", "y", "you", "your", "yours", "yourself", "yourselves"]
)
"""Evret's default stopwords (NLTK's English list) minus the entries with an apostrophe, which
its tokenizer can never produce, so the verdicts are the same."""

NEGATIONS: frozenset[str] = frozenset({"no", "not", "never", "none", "without", "cannot"})

DEFAULT_MIN_TOKENS: dict[str, int] = {"weighted": 15, "ratio": 2}
QUERY_BONUS = 0.1
RELAXED_FACTOR = 0.75
_QUERY, _EXPECTED, _RETRIEVED = attrgetter("query"), attrgetter("expected_text"), attrgetter("retrieved_text")
_EPS = 1e-12
"""Scores are exact fractions (weights are multiples of 1/20) computed in floating point: a
score within this distance of the threshold equals it, and reaches it."""


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

    The vectorised path needs only the arrays; normalised strings and phrases (for the few
    pairs whose verdict hangs on a substring test or the phrase bonus) are built lazily.
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
    _phrases: dict[int, dict[int, list[str]]]

    def norm(self, index: int) -> str:
        """Evret's normalised form."""
        cached = self._norms.get(index)
        if cached is None:
            cached = self._norms[index] = evret_normalise(self.texts[index])
        return cached

    def phrases(self, index: int, size: int) -> list[str]:
        """The text's content-token runs of ``size`` tokens joined by spaces (phrase-bonus needles)."""
        by_size = self._phrases.setdefault(index, {})
        cached = by_size.get(size)
        if cached is None:
            ordered = [token for token in self.tokens[index] if token not in self.stopwords]
            cached = by_size[size] = [" ".join(ordered[i : i + size]) for i in range(len(ordered) - size + 1)]
        return cached


@judge_entry("relevance", "token-overlap", "token overlap, query/passage")
@judge_entry("correctness", "token-overlap", "token overlap of answer and a reference", adapt="correctness")
@judge_entry("faithfulness", "token-overlap", "token overlap of answer and context", adapt="faithfulness")
class TokenOverlapJudge(BaseJudge[RelevanceItem, bool]):
    """Is ``retrieved_text`` the expected text (or relevant to the query)? Evret's token rule.

    Example::

        judge = TokenOverlapJudge(min_tokens=1)
        judge.judge(RelevanceItem(query="capital of France", expected_text="Paris",
                                    retrieved_text="The capital is Paris."))  # True (substring)

    ``scoring="weighted"`` (default, Evret 0.0.3): equal normalised texts match; a negation word
    in exactly one text refuses; containment either way matches; else, with ``min_tokens``
    shared, the weighted share of expected content tokens (``token_weight``) plus the phrase and
    query bonuses must reach ``threshold``. ``scoring="ratio"`` (Evret 0.0.1): no negation rule,
    the plain share of shared tokens; a shared query token passes at ``0.75 * threshold``
    (``stopwords=()`` reproduces 0.0.1 exactly). ``min_tokens`` defaults to Evret's 15
    (weighted) or 2 (ratio): use 1 for short answers. ``expected_text=None`` judges relevance
    to the query: ``min_tokens`` capped to the query's size, query boost and negation rule off.
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

    def judge(self, ctx: RelevanceItem) -> bool:
        """The verdict for one pair; raises ``JudgmentUnscored`` for empty text."""
        return self.batch_judge([ctx])[0]

    def batch_judge(self, ctxs: Sequence[RelevanceItem]) -> list[bool]:
        """Verdicts for many pairs in one vectorised pass; raises ``JudgmentUnscored`` when any
        pair cannot be judged (use ``ajudge_batch`` to get per-pair envelopes instead)."""
        verdicts, reasons = self.decide(ctxs)
        for reason in reasons:
            if reason is not None:
                raise JudgmentUnscored(reason)
        return verdicts.tolist()

    async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
        started = time.perf_counter()
        verdicts, reasons = self.decide([item])
        if reasons[0] is not None:
            return self.unscored(reasons[0], started=started)
        return self.scored(bool(verdicts[0]), started=started)

    async def ajudge_batch(
        self, items: Sequence[RelevanceItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[bool]]:
        """All envelopes from one vectorised pass (no per-item task); latency is the batch's share."""
        started = time.perf_counter()
        verdicts, reasons = self.decide(items)
        return batch_envelopes(
            self, verdicts.tolist(), reasons, elapsed_s=time.perf_counter() - started, on_result=on_result
        )

    # -- the vectorised core -----------------------------------------------------------------

    def decide(self, ctxs: Sequence[RelevanceItem]) -> tuple[np.ndarray, list[str | None]]:
        """Verdicts (bool array) and, per pair, the reason it is unscored or ``None``."""
        queries = list(map(_QUERY, ctxs))
        expected = list(map(_EXPECTED, ctxs))
        retrieved = list(map(_RETRIEVED, ctxs))
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
        ids: dict[str, int] = {
            text: i for i, text in enumerate(dict.fromkeys(chain(targets, retrieved, queries)))
        }
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
        """Tokenise each distinct text once, then work on token hashes with array operations:
        negation flags, stopword removal, per-text distinct tokens, vocabulary and weights."""
        tokens: list[list[str]] = list(map(evret_tokens, texts))
        token_count = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        flat = list(chain.from_iterable(tokens))
        rows = np.repeat(np.arange(len(tokens), dtype=np.int64), token_count)
        hashes = np.fromiter(map(hash, flat), dtype=np.int64, count=len(flat))
        vocab_hashes, first, ids = unique_inverse(hashes)
        vocab_tokens = [flat[i] for i in first.tolist()]
        # Hashes stand for strings only if no two distinct words share one (64-bit hashes: never
        # in practice, but checked; then a dictionary does the work).
        if len(set(flat)) != vocab_hashes.size:
            return self._analyse_exactly(texts, tokens)
        flags = []
        for words in (self.stopwords, NEGATIONS):
            flag = np.zeros(vocab_hashes.size + 1, dtype=bool)
            for word in words:
                at = int(np.searchsorted(vocab_hashes, hash(word)))
                if at < vocab_hashes.size and vocab_hashes[at] == hash(word):
                    if vocab_tokens[at] != word:
                        return self._analyse_exactly(texts, tokens)
                    flag[at] = True
            flags.append(flag[:-1])
        is_stop, is_negation = flags
        negation = np.zeros(len(tokens), dtype=bool)
        negation[rows[is_negation[ids]]] = True
        content = ~is_stop[ids]
        # Distinct (text, token) pairs sorted by text then token: the rows of the content matrix.
        width = max(1, vocab_hashes.size)
        keys = unique_sorted(rows[content] * width + ids[content])
        indices = keys % width
        sizes = np.bincount(keys // width, minlength=len(tokens)).astype(np.int64)
        return self._assemble(texts, tokens, token_count, negation, sizes, indices, vocab_tokens)

    def _analyse_exactly(self, texts: list[str], tokens: list[list[str]]) -> _Analysis:
        """The same analysis with a dictionary vocabulary (the fallback for a hash collision)."""
        sets = [set(found) for found in tokens]
        negation = np.fromiter(
            (not found.isdisjoint(NEGATIONS) for found in sets), dtype=bool, count=len(sets)
        )
        for distinct in sets:
            distinct -= self.stopwords
        ordered = [sorted(distinct) for distinct in sets]
        vocab = {token: i for i, token in enumerate(sorted(set().union(*sets)))}
        indices = np.fromiter(
            (vocab[token] for tokens_ in ordered for token in tokens_),
            dtype=np.int64,
            count=sum(map(len, sets)),
        )
        token_count = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        sizes = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
        return self._assemble(texts, tokens, token_count, negation, sizes, indices, list(vocab))

    def _assemble(
        self,
        texts: list[str],
        tokens: list[list[str]],
        token_count: np.ndarray,
        negation: np.ndarray,
        sizes: np.ndarray,
        indices: np.ndarray,
        vocab_tokens: list[str],
    ) -> _Analysis:
        # The largest phrase bonus a text could earn as the expected text; the count of all its
        # tokens bounds its content-token count, so the bound never underestimates.
        bonus_bound = np.where(
            (sizes > 0) & (token_count >= 2), np.minimum(0.05 * (np.minimum(4, token_count) - 1), 0.15), 0.0
        )
        index_type = np.int32 if max(indices.size, len(vocab_tokens)) < 2**31 - 1 else np.int64
        indptr = np.zeros(len(texts) + 1, dtype=index_type)
        np.cumsum(sizes, out=indptr[1:])
        width = max(1, len(vocab_tokens))
        matrix = sparse.csr_matrix(
            (np.ones(indices.size, dtype=np.int8), indices.astype(index_type), indptr),
            shape=(len(texts), width),
        )
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
            stopwords=self.stopwords,
            _norms={},
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
        mismatch = (
            (info.negation[e_l] != info.negation[r_l]) & ~query_l if weighted else np.zeros(live.size, bool)
        )
        for i in np.flatnonzero(shared_count >= np.minimum(size_e, size_r) - 2).tolist():
            a, b = info.norm(int(e_l[i])), info.norm(int(r_l[i]))
            contained = not mismatch[i] and a and b and ((a in b) if len(a) <= len(b) else (b in a))
            if a == b or contained:
                out[i] = done[i] = True
        done |= mismatch

        query_cap = np.maximum(1, np.ceil(self.threshold * size_e - _EPS)).astype(np.int64)
        min_tokens = np.where(query_l, np.minimum(self.min_tokens, query_cap), self.min_tokens)
        open_ = ~done & (size_e > 0) & (size_r > 0) & (shared_count >= min_tokens)
        rows = np.flatnonzero(open_)  # only these pairs need scores
        if rows.size == 0:
            verdict[live] = out
            return verdict
        shared_open = shared[rows]
        boosted = np.zeros(rows.size, dtype=bool)
        if self.query_boost:
            hits = shared_open.multiply(info.content[q_l[rows]]).tocsr()
            boosted = (np.diff(hits.indptr) > 0) & ~query_l[rows]

        if self.scoring == "ratio":
            ratio = shared_count[rows] / np.maximum(size_e[rows], 1)
            out[rows] = (ratio >= self.threshold) | (boosted & (ratio >= self.threshold * RELAXED_FACTOR))
        else:
            e_o = e_l[rows]
            low = (shared_open @ info.token_weight20) / np.maximum(info.weight[e_o], 1)
            low += np.where(boosted, QUERY_BONUS, 0.0)
            sure = np.minimum(low, 1.0) >= self.threshold - _EPS
            out[rows[sure]] = True
            unsure = ~sure & (np.minimum(low + info.bonus_bound[e_o], 1.0) >= self.threshold - _EPS)
            for k in np.flatnonzero(unsure).tolist():
                out[rows[k]] = self._phrase_decides(info, int(e_o[k]), int(r_l[rows[k]]), float(low[k]))
        verdict[live] = out
        return verdict

    def _phrase_decides(self, info: _Analysis, e: int, r: int, low: float) -> bool:
        """A pair that only the phrase bonus can lift to the threshold.

        The bonus is 0.05 x (tokens - 1) of the longest matching phrase, and a longer phrase
        contains every shorter one: so the pair passes exactly when some phrase of the
        shortest size whose bonus is enough occurs in the retrieved text; one size to search.
        """
        need = self.threshold - low
        for size in (2, 3, 4):
            if min(0.05 * (size - 1), 0.15) >= need - _EPS:
                retrieved_norm = info.norm(r)
                return any(phrase in retrieved_norm for phrase in info.phrases(e, size))
        return False


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for integers via one sort (NumPy 2's ``unique`` is many times slower here)."""
    ordered = np.sort(values)
    if ordered.size == 0:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(values, return_index=True, return_inverse=True)`` via one argsort; the index
    is of some occurrence of each value (not necessarily the first)."""
    order = np.argsort(values)
    ordered = values[order]
    starts = np.empty(ordered.size, dtype=bool)
    if ordered.size:
        starts[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    group = np.cumsum(starts) - 1
    inverse = np.empty(values.size, dtype=np.int64)
    inverse[order] = group
    return ordered[starts], order[starts], inverse


__all__ = [
    "EVRET_STOPWORDS",
    "Scoring",
    "TokenOverlapJudge",
    "evret_normalise",
    "evret_tokens",
    "phrase_bonus",
    "token_weight",
    "unique_inverse",
    "unique_sorted",
]
