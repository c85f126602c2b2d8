"""Your own criterion in plain words, judged like the built-in verdicts: ``--judge rubric:FILE``.

Why: every team has criteria no built-in judge covers ("cites a source for every figure",
"refuses when the context does not answer"). A rubric file states one in words, says what the
judge may see, and may give worked examples and steps; the judge asks one yes/no question and
reads P(yes) from one token (with the structured verdict and its reason where the server has no
logprobs), so a rubric gets what the built-in judges get: calibration, ``fit``, estimates with
intervals, A/B and gates. The prompt is built here from the rubric, versioned by the rubric's
version and the digest of its text: editing a rubric re-judges, never reuses a cached verdict.
"""

from __future__ import annotations

import errno
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_ai.models import Model
from typing_extensions import Unpack

from ragjury.config.instructions import ONE_DIGIT_RULE, UNTRUSTED_DATA_RULE, Instruction
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.prompting import CONTEXT, EVALUATED_ANSWER, QUESTION, REFERENCE, tagged
from ragjury.rag_agent.judges.llm.correctness import Verdict
from ragjury.rag_agent.judges.llm.verdict_base import (
    Ballot,
    ThresholdVerdictJudge,
    VerdictOptions,
    VerdictOutput,
    tagged_list,
)

RUBRIC_FORMAT = "1"
SeenField = Literal["question", "answer", "context", "reference"]
FIELDS: tuple[str, ...] = ("question", "answer", "context", "reference")
MAX_RUBRIC_BYTES = 256 * 1024


class RubricExample(BaseModel):
    """A worked example: what the judge sees, and whether it passes (and why)."""

    model_config = ConfigDict(extra="forbid")

    question: str | None = None
    answer: str | None = None
    context: str | None = None
    reference: str | None = None
    verdict: Literal["pass", "fail"]
    why: str | None = None


