"""NonLLMJudge: the TREC AutoJudge kit's non-LLM relevance grader, vectorised.

The algorithm is the kit's ``NonLlmJudge`` (trec26/judges/non_llm_judge in
laura-dietz/auto-judge-code-test), grade for grade: length, keyword, BM25 (no IDF, ``avgdl`` fixed,
so a response is graded on its own) and coverage signals, weighted, times 3, rounded half to even.
The batch path re-scores pairs near a rounding boundary the kit's way, and, unlike the kit, an
empty query is unscored rather than graded on length alone.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.input_files import InputError, read_text, split_lines, validation_message
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes

WORD = re.compile(r"\w+")
"""The kit's ``\\b\\w+\\b`` (the word boundaries are implied by the greedy run)."""

TopicFormat = Literal["auto", "rag", "ragtime", "dragun"]
_BOUNDARY_EPS = 1e-9


_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
_SPACE_OUT = bytes(byte if byte in _KEEP else 32 for byte in range(256))


def words(text: str) -> list[str]:
    """The kit's tokens: ``\\w+`` runs of the lowercased text. For ASCII text ``\\w`` is exactly
    ``[a-z0-9_]`` after lowercasing: blanking every other byte and splitting is faster than
    the regex engine and gives the same tokens."""
    lower = text.lower()
    if lower.isascii():
        return lower.encode("ascii").translate(_SPACE_OUT).decode("ascii").split()
    return WORD.findall(lower)


class NonLLMSettings(BaseModel):
    """The kit's ``judge_settings`` (same names and defaults), plus ``k1``/``b``/``avgdl``/``pass_grade``.

    Weights need not sum to one: they are normalised, as in the kit.
    """

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    length_weight: float = Field(default=0.2, ge=0.0)
    keyword_weight: float = Field(default=0.3, ge=0.0)
    bm25_weight: float = Field(default=0.3, ge=0.0)
    coverage_weight: float = Field(default=0.2, ge=0.0)
    min_length: int = Field(default=50, gt=0)
    optimal_length: int = Field(default=200, gt=0)
    max_length: int = Field(default=500, gt=0)
    topic_format: TopicFormat = "auto"
    k1: float = Field(default=1.5, ge=0.0)
    b: float = Field(default=0.75, ge=0.0, le=1.0)
    avgdl: float | None = Field(
        default=None, gt=0.0, description="BM25 average length; None = optimal_length"
    )
    pass_grade: int = Field(default=2, ge=0, le=3, description="judge() is True from this grade on")

    @model_validator(mode="after")
    def _consistent(self) -> NonLLMSettings:
        if self.length_weight + self.keyword_weight + self.bm25_weight + self.coverage_weight <= 0:
            raise ValueError("at least one weight must be positive")
        if not self.min_length < self.optimal_length < self.max_length:
            raise ValueError("need min_length < optimal_length < max_length")
        return self

    def normalised_weights(self) -> tuple[float, float, float, float]:
        """(length, keyword, bm25, coverage), each divided by their sum, as the kit divides them."""
        lw, kw, bw, cw = self.length_weight, self.keyword_weight, self.bm25_weight, self.coverage_weight
        total = lw + kw + bw + cw
        return lw / total, kw / total, bw / total, cw / total

    @property
    def bm25_avgdl(self) -> float:
        return float(self.avgdl) if self.avgdl is not None else float(self.optimal_length)

    @classmethod
    def from_workflow(cls, path: str | Path) -> NonLLMSettings:
        """Settings from a kit ``workflow.yml``: its ``judge_settings:`` block (other keys ignored)."""
        text = read_text(path)
        try:
            data = load_yaml(text) or {}
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            raise InputError(path, f"malformed YAML: {getattr(error, 'problem', error)}", line=line) from None
        if not isinstance(data, dict):
            raise InputError(path, f"expected a mapping at the top, found {type(data).__name__}")
        block = data.get("judge_settings") or {}
        if not isinstance(block, dict):
            raise InputError(path, "must be a mapping", field="judge_settings")
        try:
            return cls.model_validate(block)
        except ValidationError as error:
            field, message = validation_message(error)
            line = _yaml_line(text, field.split(".")[0]) if field else None
            raise InputError(
                path, message, line=line, field=f"judge_settings.{field}" if field else None
            ) from None


