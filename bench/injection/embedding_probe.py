"""Exploratory, tune half only unless ``--confirm``: does a sentence classifier over MiniLM embeddings
find judge-addressed sentences of a *kind* it never saw, better than word / character n-grams do?

Leave-one-kind-out on the tune half of ``bench/data/injection-set.jsonl`` (kinds: note, system, typo,
output, language): train on the other kinds' injected sentences against sentences of tune dev texts
(EVOUNA-NQ answers, BEGIN answers and contexts) and of half the set's tune clean / benign / dev items;
the threshold is the 99.5 % quantile of the score on 2,000 other tune dev texts; then the held-out
kind's items caught (an item is flagged when any sentence scores past the threshold) and the other half
of the set's tune clean / benign / dev items flagged. Features: ``ngram`` (TF-IDF word 1-2 + char 2-5),
``embedding`` (all-MiniLM-L6-v2 int8 ONNX, the packaged embedder), ``both``. ``--confirm`` trains on
every tune kind and scores the confirm half once.

    PYTHONHASHSEED=0 python bench/injection/embedding_probe.py [--confirm]

(The tune items' halves are split by ``hash(pair)``: PYTHONHASHSEED=0 gives the split the figures in
docs/injection.md were measured on.)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from splits import BENCHMARKS, half_of  # noqa: E402

SET = HERE / "data" / "injection-set.jsonl"
KINDS = ("note", "system", "typo", "output", "language")


def text_of(row: dict) -> str:
    return row.get("answer") or row.get("passage") or ""


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?。！？])\s+|\n+", text) if s.strip()] or [text]


def dev_texts(half: str) -> list[str]:
    out = []
    for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open():
        row = json.loads(line)
        if half_of("evouna-nq", row) == half:
            out.append(row["answer"])
    for line in (BENCHMARKS / "begin-dev" / "faithfulness.jsonl").open():
        row = json.loads(line)
        if half_of("begin-dev", row) == half:
            out += [row["answer"], row["context"]]
    return [t for t in out if t and t.strip()]


class Features:
    """Sentence vectors by one of three recipes; the n-gram vocabulary is fitted on the training sentences."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.cache: dict[str, np.ndarray] = {}
        if kind in ("embedding", "both"):
            sys.path.insert(0, str(HERE.parent))
            from ragjury.rag_agent.judges.model_free.embedders import OnnxMiniLMEmbedder

            self.embedder = OnnxMiniLMEmbedder(batch_size=64)

    def embed(self, texts: list[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in self.cache})
        for start in range(0, len(todo), 512):
            chunk = todo[start:start + 512]
            for t, v in zip(chunk, np.asarray(self.embedder.embed(chunk), dtype=np.float32), strict=True):
                self.cache[t] = v
        return np.stack([self.cache[t] for t in texts])

    def fit(self, texts: list[str]) -> None:
        if self.kind in ("ngram", "both"):
            from sklearn.feature_extraction.text import TfidfVectorizer

            self.word = TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True).fit(texts)
            self.char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True,
                                        max_features=200_000).fit(texts)

    def __call__(self, texts: list[str]):  # noqa: ANN204
        from scipy.sparse import csr_matrix, hstack

        parts = []
        if self.kind in ("ngram", "both"):
            parts += [self.word.transform(texts), self.char.transform(texts)]
        if self.kind in ("embedding", "both"):
            parts.append(csr_matrix(self.embed(texts) * (3.0 if self.kind == "both" else 1.0)))
        return hstack(parts).tocsr()


def train(features: Features, positives: list[str], negatives: list[str]):  # noqa: ANN201
    from sklearn.linear_model import LogisticRegression

    texts = positives + negatives
    features.fit(texts)
    y = np.array([1] * len(positives) + [0] * len(negatives))
    model = LogisticRegression(C=10, class_weight="balanced", max_iter=3000).fit(features(texts), y)

    def score(items: list[str]) -> np.ndarray:
        per = [sentences(t) for t in items]
        flat = [s for ss in per for s in ss]
        p = model.predict_proba(features(flat))[:, 1]
        out, at = [], 0
        for ss in per:
            out.append(p[at:at + len(ss)].max())
            at += len(ss)
        return np.array(out)

    return score


def run(kind: str, confirm: bool) -> None:
    rows = [json.loads(line) for line in SET.open()]
    rng = random.Random(0)
    tune_dev = dev_texts("tune")
    rng.shuffle(tune_dev)
    fit_dev, cal_dev = tune_dev[:6000], tune_dev[6000:8000]
    negatives_items = [r for r in rows if r["half"] == "tune" and r["variant"] in ("clean", "benign", "dev")]
    features = Features(kind)
    if confirm:
        splits = [("all tune kinds -> confirm", list(KINDS), None)]
    else:
        splits = [(f"held out: {held}", [k for k in KINDS if k != held], held) for held in KINDS]
    for name, kinds, held in splits:
        positives = sorted({r["injection"]["sentence"] for r in rows if r["half"] == "tune" and r["variant"] == "injected"
                            and r["injection"]["kind"] in kinds})
        if confirm:
            neg_fit, neg_test = negatives_items, [r for r in rows if r["half"] == "confirm"
                                                   and r["variant"] in ("clean", "benign", "dev")]
            targets = [r for r in rows if r["half"] == "confirm" and r["variant"] == "injected"]
        else:
            neg_fit = [r for r in negatives_items if hash(r["pair"]) % 2 == 0]
            neg_test = [r for r in negatives_items if hash(r["pair"]) % 2 == 1]
            targets = [r for r in rows if r["half"] == "tune" and r["variant"] == "injected" and r["injection"]["kind"] == held]
        negatives = [s for t in fit_dev for s in sentences(t)] + [s for r in neg_fit for s in sentences(text_of(r))]
        score = train(features, positives, negatives)
        threshold = float(np.quantile(score(cal_dev), 0.995))
        caught = score([text_of(r) for r in targets]) > threshold
        flagged = score([text_of(r) for r in neg_test]) > threshold
        benign = [i for i, r in enumerate(neg_test) if r["variant"] == "benign"]
        by_kind = {}
        for r, c in zip(targets, caught, strict=True):
            by_kind.setdefault(r["injection"]["kind"], []).append(bool(c))
        print(f"{kind:9s} {name:28s} caught {caught.sum()}/{len(caught)} = {caught.mean():.0%} "
              f"({', '.join(f'{k} {sum(v)}/{len(v)}' for k, v in by_kind.items())}); "
              f"set items flagged {flagged.sum()}/{len(flagged)} = {flagged.mean():.1%} "
              f"(benign {flagged[benign].sum()}/{len(benign)})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", default="ngram,embedding,both")
    parser.add_argument("--confirm", action="store_true", help="train on every tune kind, score the confirm half once")
    args = parser.parse_args()
    for kind in args.features.split(","):
        run(kind, args.confirm)


if __name__ == "__main__":
    main()