class Rubric(BaseModel):
    """One criterion in plain words: ``name``, ``criterion``, what the judge ``sees``, optional
    ``steps`` and worked ``examples``, and a ``version`` to bump when its meaning changes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64)
    criterion: str = Field(min_length=3)
    sees: tuple[SeenField, ...] = ("question", "answer")
    steps: tuple[str, ...] = ()
    examples: tuple[RubricExample, ...] = ()
    version: str = "1"
    strict: bool = Field(default=True, strict=True)  # true/false only: the string "no" is no answer
    """An item lacking a field the rubric sees is unscored (True), or judged on what it has (a one-line
    ``--rubric`` sees every field an item may have)."""

    @classmethod
    def inline(cls, criterion: str) -> Rubric:
        """``--rubric "TEXT"``: one criterion in words, seeing whatever each item has."""
        if not isinstance(criterion, str):
            raise TypeError(f"Rubric.inline takes the criterion as text, got {type(criterion).__name__}")
        return cls(name="rubric", criterion=criterion.strip(), sees=("question", "answer", "context", "reference"),
                   strict=False)

    @field_validator("criterion")
    @classmethod
    def _said(cls, value: str) -> str:
        if len(value.strip()) < 3:
            raise ValueError("the criterion is blank: say in words what the answer must do")
        return value

    @field_validator("name")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", value):
            raise ValueError("a name of letters, digits, '-', '_' or '.' (it names the verdict column)")
        return value

    @field_validator("sees")
    @classmethod
    def _sees(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if "answer" not in value:
            raise ValueError("must include answer: a rubric judges an answer")
        return tuple(f for f in FIELDS if f in value)  # one order, whatever the file's

    @property
    def digest(self) -> str:
        """The rubric's text, hashed: part of the prompt version, so an edit re-judges."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:10]

    @classmethod
    def from_file(cls, path: str | Path) -> Rubric:
        """A rubric file (YAML or JSON); ``InputError`` names the file and the field."""
        path = Path(path)
        try:
            _regular_file(path)
            if path.stat().st_size > MAX_RUBRIC_BYTES:
                raise InputError(str(path), f"larger than {MAX_RUBRIC_BYTES:,} bytes: not a rubric")
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(str(path), f"cannot read: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise InputError(str(path), f"not UTF-8 text (byte 0x{error.object[error.start]:02x} at position "
                             f"{error.start}): save the rubric as UTF-8") from None
        try:
            if path.suffix.lower() == ".json":
                data = json.loads(text, object_pairs_hook=_pairs_without_duplicates)
            else:
                data = _yaml_without_duplicates(text)
        except DuplicateKey as error:
            raise InputError(str(path), f"{error.key!r} is given twice: give each key once", field=str(error.key),
                             line=error.line) from None
        except Exception as error:  # noqa: BLE001 - json's and YAML's errors share no base but Exception
            line = getattr(getattr(error, "problem_mark", None), "line", None)
            raise InputError(str(path), f"not YAML or JSON: {str(error).splitlines()[0]}",
                             line=None if line is None else line + 1) from None
        if not isinstance(data, dict):
            raise InputError(str(path), f"expected a mapping with name and criterion, got {type(data).__name__}")
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise InputError(str(path), str(first["msg"]).removeprefix("Value error, "), field=where or None) from None


def _regular_file(path: Path) -> None:
    """A rubric is a regular file: a FIFO would hang the read, a symlink loop is no missing file;
    each says what it is, in one line (``InputError``)."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(str(path), "a symbolic link loop (the link points back to itself): give the rubric file "
                             "itself") from None
        if path.is_symlink():
            raise InputError(str(path), "a symbolic link to a file that does not exist") from None
        raise InputError(str(path), "no such rubric file (give --judge rubric:PATH.yaml)") from None
    if stat.S_ISDIR(mode):
        raise InputError(str(path), "a folder, not a rubric file (give --judge rubric:FOLDER for every rubric in it)")
    if not stat.S_ISREG(mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "not a regular file"
        raise InputError(str(path), f"{kind}: give a rubric file (YAML or JSON)")


class DuplicateKey(ValueError):
    """A key given twice in a rubric file (YAML and JSON keep the last one without a word)."""

    def __init__(self, key: object, line: int | None = None) -> None:
        super().__init__(f"{key!r} given twice")
        self.key, self.line = key, line


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen[key] = value
    return seen


def _yaml_without_duplicates(text: str) -> Any:
    """``yaml.safe_load`` that refuses a key given twice (YAML keeps the last one silently: a second
    ``name:`` would rename the verdict column without a word)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise DuplicateKey(key, key_node.start_mark.line + 1)
            seen.add(key)
        return loader.construct_mapping(node, deep=deep)

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Loader=Loader)  # noqa: S506 - a SafeLoader subclass


def _examples_text(rubric: Rubric) -> str:
    if not rubric.examples:
        return ""
    blocks = []
    for index, example in enumerate(rubric.examples, start=1):
        shown = _fields_text(rubric, {f: getattr(example, f) for f in FIELDS}, budget=400)
        why = f" ({example.why})" if example.why else ""
        blocks.append(f"Example {index}:\n{shown}\nVerdict: {'1' if example.verdict == 'pass' else '0'}{why}")
    return "\n\nWorked examples.\n" + "\n\n".join(blocks)


def _rules(rubric: Rubric) -> str:
    steps = "".join(f"\n{i}. {step}" for i, step in enumerate(rubric.steps, start=1))
    return (
        "You check one criterion of an answer, as a careful reviewer would.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        f"The criterion ({rubric.name}): {rubric.criterion.strip()}\n"
        + (f"\nCheck it in these steps:{steps}\n" if steps else "")
    )


def instructions_of(rubric: Rubric) -> tuple[Instruction, Instruction]:
    """The structured prompt (reason, then verdict) and the one-token prompt of a rubric."""
    version = f"{rubric.version}.{rubric.digest}"
    examples = _examples_text(rubric)
    structured = Instruction(
        name=f"rubric_{rubric.name}", version=version,
        text=(_rules(rubric) + '\nVerdict "1": the answer meets the criterion. Verdict "0": it does not.\n'
              "Give a one-sentence reason first, then the verdict." + examples + "\n\nAnswer with the JSON object only."),
    )
    token = Instruction(
        name=f"rubric_{rubric.name}_token", version=version,
        text=(_rules(rubric) + "\n1 = the answer meets the criterion.\n0 = it does not." + examples
              + f"\n\nAnswer 1 or 0. {ONE_DIGIT_RULE}"),
    )
    return structured, token