_YAML_11_BREAKS = {"\x85": "\ue085", "\u2028": "\ue028", "\u2029": "\ue029"}
"""U+0085, U+2028 and U+2029, with the private-use stand-ins they take while PyYAML parses."""


def load_yaml(text: str) -> object:
    """``yaml.safe_load`` that reads U+0085, U+2028 and U+2029 as ordinary characters.

    Why: PyYAML follows YAML 1.1, where these are line breaks, so one of them pasted into a
    comment or a plain value ends the line there and the rest is a syntax error; YAML 1.2 (and
    every line-based tool) sees ordinary characters. They are swapped for private-use stand-ins
    during the parse and swapped back in the values, so error line numbers count ``\\n`` only.
    """
    try:
        if not any(char in text for char in _YAML_11_BREAKS) or any(
            stand_in in text for stand_in in _YAML_11_BREAKS.values()
        ):
            return yaml.safe_load(text)
        masked = text.translate(str.maketrans(_YAML_11_BREAKS))
        return _unmask(yaml.safe_load(masked))
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None


def _unmask(value: object) -> object:
    """``value`` with the stand-ins of ``load_yaml`` turned back into the original characters."""
    if isinstance(value, str):
        return value.translate(str.maketrans({v: k for k, v in _YAML_11_BREAKS.items()}))
    if isinstance(value, dict):
        return {_unmask(key): _unmask(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unmask(item) for item in value]
    return value


def _yaml_line(text: str, key: str) -> int | None:
    for number, raw in enumerate(split_lines(text), start=1):
        if raw.strip().startswith(f"{key}:"):
            return number
    return None


class NonLLMScores(BaseModel):
    """One response's signals, the scaled combined score (0-3) and the grade."""

    length_score: float
    keyword_score: float
    bm25_score: float
    coverage_score: float
    combined_score: float = Field(description="Weighted sum times 3, before rounding (the kit's naming)")
    grade: int = Field(ge=0, le=3)

    @property
    def label(self) -> int:
        return self.grade


def length_score(word_count: int, settings: NonLLMSettings) -> float:
    """The kit's length curve: ``0.5 * wc/min`` below ``min_length``, rising linearly to 1.0 at
    ``optimal_length``, falling to 0.8 at ``max_length``, ``0.8 * max/wc`` beyond."""
    lo, opt, hi = settings.min_length, settings.optimal_length, settings.max_length
    if word_count < lo:
        score = word_count / lo * 0.5
    elif word_count <= opt:
        score = 0.5 + (word_count - lo) / (opt - lo) * 0.5
    elif word_count <= hi:
        excess = (word_count - opt) / (hi - opt)
        score = 1.0 - excess * 0.2
    else:
        score = 0.8 * (hi / word_count)
    return max(0.0, min(1.0, score))


def query_coverage(query_words: Sequence[str], response_words: Sequence[str]) -> float:
    """Share of query word occurrences matched by response occurrences (the kit's coverage)."""
    if not query_words:
        return 0.0
    have = Counter(response_words)
    need = Counter(query_words)
    return sum(min(have[t], need[t]) for t in need) / len(query_words)


def score_pair(query: str, response: str, settings: NonLLMSettings) -> NonLLMScores:
    """One pair scored the kit's way, operation for operation (the reference for the batch path)."""
    q_tokens, d_tokens = words(query), words(response)
    ls = length_score(len(d_tokens), settings)
    q_set, d_set = set(q_tokens), set(d_tokens)
    ks = len(q_set & d_set) / len(q_set) if q_set else 0.0
    bs = 0.0
    if q_tokens and d_tokens:
        k1, b, avgdl = settings.k1, settings.b, settings.bm25_avgdl
        tf = Counter(d_tokens)
        doc_len = len(d_tokens)
        total = 0.0
        for token in q_tokens:
            if token in tf:
                f = tf[token]
                total += (f * (k1 + 1)) / (f + k1 * (1 - b + b * doc_len / avgdl))
        max_score = len(q_set) * (k1 + 1)
        bs = min(total / max_score, 1.0) if max_score else 0.0
    cs = query_coverage(q_tokens, d_tokens)
    lw, kw, bw, cw = settings.normalised_weights()
    final = (ls * lw + ks * kw + bs * bw + cs * cw) * 3.0
    return NonLLMScores(
        length_score=ls,
        keyword_score=ks,
        bm25_score=bs,
        coverage_score=cs,
        combined_score=final,
        grade=max(0, min(3, round(final))),
    )


@dataclass(frozen=True)
class _BatchScores:
    length: np.ndarray
    keyword: np.ndarray
    bm25: np.ndarray
    coverage: np.ndarray
    combined: np.ndarray
    grade: np.ndarray
    reasons: list[str | None]


@judge_entry("relevance", "non-llm", "model-free graded relevance 0-3", scale="graded")
class NonLLMJudge(BaseJudge[RelevanceItem, int]):
    """Grade 0-3 of how well ``retrieved_text`` (a response or passage) answers ``query``.

    ``expected_text`` is not used: this judge needs no reference. Example::

        judge = NonLLMJudge(NonLLMSettings.from_workflow("workflow.yml"))
        judge.grade(RelevanceItem(query="who invented the light bulb",
                                    retrieved_text="Thomas Edison invented the light bulb."))  # 2
    """

    name = "non_llm"

    def __init__(self, settings: NonLLMSettings | RagjurySettings | None = None, **overrides: object) -> None:
        """``settings``: the non-LLM settings (a ``RagjurySettings``, which generic factories pass,
        carries none: the kit defaults apply). ``overrides``: any ``NonLLMSettings`` field."""
        base = settings if isinstance(settings, NonLLMSettings) else NonLLMSettings()
        unknown = set(overrides) - set(NonLLMSettings.model_fields)
        if unknown:
            raise TypeError(f"unknown NonLLMJudge option(s): {', '.join(sorted(unknown))}")
        self.settings = base.model_validate({**base.model_dump(), **overrides}) if overrides else base

    @property
    def identity(self) -> JudgeIdentity:
        s = self.settings
        return JudgeIdentity(
            name=self.name,
            prompt_version="trec_autojudge_non_llm@1.0",
            params=(
                f"w={s.length_weight},{s.keyword_weight},{s.bm25_weight},{s.coverage_weight};"
                f"len={s.min_length},{s.optimal_length},{s.max_length};k1={s.k1};b={s.b};"
                f"avgdl={s.bm25_avgdl};pass={s.pass_grade}"
            ),
        )

    # -- conveniences ------------------------------------------------------------------------

    def grade(self, ctx: RelevanceItem) -> int:
        """The 0-3 grade; raises ``JudgmentUnscored`` for an empty query."""
        return self.batch_grade([ctx])[0]

    def judge(self, ctx: RelevanceItem) -> bool:
        """Relevant (grade >= ``pass_grade``)?"""
        return self.grade(ctx) >= self.settings.pass_grade

    def batch_grade(self, ctxs: Sequence[RelevanceItem]) -> list[int]:
        batch = self._score(
            list(map(attrgetter("query"), ctxs)), list(map(attrgetter("retrieved_text"), ctxs))
        )
        _raise_first(batch.reasons)
        return batch.grade.tolist()

    def batch_judge(self, ctxs: Sequence[RelevanceItem]) -> list[bool]:
        return [grade >= self.settings.pass_grade for grade in self.batch_grade(ctxs)]

    def grade_texts(self, queries: Sequence[str], responses: Sequence[str]) -> list[int]:
        """``batch_grade`` on plain strings."""
        batch = self._score(queries, responses)
        _raise_first(batch.reasons)
        return batch.grade.tolist()

    def batch_scores(self, queries: Sequence[str], responses: Sequence[str]) -> list[NonLLMScores | None]:
        """Every signal per pair (``None`` where unscored: an empty query)."""
        batch = self._score(queries, responses)
        out: list[NonLLMScores | None] = []
        for i, reason in enumerate(batch.reasons):
            out.append(
                None
                if reason is not None
                else NonLLMScores(
                    length_score=float(batch.length[i]),
                    keyword_score=float(batch.keyword[i]),
                    bm25_score=float(batch.bm25[i]),
                    coverage_score=float(batch.coverage[i]),
                    combined_score=float(batch.combined[i]),
                    grade=int(batch.grade[i]),
                )
            )
        return out

    async def _judge(self, item: RelevanceItem) -> Judgment[int]:
        started = time.perf_counter()
        batch = self._score([item.query], [item.retrieved_text])
        if batch.reasons[0] is not None:
            return self.unscored(batch.reasons[0], started=started)
        return self.scored(int(batch.grade[0]), started=started)

    async def ajudge_batch(
        self, items: Sequence[RelevanceItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[int]]:
        started = time.perf_counter()
        batch = self._score(
            list(map(attrgetter("query"), items)), list(map(attrgetter("retrieved_text"), items))
        )
        return batch_envelopes(
            self,
            batch.grade.tolist(),
            batch.reasons,
            elapsed_s=time.perf_counter() - started,
            on_result=on_result,
        )

    # -- the vectorised core -----------------------------------------------------------------

    def _score(self, queries: Sequence[str], responses: Sequence[str]) -> _BatchScores:
        n = len(queries)
        if len(responses) != n:
            raise ValueError("queries and responses must have the same length")
        s = self.settings
        q_ids = {text: i for i, text in enumerate(dict.fromkeys(queries))}
        r_ids = {text: i for i, text in enumerate(dict.fromkeys(responses))}
        qi = np.fromiter(map(q_ids.__getitem__, queries), dtype=np.int64, count=n)
        ri = np.fromiter(map(r_ids.__getitem__, responses), dtype=np.int64, count=n)

        # Queries: distinct words (in order of first use), their counts, totals.
        vocab: dict[str, int] = {}
        q_ptr, q_tok, q_cnt = [0], [], []
        q_distinct = np.zeros(len(q_ids), dtype=np.int64)
        q_total = np.zeros(len(q_ids), dtype=np.int64)
        for j, text in enumerate(q_ids):
            counts = Counter(words(text))
            q_distinct[j], q_total[j] = len(counts), sum(counts.values())
            for token, count in counts.items():
                q_tok.append(vocab.setdefault(token, len(vocab)))
                q_cnt.append(count)
            q_ptr.append(len(q_tok))
        q_ptr_a, q_tok_a, q_cnt_a = np.asarray(q_ptr), np.asarray(q_tok, dtype=np.int64), np.asarray(q_cnt)

        # Responses: their length, and how often each query word occurs (nothing else matters).
        v = max(1, len(vocab))
        tokens = [words(text) for text in r_ids]
        doc_len = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        flat = list(chain.from_iterable(tokens))
        word_ids = np.fromiter(map(vocab.get, flat, repeat(-1, len(flat))), dtype=np.int64, count=len(flat))
        rows = np.repeat(np.arange(len(tokens), dtype=np.int64), doc_len)
        hit = word_ids >= 0
        keys, counts = _count_keys(rows[hit] * v + word_ids[hit])
        lengths = np.fromiter(
            (length_score(int(wc), s) for wc in doc_len), dtype=np.float64, count=doc_len.size
        )

        # Expand every pair into its query's distinct words, then look up the response counts.
        per_pair = q_ptr_a[qi + 1] - q_ptr_a[qi]
        pair = np.repeat(np.arange(n), per_pair)
        offsets = np.arange(pair.size) - np.repeat(np.cumsum(per_pair) - per_pair, per_pair)
        pos = q_ptr_a[qi][pair] + offsets
        tok, qc = q_tok_a[pos], q_cnt_a[pos].astype(np.float64)
        lookup = ri[pair] * v + tok
        if len(tokens) * v <= 20_000_000:  # a dense table: one indexing operation
            table = np.zeros(len(tokens) * v, dtype=np.float64)
            table[keys] = counts
            f = table[lookup]
        elif keys.size:
            where = np.minimum(np.searchsorted(keys, lookup), keys.size - 1)
            f = np.where(keys[where] == lookup, counts[where].astype(np.float64), 0.0)
        else:
            f = np.zeros(lookup.size, dtype=np.float64)

        distinct = q_distinct[qi].astype(np.float64)
        total = q_total[qi].astype(np.float64)
        safe_distinct, safe_total = np.maximum(distinct, 1), np.maximum(total, 1)
        keyword = np.bincount(pair, weights=(f > 0).astype(np.float64), minlength=n) / safe_distinct
        coverage = np.bincount(pair, weights=np.minimum(f, qc), minlength=n) / safe_total
        k1, b, avgdl = s.k1, s.b, s.bm25_avgdl
        dl = doc_len[ri][pair].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(f > 0, (f * (k1 + 1)) / (f + k1 * (1 - b + b * dl / avgdl)), 0.0)
        bm25_raw = np.bincount(pair, weights=term * qc, minlength=n)
        max_score = distinct * (k1 + 1)
        bm25 = np.where(max_score > 0, np.minimum(bm25_raw / np.where(max_score > 0, max_score, 1), 1.0), 0.0)
        empty_doc = doc_len[ri] == 0
        bm25[empty_doc] = 0.0
        length = lengths[ri]

        lw, kw, bw, cw = s.normalised_weights()
        combined = (length * lw + keyword * kw + bm25 * bw + coverage * cw) * 3.0
        grade = np.clip(np.rint(combined), 0, 3).astype(np.int64)

        # Re-score with the kit's exact arithmetic where rounding could go either way.
        near = np.flatnonzero(np.abs(combined - np.floor(combined) - 0.5) < _BOUNDARY_EPS)
        queries_list, responses_list = list(q_ids), list(r_ids)
        for i in near.tolist():
            exact = score_pair(queries_list[qi[i]], responses_list[ri[i]], s)
            length[i], keyword[i], bm25[i], coverage[i] = (
                exact.length_score,
                exact.keyword_score,
                exact.bm25_score,
                exact.coverage_score,
            )
            combined[i], grade[i] = exact.combined_score, exact.grade

        reasons: list[str | None] = [None] * n
        for i in np.flatnonzero(distinct == 0).tolist():
            reasons[i] = "empty query: no words to grade the response against"
            grade[i] = 0
        return _BatchScores(length, keyword, bm25, coverage, combined, grade, reasons)


def _count_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` via one sort (NumPy 2's ``unique`` is slower here)."""
    ordered = np.sort(keys)
    if ordered.size == 0:
        return ordered, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    return ordered[starts], np.diff(np.append(starts, ordered.size))


def _raise_first(reasons: Sequence[str | None]) -> None:
    for reason in reasons:
        if reason is not None:
            raise JudgmentUnscored(reason)


__all__ = [
    "NonLLMJudge",
    "NonLLMScores",
    "NonLLMSettings",
    "length_score",
    "load_yaml",
    "query_coverage",
    "score_pair",
    "words",
]
