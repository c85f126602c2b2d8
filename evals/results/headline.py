"""Line 1 of a run: the number a reader will quote, and what it is; and what the team measured of
each built-in judge against people on the public dev sets (its bias), said under a rate without labels.

Why its own view: a judge's rate printed first reads as the truth. Where people labelled some
items, line 1 is the rate as people would measure it (prediction-powered: the judge on every item,
corrected by the labels) with the judge's own rate beside it; where people labelled every item,
their rate; without labels, the judge's rate, said to be the judge's (``trust_note``). The
terminal, the step summary, the page, JUnit and ``--json`` all take it from here.

Why the public measurements are here: they are what line 1 says of a judge's rate where no one
labelled this run's items. A newcomer reads that rate as the truth; where the team measured that
judge on public data, the run says how far its rate sat from people's there (``PUBLIC_BIAS``: a
hint of the direction, not a correction: your data is not ours). Each figure is computed from a
stored pass (``bench/data/``) or a benchmark named beside it; the model is the reference quality
model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragjury.evals.stats.run_result import RUBRIC, RUBRIC_WORD, VERDICT_WORDS, Rate, wilson_interval
from ragjury.rag_agent.core.judge_spec import (
    CROSS_ENCODER_PREFIX,
    FITTED_PREFIX,
    PLUGIN_PREFIX,
    RUBRIC_PREFIX,
    RUBRIC_TEXT_PREFIX,
    JudgeSpec,
    parse,
)


@dataclass(frozen=True)
class PeopleRate:
    """One system's rate as people would measure it, and how it was made."""

    system: str
    value: float
    low: float
    high: float
    n_labels: int
    n_items: int
    method: str
    """``prediction-powered``, ``people's labels only`` (too few for the correction) or ``every item labelled``."""
    judge: float | None

    def text(self) -> str:
        return f"{self.value * 100:.1f} % [{self.low * 100:.1f}, {self.high * 100:.1f}]"

    def as_dict(self) -> dict[str, object]:
        return {"system": self.system, "rate": round(self.value, 6), "interval": [round(self.low, 6), round(self.high, 6)],
                "n_labels": self.n_labels, "n_items": self.n_items, "method": self.method,
                "judge_rate": None if self.judge is None else round(self.judge, 6)}


def verdict_word(task: str | None) -> str:
    """``correct``, ``faithful``, ``relevant``, ``to meet the criterion``: what a yes means."""
    return RUBRIC_WORD if task == RUBRIC else VERDICT_WORDS.get(task or "", "true")


def people_rates(figures: Any) -> list[PeopleRate]:
    """Each system's people-corrected rate where people labelled items of a binary run, else []."""
    records = figures.run.records
    if figures.run.kind != "binary" or not figures.labelled:
        return []
    judge = figures.result.by_system or {"all": figures.result.overall}
    if figures.labelled == len(records):  # every item labelled: people's own rate, no estimate needed
        groups: dict[str, list[bool]] = {}
        for record in records:
            groups.setdefault(record.system or "all", []).append(bool(record.gold))
        if len(groups) > 1 and "all" in groups:
            return []
        out = []
        for system, golds in sorted(groups.items()):
            interval = wilson_interval(sum(golds), len(golds))
            if interval is None:
                continue
            rate: Rate | None = judge.get(system)
            out.append(PeopleRate(system, sum(golds) / len(golds), interval.low, interval.high, len(golds), len(golds),
                                  "every item labelled", None if rate is None else rate.value))
        return out
    return [] if figures.estimates is None else rates_of_estimates(figures.estimates)


def rates_of_estimates(estimates: Any) -> list[PeopleRate]:
    """Each system's best estimate of an ``EstimatesResult`` (prediction-powered, else people's labels only)."""
    out = []
    for system in estimates.systems:
        best = system.prediction_powered or system.human_only
        if best is None:
            continue
        method = "prediction-powered" if system.prediction_powered is not None else "people's labels only"
        out.append(PeopleRate(system.system, best.value, best.low, best.high, system.n_labels, system.n_items, method,
                              system.judge.value))
    return out


