"""BM25 over a local passage collection, vectorised with scipy.sparse.

The reference agent needs a retriever that runs anywhere without a model download, and BM25 is
the baseline retrieval papers report. Scoring is Lucene/Anserini's (MS MARCO defaults
``k1=0.9, b=0.4``) over ``rag_agent.core.text.content_tokens`` without stemming, so scores are
close to, not identical with, Anserini's; ``batch_retrieve`` follows Evret's retriever protocol.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ragjury.rag_agent.core.input_files import InputError, iter_jsonl
from ragjury.rag_agent.core.schemas import SourceDocument
from ragjury.rag_agent.core.text import content_tokens

ANSERINI_K1 = 0.9
ANSERINI_B = 0.4
DOCID_KEYS: tuple[str, ...] = ("docid", "doc_id", "id")
TEXT_KEYS: tuple[str, ...] = ("text", "content", "contents")
_QUERY_CHUNK = 256
"""Queries scored per sparse product in ``batch_retrieve``: bounds the dense score block."""


@dataclass(frozen=True, slots=True)
class RetrievedPassage:
    """One search hit. ``doc_id`` and ``metadata`` make it an Evret ``RetrievalResult`` look-alike."""

    docid: str
    text: str
    score: float

    @property
    def doc_id(self) -> str:
        return self.docid

    @property
    def metadata(self) -> dict[str, Any]:
        return {"text": self.text}

    def to_source(self) -> SourceDocument:
        return SourceDocument(id=self.docid, content=self.text)


def _first_key(data: dict[str, Any], keys: Sequence[str]) -> str | None:
    return next((key for key in keys if key in data), None)


class BM25Index:
    """An in-memory BM25 index; build it with ``from_jsonl`` or from (docid, text) pairs."""

    def __init__(
        self, passages: Iterable[tuple[str, str]], *, k1: float = ANSERINI_K1, b: float = ANSERINI_B
    ) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1 = k1
        self.b = b
        self.docids: list[str] = []
        self.texts: list[str] = []
        self._position: dict[str, int] = {}
        for docid, text in passages:
            if docid in self._position:
                raise ValueError(f"duplicate docid {docid!r}")
            self._position[docid] = len(self.docids)
            self.docids.append(docid)
            self.texts.append(text)
        if not self.docids:
            raise ValueError("a BM25 index needs at least one passage")
        self.vocabulary: dict[str, int] = {}
        self._weights = self._build()

    @classmethod
    def from_jsonl(cls, path: str | Path, *, k1: float = ANSERINI_K1, b: float = ANSERINI_B) -> BM25Index:
        """Index a JSONL of ``{"docid", "text"}`` (``id``/``doc_id`` and ``content``/``contents`` too).

        Every problem is an ``InputError`` naming file, line and field.
        """
        passages: list[tuple[str, str]] = []
        seen: dict[str, int] = {}
        for line, data in iter_jsonl(path):
            if not isinstance(data, dict):
                raise InputError(path, f"expected a JSON object, got {type(data).__name__}", line=line)
            id_key = _first_key(data, DOCID_KEYS)
            if id_key is None:
                raise InputError(path, "missing (also accepted: id, doc_id)", line=line, field="docid")
            docid = data[id_key]
            if isinstance(docid, bool) or not isinstance(docid, str | int) or not str(docid).strip():
                raise InputError(path, "must be a non-empty string or integer", line=line, field=id_key)
            docid = str(docid)
            if docid in seen:
                raise InputError(
                    path, f"duplicate docid {docid!r} (first on line {seen[docid]})", line=line, field=id_key
                )
            text_key = _first_key(data, TEXT_KEYS)
            if text_key is None:
                raise InputError(path, "missing (also accepted: content, contents)", line=line, field="text")
            text = data[text_key]
            if not isinstance(text, str):
                raise InputError(
                    path, f"must be a string, got {type(text).__name__}", line=line, field=text_key
                )
            seen[docid] = line
            passages.append((docid, text))
        if not passages:
            raise InputError(path, "no passages: the file is empty")
        return cls(passages, k1=k1, b=b)

    def _build(self) -> sp.csr_matrix:
        """Precompute the (documents x terms) matrix of BM25 term weights."""
        rows: list[int] = []
        cols: list[int] = []
        lengths = np.zeros(len(self.texts), dtype=np.float64)
        vocabulary = self.vocabulary
        for row, text in enumerate(self.texts):
            terms = content_tokens(text)
            lengths[row] = len(terms)
            for term in terms:
                col = vocabulary.setdefault(term, len(vocabulary))
                rows.append(row)
                cols.append(col)
        shape = (len(self.texts), max(1, len(vocabulary)))
        tf = sp.csr_matrix(
            (
                np.ones(len(rows), dtype=np.float64),
                (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)),
            ),
            shape=shape,
        )
        tf.sum_duplicates()  # repeated (row, term) entries become term frequencies
        n_docs = shape[0]
        df = np.bincount(tf.indices, minlength=shape[1]).astype(np.float64)
        self.idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        avgdl = float(lengths.mean()) or 1.0
        norm = self.k1 * (1.0 - self.b + self.b * lengths / avgdl)  # per document
        row_of_entry = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        data = tf.data
        tf.data = self.idf[tf.indices] * data * (self.k1 + 1.0) / (data + norm[row_of_entry])
        return tf

    def __len__(self) -> int:
        return len(self.docids)

    @cached_property
    def fingerprint(self) -> str:
        """A short hash of the collection and parameters: part of cache keys of answers built on it."""
        digest = hashlib.sha256(f"k1={self.k1};b={self.b}".encode())
        for docid, text in zip(self.docids, self.texts, strict=True):
            digest.update(docid.encode() + b"\x00" + text.encode() + b"\x01")
        return digest.hexdigest()[:16]

    def passage(self, docid: str) -> RetrievedPassage | None:
        """The passage with this docid (score 0.0), or None."""
        position = self._position.get(docid)
        return None if position is None else RetrievedPassage(docid, self.texts[position], 0.0)

    def _query_matrix(self, queries: Sequence[str]) -> sp.csc_matrix:
        """(terms x queries) counts of the query terms that are in the vocabulary."""
        rows: list[int] = []
        cols: list[int] = []
        for col, query in enumerate(queries):
            for term in content_tokens(query):
                index = self.vocabulary.get(term)
                if index is not None:
                    rows.append(index)
                    cols.append(col)
        counts = sp.csc_matrix(
            (
                np.ones(len(rows), dtype=np.float64),
                (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)),
            ),
            shape=(self._weights.shape[1], len(queries)),
        )
        counts.sum_duplicates()
        return counts

    def _top_k(self, scores: np.ndarray, k: int) -> list[RetrievedPassage]:
        """The ``k`` best documents with a positive score, ties broken by collection order."""
        candidates = np.flatnonzero(scores > 0.0)
        if candidates.size > k:
            candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
            # argpartition may cut inside a run of tied scores; re-add every tie at the cut
            cut = scores[candidates].min()
            candidates = np.union1d(candidates[scores[candidates] > cut], np.flatnonzero(scores == cut))
        order = np.lexsort((candidates, -scores[candidates]))[:k]
        return [RetrievedPassage(self.docids[i], self.texts[i], float(scores[i])) for i in candidates[order]]

    def batch_retrieve(self, queries: Sequence[str], k: int) -> list[list[RetrievedPassage]]:
        """Top ``k`` passages for each query (Evret's retriever protocol); one sparse product per chunk."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        results: list[list[RetrievedPassage]] = []
        for start in range(0, len(queries), _QUERY_CHUNK):
            chunk = list(queries[start : start + _QUERY_CHUNK])
            scores = (self._weights @ self._query_matrix(chunk)).toarray()
            results.extend(self._top_k(scores[:, column], k) for column in range(len(chunk)))
        return results

    def search(self, query: str, k: int = 10) -> list[RetrievedPassage]:
        """Top ``k`` passages for one query, best first; empty when no query term is indexed."""
        return self.batch_retrieve([query], k)[0]

    def retrieve(self, query: str, k: int) -> list[RetrievedPassage]:
        """Alias of ``search`` with Evret's name and argument order."""
        return self.search(query, k)


__all__ = ["ANSERINI_B", "ANSERINI_K1", "BM25Index", "RetrievedPassage"]
