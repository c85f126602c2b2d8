"""run_judgments: cache first (zero calls for cached items), order kept, every judgment stored as
it completes, unscored retried, stats that add up."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import RunStats, interrupted_message, run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment, Usage


def items(n: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"q{i}", answer=f"answer {i}", references=[str(i)]) for i in range(n)]


class CountingJudge(BaseJudge[CorrectnessItem, bool]):
    """Counts calls per question; random small delays so completions arrive out of order."""

    name = "counting"

    def __init__(self, *, fail: set[str] | None = None, seed: int = 0, concurrency: int = 4) -> None:
        self.calls: Counter[str] = Counter()
        self.fail = fail or set()
        self.rng = random.Random(seed)
        self.concurrency = concurrency
        self.max_in_flight = 0
        self._in_flight = 0

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model="fake", prompt_version="counting@1")

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        self.calls[item.question] += 1
        self._in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            await asyncio.sleep(self.rng.random() * 0.003)
        finally:
            self._in_flight -= 1
        usage = Usage(input_tokens=7, output_tokens=3, requests=1)
        if item.question in self.fail:
            return self.unscored("model returned garbage", usage=usage)
        return self.scored(item.references[0] in item.answer and item.question != "q3", usage=usage)


@pytest.fixture
def cache(tmp_path: Path) -> JudgmentCache:
    with JudgmentCache(tmp_path / "cache.sqlite") as opened:
        yield opened


async def test_results_keep_input_order_and_stats_add_up(cache: JudgmentCache) -> None:
    judge = CountingJudge(fail={"q5"})
    judgments, stats = await run_judgments(judge, items(20), cache=cache, progress=False)
    assert [j.value for j in judgments] == [i != 3 if i != 5 else None for i in range(20)]
    assert judgments[5].unscored and judgments[5].unscored_reason == "model returned garbage"
    assert (stats.total, stats.judged, stats.cached, stats.unscored, stats.scored) == (20, 20, 0, 1, 19)
    assert stats.usage == Usage(input_tokens=140, output_tokens=60, requests=20) and stats.tokens == 200
    assert stats.wall_s > 0 and not stats.interrupted
    assert cache.count() == 20


async def test_cached_items_make_zero_judge_calls(cache: JudgmentCache) -> None:
    await run_judgments(CountingJudge(), items(15), cache=cache, progress=False)
    again = CountingJudge()
    judgments, stats = await run_judgments(again, items(15), cache=cache, progress=False)
    assert sum(again.calls.values()) == 0
    assert (stats.cached, stats.judged, stats.tokens) == (15, 0, 0)
    assert [j.value for j in judgments] == [i != 3 for i in range(15)]


async def test_only_the_missing_items_are_judged(cache: JudgmentCache) -> None:
    await run_judgments(CountingJudge(), items(10), cache=cache, progress=False)
    judge = CountingJudge()
    judgments, stats = await run_judgments(judge, items(25), cache=cache, progress=False)
    assert set(judge.calls) == {f"q{i}" for i in range(10, 25)} and max(judge.calls.values()) == 1
    assert (stats.cached, stats.judged) == (10, 15) and len(judgments) == 25


async def test_a_different_identity_does_not_reuse_judgments(cache: JudgmentCache) -> None:
    await run_judgments(CountingJudge(), items(5), cache=cache, progress=False)

    class Other(CountingJudge):
        @property
        def identity(self) -> JudgeIdentity:
            return JudgeIdentity(name=self.name, model="fake", prompt_version="counting@2")

    other = Other()
    await run_judgments(other, items(5), cache=cache, progress=False)
    assert sum(other.calls.values()) == 5


async def test_identical_items_are_judged_once_and_fill_every_position(cache: JudgmentCache) -> None:
    batch = items(3) + items(3) + items(1)
    judge = CountingJudge()
    judgments, stats = await run_judgments(judge, batch, cache=cache, progress=False)
    assert judge.calls == Counter({"q0": 1, "q1": 1, "q2": 1})
    assert len(judgments) == 7 and [j.value for j in judgments] == [True, True, True] * 2 + [True]
    assert (stats.total, stats.judged, stats.scored) == (7, 3, 7)


async def test_unscored_judgments_are_retried_unless_asked_to_keep_them(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with JudgmentCache(path) as cache:
        _, first = await run_judgments(
            CountingJudge(fail={"q1", "q2"}), items(4), cache=cache, progress=False
        )
        assert first.unscored == 2
    with JudgmentCache(path, retry_unscored=False) as keep:
        judge = CountingJudge()
        _, kept = await run_judgments(judge, items(4), cache=keep, progress=False)
        assert sum(judge.calls.values()) == 0 and kept.unscored == 2
    with JudgmentCache(path) as retry:
        judge = CountingJudge()  # the server is back: nothing fails now
        judgments, retried = await run_judgments(judge, items(4), cache=retry, progress=False)
        assert set(judge.calls) == {"q1", "q2"} and retried.unscored == 0
        assert all(j.scored for j in judgments)
        assert retry.count(unscored=True) == 0  # the scored judgments replaced the unscored ones


async def test_every_judgment_is_in_the_cache_the_moment_it_completes(cache: JudgmentCache) -> None:
    seen_in_cache: list[int] = []

    class Spy(CountingJudge):
        async def ajudge_batch(
            self, batch: Sequence[CorrectnessItem], *, on_result: ResultCallback | None = None
        ) -> list[Judgment[bool]]:
            def spy(index: int, judgment: Judgment[object]) -> None:
                assert on_result is not None
                on_result(index, judgment)
                seen_in_cache.append(cache.count())  # right after the callback: already committed

            return await super().ajudge_batch(batch, on_result=spy)

    await run_judgments(Spy(), items(12), cache=cache, progress=False)
    assert seen_in_cache == list(range(1, 13))


async def test_a_judge_that_ignores_on_result_still_gets_stored(cache: JudgmentCache) -> None:
    class Silent(CountingJudge):
        async def ajudge_batch(
            self, batch: Sequence[CorrectnessItem], *, on_result: ResultCallback | None = None
        ) -> list[Judgment[bool]]:
            return [await self.ajudge(item) for item in batch]

    _, stats = await run_judgments(Silent(), items(6), cache=cache, progress=False)
    assert cache.count() == 6 and stats.judged == 6


async def test_cancelled_run_keeps_what_completed_and_resumes_without_judging_twice(
    cache: JudgmentCache,
) -> None:
    class Slow(CountingJudge):
        async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
            if int(item.question[1:]) >= 8:
                await asyncio.sleep(30)  # stuck: these are in flight when the run is cancelled
            return await super()._judge(item)

    first = Slow(concurrency=16)
    task = asyncio.create_task(run_judgments(first, items(16), cache=cache, progress=False))
    while cache.count() < 8:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cache.count() == 8
    second = CountingJudge()
    judgments, stats = await run_judgments(second, items(16), cache=cache, progress=False)
    assert set(second.calls) == {f"q{i}" for i in range(8, 16)}
    assert (stats.cached, stats.judged, len(judgments)) == (8, 8, 16)


async def test_concurrency_override_is_applied_and_restored() -> None:
    judge = CountingJudge(concurrency=8)
    await run_judgments(judge, items(30), concurrency=2, progress=False)
    assert judge.max_in_flight <= 2 and judge.concurrency == 8


async def test_runs_without_a_cache_and_with_a_progress_bar() -> None:
    judge = CountingJudge()
    judgments, stats = await run_judgments(judge, items(5), progress=True, description="testing")
    assert len(judgments) == 5 and stats.cached == 0
    judgments, stats = await run_judgments(judge, items(5), progress=False)
    assert sum(judge.calls.values()) == 10  # no cache: judged again


def test_stats_figures_and_messages(tmp_path: Path) -> None:
    stats = RunStats(total=5, cached=1, judged=4, unscored=1, completed=5, usage=Usage(input_tokens=5, output_tokens=4, requests=4), wall_s=2.0)
    assert (stats.scored, stats.tokens, stats.requests, stats.judgments_per_s) == (4, 9, 4, 2.0)
    assert stats.as_dict()["n"] == 5
    with JudgmentCache(tmp_path / "c.sqlite") as cache:
        message = interrupted_message(cache)
    assert "c.sqlite" in message and "run the same command again" in message
    assert "not kept" in interrupted_message(None)


class Vectorised(BaseJudge[CorrectnessItem, bool]):
    """A model-free judge with its own one-pass ``ajudge_batch``, like the deterministic ones:
    unscored when the answer is "?", and ``stop_after`` makes it raise mid-batch (Ctrl-C)."""

    name = "vectorised"

    def __init__(self, *, stop_after: int | None = None, pause: bool = False) -> None:
        self.stop_after = stop_after
        self.pause = pause
        self.calls = 0
        self.seen_in_cache: list[int] = []
        self.cache: JudgmentCache | None = None

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        raise AssertionError("judged one by one")

    def _one(self, item: CorrectnessItem) -> Judgment[bool]:
        if item.answer == "?":
            return self.unscored("nothing to judge")
        return self.scored(item.references[0] in item.answer)

    async def ajudge_batch(
        self, batch: Sequence[CorrectnessItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[bool]]:
        out = []
        for index, item in enumerate(batch):
            if self.stop_after is not None and self.calls >= self.stop_after:
                raise KeyboardInterrupt
            self.calls += 1
            judgment = self._one(item)
            out.append(judgment)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
            if self.pause:  # a judge that awaits between results (e.g. several model calls)
                await asyncio.sleep(0)
                await asyncio.sleep(0)
                assert self.cache is not None
                self.seen_in_cache.append(self.cache.count())
        return out


def counted_put_many(cache: JudgmentCache, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of judgments of every ``put_many`` transaction from now on."""
    sizes: list[int] = []
    put_many = cache.put_many

    def spy(entries: object, **kwargs: object) -> None:
        entries = list(entries)  # type: ignore[call-overload]
        sizes.append(len(entries))
        put_many(entries, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cache, "put_many", spy)
    return sizes