def estimates_lead(result: Any) -> list[str]:
    """Line 1 of ``estimate`` (an ``EstimatesResult``), as ``report`` and ``evaluate`` give it: B − A as
    people would judge it where two systems are compared (after the line saying the runs' headers
    differ, where they do), then each system's rate as people would judge it, the judge's beside it.
    The rates are worded first, then B − A (``run_estimates.difference_text``), then put in reading order."""
    rates = [(rate, rate.text()) for rate in rates_of_estimates(result)]
    lead = people_lead(result.task) if rates else ""
    lines = judged_differently_lines(result)  # the run headers differ: said before the difference
    comparison = result.comparison
    if comparison is not None:
        from ragjury.evals.stats.run_estimates import difference_text, p_text

        d = comparison.estimate
        verdict = "differ" if d.low > 0 or d.high < 0 else "cannot be told apart at this level"
        lines.append(f"{difference_text(comparison)} as people would judge it ({result.level * 100:g} % interval), "
                     f"{p_text(comparison.p_value)} ({comparison.method}; they {verdict})")
    if not rates:
        return lines
    how = (f"the judge on {result.n_items - result.n_unscored:,} items corrected by {result.n_labels:,} people's "
           f"labels; {result.level * 100:g} % interval")
    if len(rates) == 1:
        rate, text = rates[0]
        said = "" if rate.judge is None else f"; the judge said {rate.judge * 100:.1f} %"
        return [*lines, f"{lead}: {text} ({how}{said})"]
    lines.append(f"{lead} ({how}):")
    for rate, text in rates:
        said = "" if rate.judge is None else f"; the judge said {rate.judge * 100:.1f} %"
        lines.append(f"  {rate.system}: {text} ({rate.n_labels:,} labels{said})")
    return lines


def people_difference_lines(people: Any) -> list[str]:
    """B - A as people would judge it and each config's rate (an ``estimate A B --labels`` result),
    in points: what ``report A B --labels`` and ``print()`` of a labelled comparison say first."""
    from ragjury.evals.stats.run_estimates import difference_text, p_text

    out = judged_differently_lines(people)
    if people.comparison is not None:
        d = people.comparison
        verdict = "B differs from A" if d.estimate.low > 0 or d.estimate.high < 0 else "A and B cannot be told apart"
        out.append(f"{difference_text(d)} as people would judge it (95 % interval, {p_text(d.p_value)}; {verdict}; "
                   f"{d.method})")
    sequence = getattr(people, "sequential", None)
    if sequence is not None:  # labels gathered until settled: say which figure is valid
        out.append(f"labels gathered until settled (label --until \"{sequence.as_dict()['until']}\"): {sequence.words}; "
                   "the per-config intervals below assume a number of labels fixed in advance")
    for rate in rates_of_estimates(people):
        said = "" if rate.judge is None else f"; the judge said {rate.judge * 100:.1f} %"
        out.append(f"  {rate.system}: {rate.text()} as people would judge it ({rate.n_labels:,} labels{said})")
    return out + [f"note: {note}" for note in people.notes]


def judged_differently_lines(people: Any) -> list[str]:
    """One line before B − A where the two configs' run headers say they were judged differently."""
    apart = getattr(people, "judged_differently", None)
    if not apart:
        return []
    return [f"A and B were judged DIFFERENTLY by their run headers ({'; '.join(apart)}): each judge's rate is "
            "corrected by people's labels of its own config, but the judges' own rates do not compare"]


def judges_under_people(lines: list[str], people: Any) -> list[str]:
    """The judges' own comparison as ``report A B --labels`` shows it under people's B − A: where the
    run headers differ, people's first line has said so (``judged_differently_lines``), so the judges'
    first line says only what it adds (their B − A mixes the answers' difference with the judges'),
    not the headers' differences a second time."""
    if not lines or not judged_differently_lines(people) or "judged DIFFERENTLY" not in lines[0]:
        return list(lines)
    return ["run comparison: the run headers differ (said above), so the judges' B - A mixes the answers' "
            "difference with the judges'", *lines[1:]]


def people_step_summary(text: str, people: Any) -> str:
    """A gate's step summary (Markdown) led by people's B − A and rates under its title, the
    judges' own table after them; ``text`` as it was without people."""
    if people is None or people.comparison is None:
        return text
    title, _, rest = text.partition("\n")
    said = "\n".join(f"- **{line.strip()}**" if number == 0 else f"- {line.strip()}"
                     for number, line in enumerate(people_difference_lines(people)))
    return f"{title}\n\n{said}\n\nthe judges' own rates:\n{rest}"


