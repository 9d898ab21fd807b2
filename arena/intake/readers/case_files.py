"""Files of cases without outputs, for `arena case import` (docs/formats.md, "Cases").

Each reader yields a ``ParsedCase`` with the line it came from: native JSON Lines, CSV,
FastChat's ``question.jsonl``, an AlpacaEval evaluation set, and SWE-bench task records
(or a plain list of instance ids, one a line). A case's prompt is its turns joined as the
FastChat reader joins them, so answers imported later find the same case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import unknown_field
from arena.intake.jsonstream import iter_json_array, iter_json_lines
from arena.intake.readers import alpacaeval, csv_format, swebench
from arena.intake.readers.base import ReadOptions, as_case_id, as_record, as_text, bad
from arena.intake.readers.fastchat import join_turns
from arena.records import LANGUAGE_TAG

_CASE_FIELDS = {"id", "prompt", "turns", "category", "language", "reference", "metadata"}


@dataclass(frozen=True)
class ParsedCase:
    line: int
    case_id: str
    category: str
    turns: tuple[str, ...]
    language: str | None = None
    reference: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        return join_turns(list(self.turns))


CaseReader = Callable[[Path, ReadOptions], Iterator[ParsedCase]]


def _turns(value: Any, path: Path, line: int, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise bad(path, line, name, "expected a non-empty list of turns")
    turns = tuple(as_text(t, path, line, f"{name}[{i}]") for i, t in enumerate(value))
    for i, turn in enumerate(turns):
        if not turn.strip():
            raise bad(path, line, f"{name}[{i}]", "a turn cannot be empty")
    return turns


def _language(value: Any, path: Path, line: int, name: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not LANGUAGE_TAG.match(value):
        raise bad(
            path, line, name, f"expected a language tag such as fr or zh-Hans, found {value!r}"
        )
    return value


def _reference(value: Any, path: Path, line: int, name: str) -> str | None:
    """A reference answer: text, or a list of one text per turn (FastChat's form)."""
    if value is None:
        return None
    if isinstance(value, list):
        return join_turns([as_text(t, path, line, f"{name}[{i}]") for i, t in enumerate(value)])
    return as_text(value, path, line, name)


def _metadata(value: Any, path: Path, line: int) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad(path, line, "metadata", "expected an object")
    return value


def read_native(path: Path, options: ReadOptions) -> Iterator[ParsedCase]:
    """``{"id", "prompt" | "turns", "category"?, "language"?, "reference"?, "metadata"?}``."""
    for line, record in iter_json_lines(path, options.progress, limit=options.max_record_bytes):
        record = as_record(options.redactor.value(record), path, line, ("id",))
        has_prompt, has_turns = "prompt" in record, "turns" in record
        if has_prompt == has_turns:
            raise bad(path, line, "prompt", "give either prompt (one turn) or turns (a list)")
        turns = (
            _turns(record["turns"], path, line, "turns")
            if has_turns
            else _turns([record["prompt"]], path, line, "prompt")
        )
        unknown = sorted(set(record) - _CASE_FIELDS)
        if unknown:
            problem = unknown_field(unknown[0], _CASE_FIELDS)
            raise bad(path, line, unknown[0], f"{problem}; put a field of your own under metadata")
        yield ParsedCase(
            line=line,
            case_id=as_case_id(record["id"], path, line, "id"),
            category=_category(record.get("category"), path, line, "category"),
            turns=turns,
            language=_language(record.get("language"), path, line, "language"),
            reference=_reference(record.get("reference"), path, line, "reference"),
            metadata=_metadata(record.get("metadata"), path, line),
        )


def _category(value: Any, path: Path, line: int, name: str) -> str:
    if value is None:
        return "general"
    return as_text(value, path, line, name).strip() or "general"


def read_csv(path: Path, options: ReadOptions) -> Iterator[ParsedCase]:
    """Columns case_id, prompt (+ category, language, reference)."""
    optional = ("category", "language", "reference")
    for line, row in csv_format.rows(path, options, ("case_id", "prompt"), optional):
        yield ParsedCase(
            line=line,
            case_id=as_case_id(row["case_id"], path, line, "case_id"),
            category=_category(row.get("category"), path, line, "category"),
            turns=_turns([row["prompt"]], path, line, "prompt"),
            language=csv_format.as_language(row.get("language"), path, line),
            reference=row.get("reference") or None,
        )


def read_fastchat_questions(path: Path, options: ReadOptions) -> Iterator[ParsedCase]:
    """FastChat's ``question.jsonl``: question_id, category, turns, reference."""
    for line, record in iter_json_lines(path, options.progress, limit=options.max_record_bytes):
        record = as_record(options.redactor.value(record), path, line, ("question_id", "turns"))
        yield ParsedCase(
            line=line,
            case_id=as_case_id(record["question_id"], path, line, "question_id"),
            category=_category(record.get("category"), path, line, "category"),
            turns=_turns(record["turns"], path, line, "turns"),
            reference=_reference(record.get("reference"), path, line, "reference"),
        )


def read_alpacaeval(path: Path, options: ReadOptions) -> Iterator[ParsedCase]:
    """An AlpacaEval set: a JSON list of {instruction, dataset?, output?, generator?}; the
    output, when there, is the reference answer (the set's baseline)."""
    for line, record in iter_json_array(path, options.progress, limit=options.max_record_bytes):
        record = as_record(options.redactor.value(record), path, line, ("instruction",))
        instruction = as_text(record["instruction"], path, line, "instruction")
        generator = record.get("generator")
        yield ParsedCase(
            line=line,
            case_id=alpacaeval.case_id_for(instruction),
            category=_category(record.get("dataset"), path, line, "dataset"),
            turns=_turns([instruction], path, line, "instruction"),
            reference=_reference(record.get("output"), path, line, "output"),
            metadata={"generator": generator} if isinstance(generator, str) else {},
        )


def read_swebench_tasks(path: Path, options: ReadOptions) -> Iterator[ParsedCase]:
    """SWE-bench task records (as ``arena import --tasks`` reads them), or instance ids."""
    for line, (instance_id, (statement, repo), record) in swebench.task_records(path):
        metadata = {
            k: v
            for k, v in options.redactor.value(record).items()
            if k not in ("instance_id", "problem_statement", "repo", "patch", "test_patch")
            and isinstance(v, (str, int, float, bool))
        }
        yield ParsedCase(
            line=line,
            case_id=instance_id,
            category=repo,
            turns=(options.redactor.text(statement),),
            metadata=metadata,
        )


CASE_READERS: dict[str, CaseReader] = {
    "native": read_native,
    "csv": read_csv,
    "fastchat-questions": read_fastchat_questions,
    "alpacaeval": read_alpacaeval,
    "swebench-tasks": read_swebench_tasks,
}