async def test_a_vectorised_judge_commits_its_chunk_in_one_transaction_and_unscored_stay_unscored(
    cache: JudgmentCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = items(30) + [CorrectnessItem(question="q?", answer="?", references=["x"])]
    sizes = counted_put_many(cache, monkeypatch)
    judgments, stats = await run_judgments(Vectorised(), batch, cache=cache, progress=False)
    assert sizes == [31]  # one chunk, one commit (not 31)
    assert cache.count() == 31 and cache.count(unscored=True) == 1
    assert judgments[30].unscored and judgments[30].value is None and stats.unscored == 1
    again = Vectorised()
    judgments, stats = await run_judgments(again, batch, cache=cache, progress=False)
    assert again.calls == 1 and stats.cached == 30  # only the unscored one is judged again
    assert judgments[30].unscored and judgments[30].unscored_reason == "nothing to judge"


async def test_a_model_judge_commits_every_judgment_on_its_own(
    cache: JudgmentCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = counted_put_many(cache, monkeypatch)
    await run_judgments(CountingJudge(), items(9), cache=cache, progress=False)
    assert sizes == [1] * 9


async def test_an_interrupted_vectorised_judge_keeps_what_it_finished(cache: JudgmentCache) -> None:
    with pytest.raises(KeyboardInterrupt):
        await run_judgments(Vectorised(stop_after=7), items(20), cache=cache, progress=False)
    assert cache.count() == 7  # queued for the chunk's commit, committed on the way out
    second = Vectorised()
    _, stats = await run_judgments(second, items(20), cache=cache, progress=False)
    assert (second.calls, stats.cached, stats.judged) == (13, 7, 13)


async def test_an_interrupted_run_counts_only_what_it_reached_as_scored(cache: JudgmentCache) -> None:
    """Ctrl-C after 7 of 20: 7 scored, 13 not judged (not 20 scored, 0 unscored)."""
    from ragjury.evals.runs import runner
    from ragjury.evals.runs.runner import recording_runs

    with recording_runs() as started:
        with pytest.raises(KeyboardInterrupt):
            await run_judgments(Vectorised(stop_after=7), items(20), cache=cache, progress=False)
        counts = started[0].as_dict()
        assert (counts["n"], counts["scored"], counts["unscored"], counts["not_judged"]) == (20, 7, 0, 13)
        assert counts["interrupted"] is True
        _, stats = await run_judgments(Vectorised(), items(20), cache=cache, progress=False)
        assert (stats.scored, stats.not_judged) == (20, 0)
        assert started[1] is stats
        merged = started[0].merge(stats).as_dict()
        assert (merged["n"], merged["scored"], merged["not_judged"], merged["interrupted"]) == (40, 27, 13, True)
    assert runner._RECORDING == []  # nothing kept once the block ends
    await run_judgments(Vectorised(), items(3), cache=cache, progress=False)
    assert len(started) == 2  # a run after the block is recorded nowhere


async def test_a_vectorised_judge_that_awaits_has_each_result_committed_when_the_loop_is_free(
    cache: JudgmentCache,
) -> None:
    judge = Vectorised(pause=True)
    judge.cache = cache
    await run_judgments(judge, items(5), cache=cache, progress=False)
    assert judge.seen_in_cache == [1, 2, 3, 4, 5]
