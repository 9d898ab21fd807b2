"""Suites of graded tasks: loading a manifest, grading a task, and result tiers.

A manifest is TOML or JSON (docs/graded.md lists every field). Its hash is
the sha256 of the canonical JSON of the parsed manifest, so the same suite
written in either format hashes alike; floats are hashed as their shortest
decimal string because canonical JSON refuses floats.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from arena.canonical import content_hash, sha256_hex
from arena.errors import BadInput, unknown_field
from arena.graded.graders import (
    CONTRACTS,
    Contract,
    Grade,
    Grader,
    SpecError,
    build_grader,
    grade_output,
)
from arena.paths import resource_path

TIERS: tuple[str, ...] = ("reference", "community")
# Deeper than any manifest needs; deeper still would exhaust the stack of what reads it.
MAX_DEPTH = 32
_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_TOP_KEYS = {"name", "version", "description", "answer_contract", "tasks"}
_TASK_KEYS = {"id", "category", "input", "weight", "grader", "answer_contract", "reference"}


@dataclass(frozen=True)
class Task:
    task_id: str
    category: str
    input: str
    grader: Grader
    weight: float = 1.0
    answer_contract: Contract = "final_line"
    # An output that must earn full credit: checked on load, so a suite cannot ship a
    # task its own grader fails.
    reference: str | None = None

    @property
    def input_hash(self) -> str:
        """sha256 of the input's UTF-8 bytes (the receipt for what was asked)."""
        return sha256_hex(self.input)


@dataclass(frozen=True)
class Suite:
    name: str
    manifest_hash: str
    tasks: tuple[Task, ...]
    version: str = ""
    description: str = ""
    source: str = ""
    # The manifest as written, so a ledger or a bundle can parse it again to the same hash.
    manifest_text: str = ""
    manifest_format: str = "toml"

    @property
    def categories(self) -> tuple[str, ...]:
        """Categories in order of first appearance."""
        return tuple(dict.fromkeys(t.category for t in self.tasks))

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise KeyError(task_id)


# --- loading -----------------------------------------------------------------


def grade(
    task: Task, output: str | None, *, finish_reason: str | None = None, timed_out: bool = False
) -> Grade:
    """Grade ``output`` for ``task`` with the task's grader and answer contract."""
    return grade_output(
        task.grader, task.answer_contract, output, finish_reason=finish_reason, timed_out=timed_out
    )


def bundled_suites() -> list[str]:
    """Names of the suites shipped under resources/suites/."""
    folder = resource_path("suites")
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.iterdir() if p.suffix in (".toml", ".json"))


def load_suite(name_or_path: str | Path) -> Suite:
    """Load a manifest file, or a bundled suite by name (``starter``)."""
    path = Path(name_or_path)
    if not path.is_file() and isinstance(name_or_path, str) and _TASK_ID.fullmatch(name_or_path):
        for suffix in (".toml", ".json"):
            candidate = resource_path("suites", name_or_path + suffix)
            if candidate.is_file():
                path = candidate
                break
    if not path.is_file():
        known = ", ".join(bundled_suites()) or "none"
        raise BadInput(
            f"no such suite file or bundled suite (bundled: {known})", path=str(name_or_path)
        )
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(f"not valid UTF-8 (byte {error.start + 1})", path=str(path)) from None
    fmt = "json" if path.suffix.lower() == ".json" else "toml"
    return parse_suite(text, fmt=fmt, source=str(path))