def people_difference_cards(people: Any, task: str | None) -> dict[str, str]:
    """The page's first cards of a labelled comparison: B − A as people would judge it, then each
    config's rate as people would judge it; {} without people (the judges' cards lead then)."""
    if people is None:
        return {}
    from ragjury.evals.stats.run_estimates import difference_text, p_text

    cards: dict[str, str] = {}
    if people.comparison is not None:
        d = people.comparison
        verdict = "B differs from A" if d.estimate.low > 0 or d.estimate.high < 0 else "A and B cannot be told apart"
        cards["B − A as people would judge it (95 %)"] = f"{difference_text(d)} · {p_text(d.p_value)} ({verdict})"
    for rate in rates_of_estimates(people):
        said = "" if rate.judge is None else f"; the judge said {rate.judge * 100:.1f} %"
        cards[f"{rate.system}: {people_lead(task)} (95 %)"] = f"{rate.text()} ({rate.n_labels:,} labels{said})"
    return cards


def people_lead(task: str | None) -> str:
    """``correct as people would judge it``; ``meets the criterion as ...`` for a rubric or a check."""
    word = verdict_word(task)
    return "meets the criterion as people would judge it" if word == RUBRIC_WORD else f"{word} as people would judge it"


def headline(figures: Any) -> list[str]:
    """The terminal's first lines: people's rate where there are labels, then the judge's own."""
    task = figures.verdict_task
    judged = figures.result.lines(task)
    rates = people_rates(figures)
    if not rates:
        return judged
    labels = sum(rate.n_labels for rate in rates)
    if rates[0].method == "every item labelled":
        how = f"people labelled all {labels:,} items; 95 % Wilson interval"
    else:
        items = sum(rate.n_items for rate in rates)
        how = f"the judge on {items:,} items corrected by {labels:,} people's labels; 95 % interval"
    lead = people_lead(task)
    if len(rates) == 1 and rates[0].system == "all":
        rate = rates[0]
        lines = [f"{lead}: {rate.text()} ({how})"]
    else:
        lines = [f"{lead} ({how}):"]
        for rate in rates:
            own = "" if rate.judge is None else f"; the judge said {rate.judge * 100:.1f} %"
            few = "" if rate.method != "people's labels only" else ", people's labels only (too few to correct the judge)"
            lines.append(f"  {rate.system}: {rate.text()} ({rate.n_labels:,} labels{few}{own})")
    return lines + [f"the judge's own rate, {judged[0]}"] + judged[1:]


def headline_dict(figures: Any) -> dict[str, object]:
    """The same for ``--json``'s ``trust`` block: which rate line 1 is, and people's rates."""
    rates = people_rates(figures)
    if not rates:
        return {"line_1": "the judge's rate", "people": None}
    what = "people's rate" if rates[0].method == "every item labelled" else "people-corrected estimate"
    return {"line_1": what, "people": [rate.as_dict() for rate in rates]}


# -- what the team measured of the built-in judges on public data ------------------------------------------

PUBLIC_BIAS: dict[tuple[str, str], str] = {
    ("correctness", "llm"): "over-stated people's rate by 3.0 points on EVOUNA-NQ (1,060 answers, Qwen2.5-Coder-1.5B: "
                            "74.9 % vs 71.9 %; bench/data/evouna-nq-correctness-llm.jsonl)",
    ("correctness", "llm-guarded"): "under-stated people's rate by 7.2 points on EVOUNA-NQ (710 answers, "
                                    "Qwen2.5-Coder-1.5B: 63.8 % vs 71.0 %; "
                                    "bench/data/evouna-nq-correctness-llm-guarded.jsonl)",
    ("correctness", "contains"): "under-stated people's rate by 10-17 points on each of the five EVOUNA-NQ systems "
                                 "(bench/bench_ppi.py)",
    ("relevance", "llm"): "under-stated people's rate by 16.7 points on TREC DL 2019 (1,486 pairs, Qwen2.5-Coder-1.5B: "
                          "17.4 % vs 34.1 % relevant; bench/data/dl19-relevance-llm.jsonl)",
}
"""(task, judge) -> where its rate sat against people's on public data, and the source."""

