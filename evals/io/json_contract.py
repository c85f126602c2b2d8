"""The one contract of every ``--json`` object: versioned, and the same key for the same thing.

Scripts chain several commands' output, so shared keys are built here once, and every object
starts with ``schema_version`` and ``command``. Bump ``SCHEMA_VERSION`` whenever a key is renamed,
removed or changes meaning (new keys do not); the key table is in docs/json-contract.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

RESERVED = ("schema_version", "command")

SHARED_KEYS: dict[str, str] = {
    "schema_version": "version of this contract (1); it changes when a key is renamed, removed or changes "
    "meaning",
    "command": "the command that wrote the object: `evaluate`, `verdict correctness`, ...",
    "mode": "which shape: `dataset` / `agent` / `criteria` (evaluate), `qrels` / `jsonl` (agreement), `dry_run` "
    "(evaluate, relevance with --dry-run: nothing judged)",
    "dry_run": "with --dry-run: {items, cached, duplicates, to_judge, prompts, input_tokens, "
    "output_token_cap, price_usd, models, not_estimated, model_free, assumptions} before any model call",
    "task": "what was judged: correctness, faithfulness, score, relevance, relevance_graded, goal",
    "judge": "the judge: as asked for with --judge (runs; a run read back by report: the --judge names its rows "
    "carry), or the one that answered (one judgment)",
    "judges": "verdicts per judge that actually produced them, e.g. {\"contains\": 20}",
    "fallback": "{count, share, judge}: verdicts from the fallback judge (--judge auto)",
    "verdicts_by": "the same as a sentence: `answer_correctness (model M) for 81.5 %, contains as fallback "
    "for 18.5 %`",
    "n": "items in the run (runs) or reports graded (non-llm-judge)",
    "scored": "items with a verdict",
    "not_judged": "items an interrupted run never reached (0 once a run ends): neither scored nor unscored",
    "empty_answers": "correctness: answers that were empty, judged wrong with no model call (scored, in the rate)",
    "injection_flags": "items whose text addresses the judge (model-free rules): 'flagged' (a count) and 'items' "
    "(id, system, flags: rule, field, start, end, text); gated by --fail-on-injection",
    "flagged": "injection_flags: items whose text addresses the judge",
    "paired_items_labels_differ": "report A B: paired items whose people labels differ between A and B (each run "
    "is scored against its own labels); null when no shared item has labels in both",
    "trust": "whose rate 'result' is and how far it is measured: rate_is, measured_against_people, labels, "
    "judge_kind ('built-in', 'a rubric', 'a Python check', 'a fitted head'), public_bias (the team's measurement of "
    "this judge on public data, or null), note (the line printed under the result, or null when labelled)",
    "rate_is": "trust: whose rate the result is",
    "measured_against_people": "trust: whether people's labels in the run measured the judge",
    "judge_kind": "trust: built-in, or the user's own judge (a rubric, a Python check, a fitted head)",
    "public_bias": "trust: how far this judge's rate sat from people's on the public dev sets (the team's figure)",
    "line_1": "trust: which rate the terminal's line 1 states: `the judge's rate` (no labels), `people-corrected "
    "estimate` (people labelled some items: prediction-powered) or `people's rate` (people labelled every item)",
    "people": "trust: each system's rate as people would judge it where they labelled items: {system, rate, interval, "
    "n_labels, n_items, method, judge_rate}; null without labels",
    "judge_rate": "people: the judge's own rate of that system, beside people's",
    "people_labels": "with --labels (estimate, evaluate, report, agreement, fit): what the labels file gave, read once "
    "by one reader: {source, form (acts, rows, csv, python), labels (kept), annotators, ties_left_out, "
    "unsure_left_out, skipped_left_out, shown_judge, unlabelled_rows, rule (acts files), people_vs_people: "
    "[{annotators, n, cohen_kappa, kappa_interval, agreement, disagreements: [{system, id}]}] (several annotators)}",
    "people_estimate": "report A B --labels: the `estimate A B --labels` object (each config's rate and B - A as "
    "people would judge it, joined on the question); the gate then decides on its B - A",
    "paired_questions": "label-plan A B: questions both configs answered (the plan draws from them); null for one file",
    "unpaired_rows": "label-plan A B: per config, rows whose question the other config lacks (left out of the plan)",
    "unscored": "runs: items the judge could not score (never counted as 0); one judgment: true/false",
    "cached": "judgments taken from the cache",
    "judged": "judgments made in this run (identical items once)",
    "duplicates": "items identical to an earlier item of the run (same judge and input): they share its judgment; cached + judged + duplicates = n",
    "fallback_used": "runs: verdicts from the fallback judge; one judgment: true/false",
    "not_attempted": "items never sent: the model server was unreachable",
    "input_tokens": "tokens sent to the model (this run or judgment)",
    "output_tokens": "tokens the model returned",
    "tokens": "input_tokens + output_tokens",
    "requests": "HTTP requests to the model server, retries included",
    "wall_s": "seconds the run took",
    "judgments_per_s": "judged / wall_s",
    "interrupted": "the run was stopped (Ctrl-C); what completed is in the cache",
    "endpoints": "with several --base-url servers: [{url, answered, failures, moved, hedges, late, unreadable, "
    "mean_latency_s}] per server (moved: failed requests sent on to another server; hedges: requests it got "
    "because another had not answered in time; late: requests another server answered first; unreadable: answers "
    "that held no output the judge could read (counted on its breaker, the request sent on)); absent with one server",
    "executor": "where the items were judged: `process` (this one) or `ray` (--executor ray)",
    "cache_unreadable": "cached judgments that could not be read back (a value type this version does not "
    "know, data that no longer validates): judged again; absent when none",
    "label": "one judgment's verdict: true/false, a 0-3 grade, or the 0-1 overall score (task score); "
    "null when unscored",
    "value": "one judgment's typed result (statements, reason, dimensions, ...); null when unscored",
    "model": "the model that answered (judge model; agent model for ask); null for model-free judges",
    "prompt_version": "name@version of the prompt used",
    "fallback_reason": "why the fallback judge answered (one judgment)",
    "latency_s": "seconds one judgment (or the agent's answer) took",
    "usage": "{input_tokens, output_tokens, requests} of one judgment or answer",
    "unscored_reason": "why one judgment is unscored (null when scored)",
    "attempts": "samples or attempts behind one judgment (--samples N)",
    "method": "how the verdict was read: logprobs (P(yes) of one token), sampled (P(yes) asked for but the server "
    "gave no logprobs: the sampled answer's verdict) or structured (a typed answer by choice: --samples, "
    "method structured); null for single-method judges",
    "sampled": "{judgments, of}: scored model judgments whose P(yes) could not be read (no logprobs from the "
    "server: method 'sampled' in their rows, the verdict from the sampled answer) of those read either way "
    "(method 'logprobs' or 'sampled'); gated by --max-sampled; null when no judgment was read from a model",
    "stability": "with --repeats K: {repeats, items, scored_in_every_repeat, changed (items whose verdict changed "
    "across the repeats), changed_share, fleiss_kappa (across the repeats; null when every verdict is one value), "
    "mean_item_agreement, item_agreement (per item, in data order: the share of its verdicts equal to its "
    "commonest one; null where a repeat left it unscored)}; the judge card carries the same without item_agreement",
    "judged_answer": "the text the verdict read where the judge reduces the answer first (llm-guarded: the "
    "short answer it gives; an empty one is unscored with its reason); null for judges that read the answer as is",
    "sample_agreement": "share of the --samples votes that agree with the verdict",
    "votes": "each --samples vote",
    "result": "what the run scored, first: {measure (judged rate or mean score), rate or mean, interval [low, "
    "high], n_scored, n_unscored (left out of the rate), level, method (Wilson score interval for a rate, "
    "percentile bootstrap over items for a mean score), by_system: {name: {value, interval, n_scored, "
    "n_unscored}}}",
    "figures": "flat {name: number or null}: the names --fail-under gates read",
    "intervals": "bootstrap 95 % intervals of the figures, {name: [low, high] or null} (items resampled, "
    "seed 0): accuracy, cohen_kappa, binary_krippendorff_alpha, precision, recall, f1, kendall_tau; {} without labels",
    "gate_failures": "failed --fail-under / --max-fallback / --max-unscored / --fail-on-negative gates, "
    "one sentence each; [] when none",
    "agreement": "judge vs people on labels: n_total, n_scored, coverage, accuracy, cohen_kappa, "
    "krippendorff_alpha, precision, recall, f1, labels, confusion (rows gold, columns judge)",
    "ranking": "systems ranked by people and by the judge: {measure, systems: {name: {gold, judge}}, "
    "correlation: {n, kendall_tau, spearman, kendall_p, spearman_p}}",
    "per_system": "runs with systems: {system: {statistic: value}}, every per-system statistic declared in "
    "evals/stats/system_statistics.py (n, labelled, people_yes or people_mean, judged_yes, agreement, "
    "cohen_kappa or judge_mean, mean_abs_difference); {} when no item names its system",
    "inputs": "files read, by role: {data, gold, judged, runs, topics, passages, corpus, predictions, ...}",
    "outputs": "files written, by role: {predictions, html, qrels, unscored, calibration, ...}; "
    "null when not written",
}
"""Keys with one meaning in every ``--json`` object that has them (docs/json-contract.md)."""

COMMAND_KEYS: dict[str, dict[str, str]] = {
    "evaluate": {
        "labelled": "items with a gold label",
        "criteria": "mode criteria (several --judge, or --judge rubric:FOLDER): {name: that criterion's own "
        "`evaluate` object (mode dataset)}, in --judge order; `judge` is then the list of --judge values; an "
        "interrupted run (interrupted: true) gives {name: its counts so far}, a criterion not yet started with every "
        "row not_judged, and the counts in all beside it",
        "input_mapping": "how --data was read: {reader, format (ragjury, ragas, deepeval), columns, "
        "detected, map}",
        "judge_card": "binary task with labels: the judge's biases on the labelled items, 95 % intervals: "
        "{level, n_labelled, length_of, systems: [{system, n_labelled, judge_rate, people_rate, leniency: "
        "{value, interval, n}, lenient, strict, cohen_kappa, cohen_kappa_interval}], length_bias: "
        "{slope_per_100_words, found, held_fixed, quartile_gaps} or null, findings, notes}",
        "score_correlation": "task score: {pearson, spearman, mae} of judge scores against gold scores",
        "system_estimates": "people labelled some items but not all: each system's rate as people would judge it "
        "(prediction-powered): {level, n_items, n_labels, n_unscored, interval, systems, comparison, notes}",
        "agent": "mode agent: the agent's run: questions, answered, errors, cached, asked, tokens, requests, "
        "wall_s",
        "score": "mode agent: run counts of the score stage, its mean, its `result` (as the shared key, with "
        "its interval) and who judged",
        "faithfulness": "mode agent: the same for the faithfulness stage",
        "correctness": "mode agent: the same for the correctness stage (with --correctness-judge)",
    },
    "agreement": {
        "rel": "qrels: relevant means grade >= rel (the binary figures)",
        "judged_rel": "qrels: a judged pair counts as relevant from this grade (rel, or 1 for a binary judge's 0/1 qrels)",
        "n_gold": "qrels: gold (query, passage) pairs",
        "n_judged": "qrels: judged pairs",
        "n_shared": "qrels: pairs with both a gold and a judged grade",
        "n_judged_only": "qrels: judged pairs without a gold grade (ignored)",
        "graded_agreement": "qrels: `agreement` on the 0-3 grades (quadratic kappa, ordinal alpha)",
        "n_missing_predictions": "jsonl: gold rows without a prediction (unscored)",
        "n_predictions_without_gold": "jsonl: predictions without a gold row (ignored)",
    },
    "relevance": {
        "scale": "binary or graded",
        "pooled_runs": "names of the runs whose top --depth were pooled",
        "depth": "--depth (null without runs)",
        "pooled": "(query, passage) pairs pooled",
        "skipped_missing_query": "pairs skipped: no query text",
        "skipped_missing_passage": "pairs skipped: no passage text",
        "written": "pairs written to the qrels",
        "grades": "pairs per grade written",
    },
    "calibrate": {
        "fitted": "items the cut-off was fitted on (scored, with probabilities)",
        "positives": "positive items among them",
        "threshold": "binary: label = P(1) >= threshold",
        "cuts": "graded: cut points on the expected grade",
        "kappa_uncalibrated": "kappa of the judge's own labels",
        "kappa_in_sample": "kappa with the cut-off fitted on all items (optimistic)",
        "kappa_cv": "cross-validated kappa",
        "kappa_cv_interval": "its bootstrap 95 % interval",
        "accuracy_cv": "cross-validated accuracy",
        "folds": "cross-validation folds",
        "no_better_than_chance": "the kappa_cv interval reaches 0 or the AUC is at most 0.5 (warned on stderr)",
        "auc": "area under the ROC curve of P(1)",
        "ece_before": "expected calibration error of the probabilities",
        "ece_after_cv": "the same after the isotonic map, cross-validated",
    },
    "fit": {
        "positives": "labelled items whose label is yes",
        "skipped": "labelled items left out: without signals, or (relevance) qrels pairs whose query or passage --topics / --passages do not have",
        "threshold": "the head's cut-off on P(yes), chosen on out-of-fold probabilities",
        "l2": "the penalty strength chosen by cross-validation",
        "features": "the signals the head reads, in its weights' order",
        "head_random": "the head, random folds: {kappa, kappa_interval, accuracy, auc}",
        "head_by_question": "the head, folds by question (new questions): the same keys",
        "base": "the base judge on the same items: {judge, kappa, kappa_interval, accuracy, auc}",
        "beats_base": "the gain over the base judge is shown: its 95 % interval (gain_interval) lies above 0 (false where the interval holds 0: no better shown)",
        "cross_validation": "how the figures were cross-validated: nested (strength and cut-off chosen inside each "
        "training fold)",
        "gain": "head_random kappa - base kappa on the same items",
        "gain_interval": "paired bootstrap 95 % interval of gain (items resampled)",
        "judging": "relevance: the llm judge's run counts for P('1') (cached, judged, unscored, ...)",
        "cross_encoder": "with --cross-encoder: {folder, digest} of the cross-encoder whose logit P(yes) is the last "
        "feature; null otherwise",
    },
    "train": {
        "positives": "labelled items whose label is yes",
        "folds": "cross-validation trainings behind the figures (0: none)",
        "cross_validated": "the trained model on items each fold never saw: {cross_validation, kappa, kappa_interval, "
        "accuracy, auc}; null with --folds 0",
        "base": "the judge it would replace on the same items (contains, support, or the --base model): {judge, kappa, "
        "kappa_interval, accuracy, auc}, with compared_on and left_out where some items lack that judge's signals "
        "(they are left out of the comparison); null where none",
        "gain": "cross_validated kappa - base kappa on the same items (the compared ones)",
        "gain_interval": "paired bootstrap 95 % interval of gain (items resampled)",
        "training_seconds": "seconds the final model trained",
        "seed": "the seed of the head, the order and the folds",
        "teacher": "with --teacher: {items (the teacher's unlabelled items learnt as soft targets), weight}; null "
        "otherwise",
    },
    "estimate": {
        "systems": "per system (per config with two files): {system, n_items, n_labels, judge_mean, human_only, "
        "prediction_powered, judge_bias, effective_labels, notes}",
        "comparison": "with --compare A B or two files: B - A as people would judge it, a share (the terminal says "
        "points): {minuend (B), subtrahend (A), a and b (the same two, kept one release as aliases: a is the minuend), "
        "difference {estimate, interval, ...}, independent_std_error, p_value, paired, method, notes, judged_differently "
        "(two files: how their run headers say they were judged differently, e.g. \"model a vs b\"; [] where alike or "
        "a header is missing)}; null otherwise. Where the labels were gathered by `label --until \"B - A\"` (or "
        "\"B >= A - m\"), the difference is the confidence sequence (method says so, p_value null, the fixed-n "
        "interval in notes)",
        "sequential": "only where the labels were gathered by `label --until` (the acts say so): that session's "
        "confidence sequence, {until, state (settled, not settled, budget reached), verdict, estimate, sequence "
        "[low, high], level, n_labels, n_units_labelled, n_units, words, interval_kind, valid: \"sequence\", "
        "fixed_n_valid: false, why}: the fixed-n intervals beside it are not valid for labels gathered until settled",
        "runs": "three runs or more (with --labels): [{name, path, n, unscored}], and no systems or comparison",
        "sweep": "three runs or more (with --labels): report RUN1 ... RUNn --labels's own sweep object, people's "
        "ranking included (see report's sweep)",
    },
    "doctor": {
        "ok": "every check passed",
        "server": "the server checked",
        "checks": "[{name, ok, detail, fix}]",
    },
    "judge-evaluate": {},
    "verdict": {},
    "ask": {
        "question": "the question",
        "answer": "{answer, confidence, sources_used, reasoning}; null when the agent failed",
        "sources": "the passages retrieved [{id, title, content}]",
        "error": "why there is no answer",
        "retrieval": "tool or pre",
        "searches": "the queries the retriever ran",
        "judgments": "with --judge: {score, faithfulness}, each a one-judgment object; null otherwise",
    },
    "non-llm-judge": {
        "leaderboard": "[{rank, run_id, AVG_GRADE}] best first; tied runs share a rank",
        "skipped": "reports whose topic is not in --rag-topics",
    },
    "retrieval": {
        "min_grade": "a graded judge: the grade from which a passage matches (--min-grade, default 2); null for yes/no judges",
        "judgments": "(retrieved passage, expected text) pairs judged",
        "unscored_judgments": "of those, the ones the judge could not score (their queries are left out)",
    },
    "report": {
        "runs": "per predictions file: {name, ...} and the run as `evaluate --json` gives it, with the same values: "
        "task, judge, counts, who judged, labelled, empty_answers, injection_flags, trust, result, figures, "
        "intervals, agreement, score_correlation, ranking, per_system, judge_card, system_estimates; not the run "
        "statistics only a live run has (cached, judged, duplicates, not_judged, not_attempted, input_tokens, "
        "output_tokens, wall_s, judgments_per_s, interrupted, executor, endpoints); tokens and requests are the "
        "rows' own (cached judgments included), where evaluate's are what the run spent",
        "comparison": "two files: {kind (runs: two runs' answers judged by one judge; judges: the same "
        "answers judged twice; unknown: no answer text in the files), items_shared, unmatched {only_a, only_b, different_question: {count, ids}}, "
        "paired (B - A over the questions both scored: {n_pairs, n_unpaired, a, b, difference, interval, "
        "interval_method, p_value, test, counts}), caveat, verdicts_changed, paired_difference "
        "(labelled items: agreement of B - A; null when no shared item has a label), transitions, judged_differently "
        "(how the two runs' headers, STEM.run.json beside each file, say they were judged differently: judge, model, "
        "prompt versions, options; [] where they agree or a file has no header)}",
        "gate": "with --fail-if-worse: {failed, decided, margin, reason, rule}; with three runs or more (or "
        "--baseline), also configs: [{name, failed, reason}]",
        "sweep": "three runs or more, or --baseline (docs/reports.md, Comparing many configs; `runs` is then "
        "[{name, path, n, unscored}]): {configs, baseline, best, clearly_best, headline, binary, task, n_questions, "
        "intervals {method, confidence, resamples, seed, critical_value, n_questions}, left_out {count, missing, "
        "unscored, different_question: {count, ids}, lacking, unscored_by_run}, margin, ranking: [{name, path, "
        "baseline, rate, interval, to_baseline, to_baseline_interval, to_best, to_best_interval, verdict, "
        "differs_from_best, regressed: {count, ids}}] highest rate first, people (with --labels: {labelled, method, best, "
        "clearly_best, headline, intervals, ranking}, each config's rate as people would judge it, which decides the "
        "gate), sequential (only where the labels came from `label RUN1 ... RUNn --until best`: {until, state, "
        "verdict (best, no_difference or null), best, in_running, pairs: [{a, b, estimate_b_minus_a, sequence}], "
        "level, level_each_pair, n_labels, n_units_labelled, n_units, words, interval_kind, valid: \"sequence\", "
        "fixed_n_valid: false})}; every interval simultaneous",
    },
}
"""Keys of one command only; ``verdict`` and ``judge-evaluate`` print one judgment (shared keys)."""


def documented(command: str) -> set[str]:
    """Every key a ``--json`` object of ``command`` (``verdict goal`` is ``verdict``) may have."""
    return set(SHARED_KEYS) | set(COMMAND_KEYS.get(command.split()[0], {}))


def markdown_tables() -> str:
    """The tables of keys in docs/json-contract.md, from the dictionaries above (so docs and code agree)."""
    lines = ["| key | meaning |", "| --- | --- |"]
    lines += [f"| `{key}` | {text} |" for key, text in SHARED_KEYS.items()]
    lines += ["", "| command | its own keys |", "| --- | --- |"]
    for command, keys in COMMAND_KEYS.items():
        cell = "; ".join(f"`{key}`: {text}" for key, text in keys.items()) or "only shared keys"
        lines.append(f"| `{command}` | {cell} |")
    return "\n".join(lines) + "\n"


def write_docs_tables(page: Path) -> bool:
    """Put ``markdown_tables()`` in place of the page's key tables (from its first ``| key |`` line
    to the end of the command table); True when the page changed. ``python -m
    ragjury.evals.io.json_contract`` runs it on docs/json-contract.md."""
    text = page.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("| key | meaning |"))
    end = next(i for i, line in enumerate(lines) if line.startswith("| command | its own keys |"))
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    new = "".join(lines[:start]) + markdown_tables() + "".join(lines[end:])
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text


def document(command: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """``payload`` under the contract's header: ``schema_version`` and ``command`` first."""
    clash = [key for key in RESERVED if key in payload]
    if clash:
        raise ValueError(f"--json payload of {command} sets reserved key(s) {', '.join(clash)}")
    return {"schema_version": SCHEMA_VERSION, "command": command, **payload}