def parse_suite(text: str, *, fmt: str = "toml", source: str = "<suite>") -> Suite:
    """Parse and validate manifest text; errors are BadInput naming source, line and field."""
    raw = _parse(text, fmt, source)
    locate = _Locator(text, fmt, raw)

    def bad(where: str, message: str, index: int | None = None) -> BadInput:
        return BadInput(message, path=source, line=locate(where, index), field=where)

    if not isinstance(raw, dict):
        raise BadInput("the manifest must be a table/object", path=source, line=1)
    unknown = sorted(set(raw) - _TOP_KEYS)
    if unknown:
        raise bad(unknown[0], unknown_field(unknown[0], _TOP_KEYS))
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise bad("name", "expected a non-empty string")
    for key in ("version", "description"):
        if not isinstance(raw.get(key, ""), str):
            raise bad(key, "expected a string")
    default_contract = raw.get("answer_contract", "final_line")
    if default_contract not in CONTRACTS:
        raise bad("answer_contract", f"expected one of {', '.join(CONTRACTS)}")
    items = raw.get("tasks")
    if not isinstance(items, list) or not items:
        raise bad("tasks", "expected a non-empty list of tasks")
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        task = _task(item, index, default_contract, bad)
        if task.task_id in seen:
            raise bad(
                f"tasks[{index}].id",
                f"{task.task_id!r} is already the id of tasks[{seen[task.task_id]}]",
                index,
            )
        seen[task.task_id] = index
        tasks.append(task)
    try:
        manifest_hash = content_hash(_hashable(raw))
    except ValueError as error:
        raise BadInput(str(error), path=source) from None
    return Suite(
        name=name,
        manifest_hash=manifest_hash,
        tasks=tuple(tasks),
        version=raw.get("version", ""),
        description=raw.get("description", ""),
        source=source,
        manifest_text=text,
        manifest_format=fmt,
    )


def _parse(text: str, fmt: str, source: str) -> Any:
    try:
        parsed = _parse_text(text, fmt, source)
    except RecursionError:
        parsed = None
    if parsed is None or _too_deep(parsed):
        raise BadInput(f"values nested deeper than {MAX_DEPTH} levels", path=source)
    return parsed