UNMEASURED_KINDS: dict[str, str] = {
    RUBRIC_PREFIX: "a rubric",
    RUBRIC_TEXT_PREFIX: "a rubric",
    PLUGIN_PREFIX: "a Python check",
    FITTED_PREFIX: "a fitted head",
    CROSS_ENCODER_PREFIX: "a cross-encoder",
}
"""Judges the team cannot have measured: the user's own criteria and heads."""


def public_bias(task: str | None, judge: JudgeSpec | str | None) -> str | None:
    """The team's public-data bias of ``judge`` on ``task``, or None where it was not measured."""
    if task is None or judge is None:
        return None
    return PUBLIC_BIAS.get((task, judge.value if isinstance(judge, JudgeSpec) else judge))


def unmeasured_kind(judge: JudgeSpec | str | None) -> str | None:
    """"a rubric", "a Python check", "a fitted head" for the user's own judges (every member of a
    panel counts); None for a built-in judge. A run just judged gives the ``JudgeSpec`` its command
    parsed; a run read back, the judge words of its rows (parsed here)."""
    if not judge:
        return None
    if isinstance(judge, JudgeSpec):
        specs: list[JudgeSpec] = [judge]
    else:
        whole = parse(judge.strip())  # a panel's own commas are no list of judges
        specs = ([whole] if whole.kind == "panel" or "," not in judge
                 else [parse(name.strip()) for name in judge.split(",")])
    for spec in specs:  # a run's judges may be several names joined ("llm, contains")
        for part in spec.members or (spec,):
            if part.prefix in UNMEASURED_KINDS:
                return UNMEASURED_KINDS[part.prefix]
    return None


def trust_note(task: str | None, judge: JudgeSpec | str | None, labelled: int,
               predictions: str = "PRED.jsonl") -> str | None:
    """The line a run without people's labels prints under its rate: whose rate it is, what the team
    measured of this judge on public data (or that nobody has measured it), and the commands that
    measure it here. None when the run has labels (its agreement says how far to trust it)."""
    if labelled:
        return None
    fix = (f"to measure it: 'ragjury label-plan {predictions} --budget 40 --out plan.jsonl', 'ragjury label "
           f"plan.jsonl --out labels.jsonl', then 'ragjury estimate {predictions} --labels labels.jsonl'")
    kind = unmeasured_kind(judge)
    if kind is not None:
        return (f"not measured against your labels: {kind} has no agreement figure with people on this data or any "
                f"other, so this is its own rate, not people's; {fix}")
    bias = public_bias(task, judge)
    measured = f"; on public data it {bias}" if bias else ""
    return f"this is the judge's rate, not yet measured against people on this data{measured}; {fix}"


def trust_dict(task: str | None, judge: JudgeSpec | str | None, labelled: int) -> dict[str, object]:
    """The same in ``--json``: which rate line 1 is, and how far it is measured."""
    kind = unmeasured_kind(judge)
    return {
        "rate_is": "the judge's" if not labelled else "the judge's, with agreement on the labelled items",
        "measured_against_people": bool(labelled),
        "labels": labelled,
        "judge_kind": kind or "built-in",
        "public_bias": None if kind else public_bias(task, judge),
        "note": trust_note(task, judge, labelled),
    }


def trust_block(figures: Any) -> dict[str, object]:
    """The ``trust`` block of a run in ``--json`` (``evaluate`` and ``report`` alike): whose rate
    line 1 is, how far the judge is measured, and people's rates where they labelled items."""
    judge = getattr(figures, "judge_spec", None) or figures.judge  # the parsed --judge of a run just judged
    return {**trust_dict(figures.task, judge, figures.labelled), **headline_dict(figures)}


__all__ = ["PUBLIC_BIAS", "UNMEASURED_KINDS", "PeopleRate", "estimates_lead", "headline", "headline_dict",
           "judged_differently_lines", "judges_under_people", "people_difference_cards", "people_lead", "people_step_summary",
           "people_rates", "public_bias", "rates_of_estimates", "trust_block", "trust_dict", "trust_note",
           "unmeasured_kind", "verdict_word"]
