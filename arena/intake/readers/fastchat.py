"""FastChat / MT-bench answers: ``model_answer/*.jsonl`` beside the ``question.jsonl`` they answer.

A case is one question; its prompt and each answer join the turns with a
blank line and a turn marker, so multi-turn answers are judged whole. An
answer with a different number of turns than its question is refused, unless
the import judges the first turn only (``ReadOptions.turns == "first"``, `arena
import --turns first`): then every case is the question's first turn and every
answer its first turn, whatever the number of turns the file holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.errors import BadInput
from arena.intake.jsonstream import iter_json_lines
from arena.intake.readers.base import (
    ParsedOutput,
    ReadOptions,
    as_case_id,
    as_label,
    as_record,
    as_text,
    bad,
    plain_descriptor,
)


def join_turns(turns: list[str]) -> str:
    if len(turns) == 1:
        return turns[0]
    return "\n\n".join(f"**Turn {i}**\n\n{t}" for i, t in enumerate(turns, start=1))


def _turns(value: Any, path: Path, line: int, name: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise bad(path, line, name, "expected a non-empty list of turns")
    return [as_text(t, path, line, f"{name}[{i}]") for i, t in enumerate(value)]


def _questions(path: Path, options: ReadOptions) -> dict[str, tuple[str, list[str]]]:
    found: dict[str, tuple[str, list[str]]] = {}
    for line, record in iter_json_lines(path):
        record = options.redactor.value(record)
        record = as_record(record, path, line, ("question_id",))
        qid = as_case_id(record["question_id"], path, line, "question_id")
        if qid in found:
            raise bad(path, line, "question_id", f"question {qid} appears twice")
        found[qid] = (
            str(record.get("category") or "general"),
            _turns(record.get("turns"), path, line, "turns"),
        )
    return found


def default_questions(answers: Path) -> Path:
    """``question.jsonl`` in the folder above ``model_answer/``, where FastChat keeps it."""
    return answers.resolve().parent.parent / "question.jsonl"


def read(path: Path, options: ReadOptions) -> Iterator[ParsedOutput]:
    questions_path = options.questions or default_questions(path)
    if not questions_path.is_file():
        raise BadInput(
            "FastChat answers need their questions: pass --questions FILE "
            f"(looked for {questions_path})",
            path=str(path),
        )
    questions = _questions(questions_path, options)
    first_only = options.turns == "first"
    for line, record in iter_json_lines(path, options.progress, limit=options.max_record_bytes):
        record = options.redactor.value(record)
        record = as_record(record, path, line, ("question_id", "model_id", "choices"))
        qid = as_case_id(record["question_id"], path, line, "question_id")
        if qid not in questions:
            raise bad(path, line, "question_id", f"question {qid} is not in {questions_path}")
        category, prompt_turns = questions[qid]
        label = as_label(record["model_id"], path, line, "model_id")
        choices = record["choices"]
        if not isinstance(choices, list) or not choices:
            raise bad(path, line, "choices", "expected a non-empty list")
        for index, choice in enumerate(choices):
            name = f"choices[{index}]"
            if not isinstance(choice, dict):
                raise bad(path, line, name, "expected an object with turns")
            turns = _turns(choice.get("turns"), path, line, f"{name}.turns")
            if first_only:
                prompt, text = prompt_turns[0], turns[0]
            elif len(turns) != len(prompt_turns):
                raise bad(
                    path,
                    line,
                    f"{name}.turns",
                    f"{len(turns)} answer turn(s) for a question of {len(prompt_turns)}"
                    + (
                        " (import with --turns first to judge the first turn only)"
                        if len(turns) < len(prompt_turns)
                        else ""
                    ),
                )
            else:
                prompt, text = join_turns(prompt_turns), join_turns(turns)
            yield ParsedOutput(
                line=line,
                case_id=qid,
                category=category,
                prompt=prompt,
                label=label,
                descriptor=plain_descriptor(label),
                text=text,
                sample=index,
            )