def _too_deep(value: Any) -> bool:
    """Whether ``value`` nests deeper than MAX_DEPTH (walked without recursion)."""
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [
            child
            for item in level
            if isinstance(item, (dict, list))
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        if not level:
            return False
    return True


def _parse_text(text: str, fmt: str, source: str) -> Any:
    if fmt == "json":
        try:
            return json.loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as error:
            raise BadInput(
                f"not valid JSON: {error.msg} (column {error.colno})",
                path=source,
                line=error.lineno,
            ) from None
        except ValueError as error:
            raise BadInput(str(error), path=source) from None
    if fmt != "toml":
        raise ValueError(f"fmt must be 'toml' or 'json', not {fmt!r}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+)", str(error))
        raise BadInput(
            f"not valid TOML: {error}", path=source, line=int(found.group(1)) if found else None
        ) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _task(item: Any, index: int, default_contract: str, bad: Any) -> Task:
    where = f"tasks[{index}]"
    if not isinstance(item, dict):
        raise bad(where, "expected a table/object", index)
    unknown = sorted(set(item) - _TASK_KEYS)
    if unknown:
        raise bad(f"{where}.{unknown[0]}", unknown_field(unknown[0], _TASK_KEYS), index)
    task_id = item.get("id")
    if not isinstance(task_id, str) or not _TASK_ID.fullmatch(task_id):
        raise bad(f"{where}.id", "expected an id of letters, digits, '.', '_' or '-'", index)
    for key in ("category", "input"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise bad(f"{where}.{key}", "expected a non-empty string", index)
    weight = item.get("weight", 1)
    if (
        isinstance(weight, bool)
        or not isinstance(weight, (int, float))
        or not math.isfinite(weight)
        or weight <= 0
    ):
        raise bad(f"{where}.weight", "expected a positive number", index)
    contract = item.get("answer_contract", default_contract)
    if contract not in CONTRACTS:
        raise bad(f"{where}.answer_contract", f"expected one of {', '.join(CONTRACTS)}", index)
    try:
        _check_json_values(item.get("grader"))
        grader = build_grader(item.get("grader"))
    except SpecError as error:
        raise bad(f"{where}.grader.{error.field}", error.message, index) from None
    reference = item.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise bad(f"{where}.reference", "expected a string", index)
    task = Task(
        task_id=task_id,
        category=item["category"].strip(),
        input=item["input"],
        grader=grader,
        weight=float(weight),
        answer_contract=contract,
        reference=reference,
    )
    if reference is not None:
        verdict = grade(task, reference)
        if not verdict.passed:
            raise bad(
                f"{where}.reference",
                f"its own grader gives it {verdict.status} with "
                f"credit {verdict.credit:g} ({verdict.detail})",
                index,
            )
    return task


def _check_json_values(value: Any) -> None:
    """TOML dates and times have no JSON form, so a suite could not hash alike in both."""
    if isinstance(value, (datetime, date, time)):
        raise SpecError("expected", "dates and times are not JSON values; quote them")
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError("expected", "nan and inf are not JSON values")
    if isinstance(value, dict):
        for item in value.values():
            _check_json_values(item)
    elif isinstance(value, list):
        for item in value:
            _check_json_values(item)


def _hashable(value: Any) -> Any:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return {k: _hashable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_hashable(v) for v in value]
    if isinstance(value, (datetime, date, time)):
        raise ValueError("dates and times are not JSON values; quote them")
    return value


class _Locator:
    """Best-effort line of a field: neither tomllib nor json reports positions of values."""

    def __init__(self, text: str, fmt: str, raw: Any) -> None:
        self.lines = text.split("\n")  # line numbers as an editor counts them
        self.fmt = fmt
        self.raw = raw

    def _find(self, pattern: str, start: int = 0, stop: int | None = None) -> int | None:
        compiled = re.compile(pattern)
        for number in range(start, len(self.lines) if stop is None else stop):
            if compiled.search(self.lines[number]):
                return number
        return None

    def _key(self, key: str) -> str:
        return (
            rf'"{re.escape(key)}"\s*:'
            if self.fmt == "json"
            else rf"(^|[{{,\s]){re.escape(key)}\s*="
        )

    def __call__(self, where: str, index: int | None) -> int | None:
        last = re.sub(r"\[\d+\]", "", where).split(".")[-1]
        if index is None:
            found = self._find(self._key(last))
            return None if found is None else found + 1
        start, stop = self._task_span(index)
        if start is None:
            return None
        found = self._find(self._key(last), start, stop) if last != f"tasks[{index}]" else None
        return (start if found is None else found) + 1

    def _task_span(self, index: int) -> tuple[int | None, int | None]:
        if self.fmt == "toml":
            heads = [
                n for n, line in enumerate(self.lines) if re.match(r"\s*\[\[\s*tasks\s*\]\]", line)
            ]
            if index < len(heads):
                return heads[index], heads[index + 1] if index + 1 < len(heads) else None
            return None, None
        tasks = self.raw.get("tasks") if isinstance(self.raw, dict) else None
        item = tasks[index] if isinstance(tasks, list) and index < len(tasks) else None
        task_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(task_id, str):
            return None, None
        line = self._find(rf'"id"\s*:\s*{re.escape(json.dumps(task_id))}')
        if line is None:
            return None, None
        # The id may come after other fields of its object: search from the object's start.
        opening = next((n for n in range(line, -1, -1) if "{" in self.lines[n]), line)
        following = self._find(r'"id"\s*:', line + 1)
        if following is None:
            return opening, None
        # End the span where the next task's object opens, so its fields are not ours.
        closing = next((n for n in range(following, line, -1) if "{" in self.lines[n]), following)
        return opening, closing


# --- tiers -------------------------------------------------------------------


def check_tier(tier: str) -> str:
    """Return ``tier`` if Arena may label a result with it; refuse ``verified``."""
    if tier == "verified":
        raise BadInput(
            "verified needs an independent replay by another operator; "
            "Arena cannot grant it (use reference or community)",
            field="tier",
        )
    if tier not in TIERS:
        raise BadInput(f"expected one of {', '.join(TIERS)}, found {tier!r}", field="tier")
    return tier