def paths(**roles: Path | str | Sequence[Path | str] | None) -> dict[str, Any]:
    """``inputs`` / ``outputs``: each file by its role (``data``, ``predictions``, ``html``...),
    as a string, a list of strings, or ``None`` where the file was not given or not written."""
    out: dict[str, Any] = {}
    for role, value in roles.items():
        if value is None or isinstance(value, str | Path):
            out[role] = None if value is None else str(value)
        else:
            out[role] = [str(item) for item in value]
    return out


def judgment_fields(judgment: Any) -> dict[str, Any]:
    """The envelope of one judgment (judge, model, prompt_version, unscored, usage, ...) for a
    one-judgment ``--json`` object. A self-consistency judgment's ``agreement`` (the share of
    samples behind the verdict) becomes ``sample_agreement``: ``agreement`` names the
    judge-vs-people figures in every other object."""
    fields = dict(judgment.envelope())
    if "agreement" in fields:
        fields["sample_agreement"] = fields.pop("agreement")
    return fields


def correlation_dict(correlation: Any) -> dict[str, Any] | None:
    """A ``RankCorrelation`` (or its dict) as JSON: n, kendall_tau, spearman and their p-values."""
    if correlation is None:
        return None
    if hasattr(correlation, "model_dump"):
        return dict(correlation.model_dump(mode="json"))
    return dict(correlation)


def ranking(
    measure: str,
    gold: Mapping[str, float],
    judge: Mapping[str, float | None],
    correlation: Any,
    **extra: Any,
) -> dict[str, Any]:
    """``ranking``: each system's score under the gold labels and under the judge's, and how the
    two system rankings correlate. ``measure`` names the score (``mean label``, ``nDCG@10``);
    ``extra`` adds what the measure needs (``k``, ``queries``)."""
    return {
        "measure": measure,
        **extra,
        "systems": {name: {"gold": gold[name], "judge": judge.get(name)} for name in sorted(gold)},
        "correlation": correlation_dict(correlation),
    }


__all__ = [
    "COMMAND_KEYS",
    "RESERVED",
    "SCHEMA_VERSION",
    "SHARED_KEYS",
    "correlation_dict",
    "document",
    "documented",
    "judgment_fields",
    "markdown_tables",
    "write_docs_tables",
    "paths",
    "ranking",
]


if __name__ == "__main__":  # python -m ragjury.evals.io.json_contract: regenerate the docs page's tables
    import sys

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "docs" / "json-contract.md"
    print(f"{target}: {'rewritten' if write_docs_tables(target) else 'already in step'}")
