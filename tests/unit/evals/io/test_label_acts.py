"""The labels file of ``ragjury label``: appended acts survive, replay into labels by the documented
rule, and read as people's labels in every trust command (``load_human_labels``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.evals.io.human_labels import load_human_labels
from ragjury.evals.io.label_acts import LabelAct, append_act, people_labels, read_acts, replay
from ragjury.rag_agent.core.input_files import InputError


def act(ident: str, kind: str = "label", label: object = True, who: str = "ana", **extra: object) -> LabelAct:
    return LabelAct(id=ident, act=kind, annotator=who, label=label if kind == "label" else None, **extra)  # type: ignore[arg-type]


def test_acts_round_trip_and_undo_takes_back_the_last_live_act(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    for a in (act("1"), act("2", label=False), act("2", "undo"), act("3", "unsure"), act("4", "skip")):
        append_act(out, a)
    acts = read_acts(out)
    assert [a.act for a in acts] == ["label", "label", "undo", "unsure", "skip"]
    state = replay(acts)["ana"]
    assert state[(None, "1")].label is True
    assert (None, "2") not in state or state[(None, "2")].label is None
    assert state[(None, "3")].unsure and state[(None, "4")].skipped


def test_a_last_line_cut_by_a_crash_is_skipped_and_cut_off_before_the_next_act(tmp_path: Path) -> None:
    """#54 item 17: the cut tail was never acknowledged, so the next append removes it; it never
    becomes a middle line that every reader would then refuse."""
    out = tmp_path / "labels.jsonl"
    append_act(out, act("1"))
    with out.open("a") as handle:
        handle.write('{"id": "2", "act": "lab')  # killed mid-write
    assert [a.id for a in read_acts(out)] == ["1"]
    append_act(out, act("3"))
    lines = out.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["1", "3"]
    assert [a.id for a in read_acts(out)] == ["1", "3"]


def test_a_bad_act_names_file_line_and_field(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    out.write_text('{"id": "1", "act": "label", "annotator": "ana", "label": 7}\n')
    with pytest.raises(InputError) as error:
        read_acts(out)
    assert str(error.value).startswith(f"{out}:1: field 'label'")


def test_several_annotators_majority_ties_left_out_unsure_and_skips_not_counted() -> None:
    acts = [
        act("a", who="x"), act("a", who="y"), act("a", label=False, who="z"),  # 2:1 yes
        act("b", who="x"), act("b", label=False, who="y"),                      # tie
        act("c", "unsure", who="x"), act("d", "skip", who="y"),
        act("e", label=False, who="x"), act("e", "undo", who="x"), act("e", who="x"),  # undone, relabelled
    ]
    people = people_labels(acts)
    assert people.labels == {(None, "a"): True, (None, "e"): True}
    assert people.ties == [(None, "b")] and people.unsure == 1 and people.skipped == 1


def test_labels_given_with_the_judge_shown_are_refused_unless_allowed() -> None:
    acts = [act("a"), act("a", label=False, shown_judge=True)]
    with pytest.raises(InputError, match="--allow-shown-judge"):
        people_labels(acts)
    assert people_labels(acts, allow_shown_judge=True).labels == {(None, "a"): False}


def test_a_recheck_never_replaces_the_first_label() -> None:
    acts = [act("a"), act("a", label=False, recheck=True)]
    state = replay(acts)["ana"][(None, "a")]
    assert state.label is True and state.recheck_label is False


def test_a_labels_file_reads_as_the_equivalent_hand_written_labels(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    for a in (act("q1", inclusion_probability=0.5), act("q2", label=False), act("q3", "skip")):
        append_act(out, a)
    hand = tmp_path / "hand.jsonl"
    hand.write_text('{"id": "q1", "label": true, "inclusion_probability": 0.5}\n{"id": "q2", "label": false}\n')
    from_acts = {k: (v.label, v.inclusion_probability) for k, v in load_human_labels(out).items()}
    from_hand = {k: (v.label, v.inclusion_probability) for k, v in load_human_labels(hand).items()}
    assert from_acts == from_hand == {"q1": (1.0, 0.5), "q2": (0.0, None)}
