"""What every importer yields: one parsed output with the line it came from."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from arena.errors import BadInput
from arena.intake.jsonstream import MAX_RECORD_BYTES
from arena.records import (
    TEST_RESULTS,
    OutputDetails,
    SystemDescriptor,
    TestResult,
    TrialResult,
    name_problem,
)
from arena.redact import Redactor

Progress = Callable[[int], None]


@dataclass(frozen=True)
class ParsedOutput(OutputDetails):
    line: int
    case_id: str
    category: str
    prompt: str
    label: str
    descriptor: SystemDescriptor
    text: str
    sample: int = 0
    test_result: TestResult | None = None
    # A report's result for the output (SWE-bench): stored as an imported trial, with why.
    trial_result: TrialResult | None = None
    trial_reason: str = ""
    # The language the case expects, when the file says (None: the family's, or detected).
    language: str | None = None
    # Family settings a native file carries (name, kind, language, ...).
    family: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReadOptions:
    """What a reader needs beyond the file itself."""

    redactor: Redactor = field(default_factory=Redactor)
    questions: Path | None = None
    progress: Progress | None = None
    max_record_bytes: int = MAX_RECORD_BYTES
    # SWE-bench runs: the harness's report (else the one found beside the predictions),
    # the task records giving the prompts, and the run's harness and label.
    report: Path | None = None
    tasks: Path | None = None
    harness: str | None = None
    label: str | None = None
    # Told what a reader found worth saying (the report it read, results missing).
    note: Callable[[str], None] | None = None
    # FastChat: judge every turn ("all") or the first turn only ("first").
    turns: str = "all"


Reader = Callable[[Path, ReadOptions], Iterator[ParsedOutput]]


def bad(path: Path, line: int, field_name: str, message: str) -> BadInput:
    return BadInput(message, path=str(path), line=line, field=field_name)


def as_record(
    value: Any,
    path: Path,
    line: int,
    required: Sequence[str],
    *,
    expected: str = "expected a JSON object",
    missing: str = "missing",
) -> dict[str, Any]:
    """A record that must be an object with the fields ``required`` (any value, null too)."""
    if not isinstance(value, dict):
        raise bad(path, line, "(record)", expected)
    for name in required:
        if name not in value:
            raise bad(path, line, name, missing)
    return value


def as_text(value: Any, path: Path, line: int, name: str, *, allow_none: bool = False) -> str:
    """A required string field; a missing answer text is data (empty), not an error."""
    if value is None and allow_none:
        return ""
    if not isinstance(value, str):
        raise bad(path, line, name, f"expected text, found {type(value).__name__}")
    if "\x00" in value:
        raise bad(path, line, name, "contains a NUL character")
    return value


def as_case_id(value: Any, path: Path, line: int, name: str) -> str:
    # Integer and string ids name the same case ("1" and 1): files in the wild mix them.
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise bad(path, line, name, "expected a string or integer id")
    return as_name(str(value), path, line, name)


def as_label(value: Any, path: Path, line: int, name: str) -> str:
    """A system's label (or model name) as a file gives it, without the spaces around it."""
    return as_name(as_text(value, path, line, name), path, line, name)


def as_name(text: str, path: Path, line: int, name: str) -> str:
    """``text`` stripped, refused unless it can be an id or a label (``name_problem``)."""
    problem = name_problem(text)
    if problem is not None:
        raise bad(path, line, name, problem)
    return text.strip()


def as_number(value: Any, path: Path, line: int, name: str) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise bad(path, line, name, "expected a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise bad(path, line, name, f"expected a number, found {value!r}") from None
    if not math.isfinite(number) or number < 0:
        raise bad(path, line, name, f"expected a finite number ≥ 0, found {value!r}")
    return number


def as_count(value: Any, path: Path, line: int, name: str) -> int | None:
    number = as_number(value, path, line, name)
    if number is None:
        return None
    if number != int(number):
        raise bad(path, line, name, f"expected a whole number, found {value!r}")
    return int(number)


def as_test_result(value: Any, path: Path, line: int, name: str) -> TestResult | None:
    if value is None or value == "":
        return None
    if value not in TEST_RESULTS:
        raise bad(path, line, name, f"expected one of {', '.join(TEST_RESULTS)}, found {value!r}")
    return cast(TestResult, value)


def plain_descriptor(label: str) -> SystemDescriptor:
    """Files that name a system only by a label: the label is all we know of it."""
    return SystemDescriptor(model=label)
