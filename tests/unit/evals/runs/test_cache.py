"""The judgment cache: keys, round trips of typed values, the unscored-retry policy, durability."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ragjury.evals.runs.cache import JudgmentCache, judgment_key, open_cache
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.items import CorrectnessItem, ScoreItem
from ragjury.rag_agent.core.protocol import JudgeIdentity
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.schemas import JudgeScore

ITEM = CorrectnessItem(question="Who?", answer="Marie Curie", references=["Curie"])
IDENT = JudgeIdentity(name="contains", model=None, prompt_version="contains@1.0")


def scored(value: object, **extra: object) -> Judgment[object]:
    return Judgment[object](
        value=value, judge="j", usage=Usage(input_tokens=3, output_tokens=1, requests=1), **extra
    )


def unscored(reason: str = "server down") -> Judgment[object]:
    return Judgment[object](judge="j", unscored=True, unscored_reason=reason)


@pytest.fixture
def cache(tmp_path: Path) -> JudgmentCache:
    with JudgmentCache(tmp_path / "c.sqlite") as opened:
        yield opened


def test_key_changes_with_every_part_of_the_identity_and_the_item() -> None:
    base = judgment_key(IDENT, ITEM)
    assert base == judgment_key(
        JudgeIdentity(name="contains", prompt_version="contains@1.0"), ITEM.model_copy()
    )
    variants = [
        JudgeIdentity(name="other", prompt_version="contains@1.0"),
        JudgeIdentity(name="contains", model="m", prompt_version="contains@1.0"),
        JudgeIdentity(name="contains", prompt_version="contains@1.1"),
        JudgeIdentity(name="contains", prompt_version="contains@1.0", params="t=1"),
    ]
    keys = {judgment_key(identity, ITEM) for identity in variants}
    assert base not in keys and len(keys) == len(variants)
    assert judgment_key(IDENT, ITEM.model_copy(update={"answer": "Curie"})) != base
    assert len(base) == 64  # sha256 hex


def test_round_trip_keeps_bool_value_and_envelope(cache: JudgmentCache) -> None:
    key = judgment_key(IDENT, ITEM)
    cache.put(key, scored(True, model="m", prompt_version="p@1", latency_s=0.5))
    got = cache.get(key)
    assert got is not None and got.value is True and got.model == "m" and got.prompt_version == "p@1"
    assert got.usage.total_tokens == 4 and got.latency_s == 0.5
    assert cache.get(judgment_key(IDENT, ScoreItem(question="q", answer="a"))) is None


def test_pydantic_values_come_back_as_their_class(cache: JudgmentCache) -> None:
    score = JudgeScore(
        relevance=1,
        completeness=0.5,
        accuracy=0.5,
        source_attribution=0,
        coherence=1,
        confidence=0.3,
        reasoning="ok",
        overall_score=0.6,
    )
    cache.put("k", scored(score))
    got = cache.get("k")
    assert got is not None and isinstance(got.value, JudgeScore) and got.value.overall_score == 0.6


def test_subclassed_envelope_keeps_its_extra_fields(cache: JudgmentCache) -> None:
    base = pytest.importorskip("ragjury.rag_agent.judges.llm.verdict_base")
    sampled = base.SampledJudgment[bool](value=True, judge="v", agreement=2 / 3, votes=["1", "1", "0"])
    cache.put("k", sampled)
    got = cache.get("k")
    assert isinstance(got, base.SampledJudgment) and got.votes == ["1", "1", "0"] and got.agreement == 2 / 3


def test_unscored_is_stored_but_retried_by_default(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with JudgmentCache(path) as cache:
        cache.put("k", unscored())
        assert cache.get("k") is None  # retried on re-run
        assert cache.count(unscored=True) == 1  # but kept, with its reason
    with JudgmentCache(path, retry_unscored=False) as keep:
        got = keep.get("k")
        assert got is not None and got.unscored and got.unscored_reason == "server down"


def test_a_later_judgment_replaces_the_earlier_one(cache: JudgmentCache) -> None:
    cache.put("k", unscored())
    cache.put("k", scored(False))
    got = cache.get("k")
    assert got is not None and got.value is False
    assert cache.count() == 1


def test_get_many_handles_more_keys_than_sqlite_parameters(cache: JudgmentCache) -> None:
    cache.put_many([(f"k{i}", scored(i % 2 == 0)) for i in range(1200)])
    found = cache.get_many([f"k{i}" for i in range(1300)])
    assert len(found) == 1200 and found["k4"].value is True and found["k5"].value is False


def test_each_put_is_committed_and_visible_to_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = JudgmentCache(path)
    cache.put("k", scored(True))
    # No close(): a second connection (another process after a kill) already sees the row.
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()
    cache.close()


def test_open_cache_off_and_broken_file(tmp_path: Path) -> None:
    assert open_cache(tmp_path / "x.sqlite", enabled=False) is None
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="broken.sqlite"):
        open_cache(broken)


def test_long_lookups_search_by_key_not_through_every_judgment(cache: JudgmentCache) -> None:
    """With hundreds of keys in one ``IN`` list SQLite preferred the ``(kind, owner)`` index and
    read every judgment of the file once per chunk (15,000 cached rows: 0.27 s instead of 0.05 s).
    Every lookup ``get_many`` and ``claim`` make must go through the key."""
    cache.put_many([(f"k{i}", scored(i)) for i in range(50)])
    statements: list[str] = []
    cache._conn.set_trace_callback(statements.append)
    keys = [f"k{i}" for i in range(600)]
    assert len(cache.get_many(keys)) == 50
    claimed, skipped = cache.claim(keys, owner="me")
    assert len(claimed) == 550 and len(skipped) == 50
    cache._conn.set_trace_callback(None)
    lookups = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "FROM entries" in s]
    assert len(lookups) >= 4  # two chunks of 500 keys, in get_many and in claim
    for statement in lookups:
        plan = " ".join(str(row[3]) for row in cache._conn.execute(f"EXPLAIN QUERY PLAN {statement}"))
        assert "(key=?)" in plan and "entries_owner" not in plan, plan


def _score(overall: float = 0.5) -> JudgeScore:
    return JudgeScore(
        relevance=1, completeness=1, accuracy=1, source_attribution=1, coherence=1, confidence=1,
        reasoning="ok", overall_score=overall,
    )


def _rewrite(path: Path, **columns: str | None) -> None:
    """Set columns of every row as another writer (older code, a stranger) would have."""
    with sqlite3.connect(path) as db:
        for column, text in columns.items():
            db.execute(f"UPDATE entries SET {column} = ?", (text,))


def test_rows_store_tags_not_code_paths(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with open_cache(path) as cache:
        cache.put("k", scored(_score()))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value_type, judgment_type FROM entries").fetchone() == ("judge_score", "judgment")


@pytest.mark.parametrize(
    ("value_type", "judgment_type"),
    [
        ("rag_agent.models:JudgeScore", "rag_agent.results:Judgment"),  # before one namespace
        ("ragjury.rag_agent.models:JudgeScore", "ragjury.rag_agent.results:Judgment"),  # models.py is schemas.py now
        ("ragjury.rag_agent.schemas:JudgeScore", "ragjury.rag_agent.results:Judgment"),  # before the folders by layer
        ("ragjury.rag_agent.core.schemas:JudgeScore", "ragjury.rag_agent.core.results:Judgment"),  # the day before tags
    ],
)
def test_rows_written_with_module_paths_still_read(tmp_path: Path, value_type: str, judgment_type: str) -> None:
    path = tmp_path / "old.sqlite"
    with open_cache(path) as cache:
        cache.put("k", scored(_score()))
    _rewrite(path, value_type=value_type, judgment_type=judgment_type)
    with open_cache(path) as reopened:
        got = reopened.get("k")
        assert reopened.unreadable == 0
    assert got is not None and isinstance(got.value, JudgeScore) and got.value.overall_score == 0.5


def test_an_old_sampled_envelope_keeps_its_votes(tmp_path: Path) -> None:
    base = pytest.importorskip("ragjury.rag_agent.judges.llm.verdict_base")
    path = tmp_path / "old.sqlite"
    with open_cache(path) as cache:
        cache.put("k", base.SampledJudgment[bool](value=True, judge="v", agreement=1.0, votes=["1"]))
    _rewrite(path, judgment_type="ragjury.rag_agent.verdicts.base:SampledJudgment")
    with open_cache(path) as reopened:
        got = reopened.get("k")
    assert isinstance(got, base.SampledJudgment) and got.votes == ["1"]


@pytest.mark.parametrize(
    "written_as",
    [
        "ragjury.config.settings:RagjurySettings",  # a loaded class that is no value: never built from data
        "ragjury.evals.pipelines.evret:EvretItem",
        "planted_module_of_a_cache_row:Thing",
        "this:s",
        "ragjury.cli:app",
        "no_such_tag",  # a tag this version does not know
        "settings",
    ],
)
def test_a_row_naming_anything_but_a_value_type_is_judged_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written_as: str
) -> None:
    """A cache file is data: a stored name that is not a declared value type is neither imported
    nor instantiated; the row counts as missing (so it is judged again) and is counted."""
    import sys

    from ragjury.config import settings  # noqa: F401 - loaded, as in every run
    from ragjury.evals.runs.cache_codec import UnreadableRow, model_class

    (tmp_path / "planted_module_of_a_cache_row.py").write_text("raise SystemExit('imported by the cache')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("planted_module_of_a_cache_row", "this"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    path = tmp_path / "planted.sqlite"
    with open_cache(path) as cache:
        cache.put("k", scored({"model": "x"}))
    _rewrite(path, value_type=written_as)
    with open_cache(path) as reopened:
        assert reopened.get("k") is None
        assert reopened.unreadable == 1 and reopened.count() == 0  # gone: judged again, not waited for
    with pytest.raises(UnreadableRow):
        model_class(written_as)
    assert "planted_module_of_a_cache_row" not in sys.modules and "this" not in sys.modules


def test_an_unknown_envelope_tag_is_judged_again_not_a_type_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with open_cache(path) as cache:
        cache.put("k", scored(_score()))
    _rewrite(path, judgment_type="judge_score")  # a value type, but not an envelope
    with open_cache(path) as reopened:
        assert reopened.get("k") is None and reopened.unreadable == 1


@pytest.mark.parametrize(
    "payload", ['[]', '"text"', '{"value": [1, 2], "judge": "j"}', '{"value": {"relevance": "high"}, "judge": "j"}', "{" * 5000]
)
def test_a_damaged_payload_is_judged_again_not_a_crash(tmp_path: Path, payload: str) -> None:
    path = tmp_path / "c.sqlite"
    with open_cache(path) as cache:
        cache.put("k", scored(_score()))
    _rewrite(path, payload=payload)
    with open_cache(path) as reopened:
        assert reopened.get("k") is None and reopened.unreadable == 1


def test_a_value_class_without_a_tag_is_not_stored(cache: JudgmentCache) -> None:
    from pydantic import BaseModel

    class Undeclared(BaseModel):
        label: bool = True

    cache.put("k", scored(Undeclared()))
    cache.put("j", scored(True))
    assert cache.count() == 1 and cache.get("k") is None


def test_a_plug_in_value_class_with_a_tag_comes_back_as_itself(cache: JudgmentCache) -> None:
    from pydantic import BaseModel

    from ragjury import value_tag

    @value_tag("test_plug_in_value")
    class Mine(BaseModel):
        label: bool
        why: str

    cache.put("k", scored(Mine(label=True, why="said so")))
    got = cache.get("k")
    assert isinstance(got.value, Mine) and got.value.why == "said so"


def test_a_run_judges_a_row_with_an_unknown_tag_again(tmp_path: Path) -> None:
    """End to end: ``run_judgments`` re-judges the row the cache could not read."""
    import asyncio

    from ragjury.evals.runs.runner import run_judgments
    from ragjury.rag_agent.core.protocol import BaseJudge

    class Counting(BaseJudge[CorrectnessItem, JudgeScore]):
        name = "counting"
        calls = 0

        async def _judge(self, item: CorrectnessItem) -> Judgment[JudgeScore]:
            Counting.calls += 1
            return self.scored(_score())

    path = tmp_path / "c.sqlite"
    with open_cache(path) as cache:
        asyncio.run(run_judgments(Counting(), [ITEM], cache=cache, progress=False))
    _rewrite(path, value_type="retired_tag")
    with open_cache(path) as cache:
        result = asyncio.run(run_judgments(Counting(), [ITEM], cache=cache, progress=False))
        assert cache.unreadable == 1
    assert Counting.calls == 2 and result.stats.cached == 0 and result.judgments[0].value.overall_score == 0.5
    assert result.stats.cache_unreadable == 1 and result.stats.as_dict()["cache_unreadable"] == 1


def test_every_tag_is_declared_once_and_found_in_the_source() -> None:
    """The codec finds a tag's module from the source text; each legacy class name has its tag."""
    from ragjury.evals.runs.cache_codec import _LEGACY_CLASSES, declared_tags, model_class

    tags = declared_tags()
    for tag, (module, name) in tags.items():
        assert model_class(tag).__name__ == name and model_class(tag).__module__ == module
    assert set(_LEGACY_CLASSES.values()) <= set(tags)


def test_every_pydantic_value_of_a_ragjury_judge_has_a_tag() -> None:
    """A judge whose value class had no tag would silently never be cached."""
    import importlib
    import inspect
    import pkgutil
    import typing

    from pydantic import BaseModel

    import ragjury.rag_agent as library
    from ragjury.rag_agent.core import value_tags
    from ragjury.rag_agent.core.protocol import BaseJudge

    values: set[type] = set()
    for info in pkgutil.walk_packages(library.__path__, "ragjury.rag_agent."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseJudge):
                for base in getattr(obj, "__orig_bases__", ()):
                    values.update(a for a in typing.get_args(base)[1:2] if inspect.isclass(a) and issubclass(a, BaseModel))
    assert len(values) >= 10
    assert [cls.__name__ for cls in values if value_tags.tag_of(cls) is None] == []