def item_fields(item: Any) -> dict[str, str | None]:
    """What a rubric may see of any task's item: question, answer, context, reference."""
    contexts = getattr(item, "contexts", None)
    if contexts is None and getattr(item, "sources", None):
        contexts = [getattr(source, "content", str(source)) for source in item.sources]
    references = getattr(item, "references", None)
    return {
        "question": getattr(item, "question", None),
        "answer": getattr(item, "answer", None),
        "context": "\n\n".join(c for c in contexts if c.strip()) if contexts else None,
        "reference": "\n".join(r for r in references if r.strip()) if references else None,
    }


def _fields_text(rubric: Rubric, fields: dict[str, str | None], budget: int) -> str:
    tags = {"question": QUESTION, "answer": EVALUATED_ANSWER, "context": CONTEXT, "reference": REFERENCE}
    parts = []
    for name in rubric.sees:
        value = fields.get(name)
        if value is None:
            continue
        if name == "context":
            shown, omitted = tagged_list(CONTEXT, [value], budget)
            parts.append(shown + (f"\n({omitted} characters of context were not shown: token budget.)" if omitted else ""))
        else:
            parts.append(tagged(tags[name], value))
    return "\n\n".join(parts)


class RubricJudge(ThresholdVerdictJudge[Any, Verdict]):
    """Does the answer meet the rubric's criterion? One token's P("1"), or the structured verdict
    with its reason; a field the rubric sees that the item lacks leaves it unscored, saying which."""

    supports_logprobs = True
    verdict_output = VerdictOutput

    def __init__(self, rubric: Rubric, model: str | Model | None = None, *, threshold: float = 0.5,
                 **options: Unpack[VerdictOptions]) -> None:
        self.rubric = rubric
        self.name = f"rubric:{rubric.name}"
        self.verdict_instruction, self.token_instruction = instructions_of(rubric)
        self.instructions = (self.verdict_instruction, self.token_instruction)
        super().__init__(model, threshold=threshold, **options)

    def problem(self, item: Any) -> str | None:
        fields = item_fields(item)
        if not (fields.get("answer") or "").strip():
            return "empty answer: nothing to judge against the rubric"
        missing = [name for name in self.rubric.sees if name != "answer" and not (fields.get(name) or "").strip()]
        if missing and self.rubric.strict:
            return f"rubric '{self.rubric.name}' sees the {' and '.join(missing)}, which this item lacks"
        return None

    def verdict_prompt(self, item: Any) -> str:
        return _fields_text(self.rubric, item_fields(item), self.settings.source_token_budget)

    def probability_value(self, p_true: float) -> Verdict:
        return Verdict.from_probability(p_true, self.threshold, "pass")

    def ballot_value(self, ballot: Ballot[VerdictOutput, str]) -> Verdict:
        return Verdict.of_ballot(ballot)


def rubric_judge(spec: str, settings: Any = None, **options: Any) -> RubricJudge:
    """``rubric:PATH`` (a YAML or JSON file) as a judge."""
    return RubricJudge(Rubric.from_file(spec), settings=settings, **options)


def rubrics_in(paths: Sequence[str | Path]) -> list[Rubric]:
    """The rubrics of files or folders (``*.yaml``, ``*.yml``, ``*.json`` inside a folder)."""
    out = []
    for path in map(Path, paths):
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".yaml", ".yml", ".json")) if path.is_dir() else [path]
        out.extend(Rubric.from_file(file) for file in files)
    return out


__all__ = ["FIELDS", "Rubric", "RubricExample", "RubricJudge", "instructions_of", "item_fields", "rubric_judge",
           "rubrics_in"]
