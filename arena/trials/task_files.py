"""Reading a task file: TOML ``[[task]]`` tables or JSON Lines, checked against
``resources/schema/tasks.schema.json`` and against the files it names (docs/tests.md).

Nothing here touches the ledger: a file is read and checked whole, and every problem is
a ``BadInput`` naming the file, the line of the task and the field.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema

from arena.errors import BadInput
from arena.paths import resource_path
from arena.trials.limits import DEFAULT_MEMORY_MB, DEFAULT_TIME_LIMIT_S
from arena.trials.protected import RULE, Place, refusal


@dataclass(frozen=True)
class RepoSpec:
    """Where a task's code comes from, as the file gave it (paths made absolute)."""

    kind: str  # "git", "folder" or "tarball"
    path: Path
    base_commit: str | None = None
    root: str | None = None


@dataclass(frozen=True)
class TaskSpec:
    """One task as read from the file, its paths checked to exist."""

    line: int | None
    case_id: str
    prompt: str
    category: str
    repository: RepoSpec
    # (where in the checkout, the file beside the task file), one per file.
    hidden_tests: tuple[tuple[str, Path], ...]
    test_command: tuple[str, ...]
    time_limit_s: float
    memory_mb: int
    environment: str
    max_processes: int | None = None
    disk_mb: int | None = None
    log_mb: int | None = None
    # Absolute paths the tests may read besides the system's folders and their interpreter.
    read_only_paths: tuple[str, ...] = ()


@cache
def _schema() -> dict[str, Any]:
    schema = json.loads(resource_path("schema", "tasks.schema.json").read_text("utf-8"))
    jsonschema.validators.validator_for(schema).check_schema(schema)
    return schema


def read_task_file(path: Path, places: list[Place]) -> list[TaskSpec]:
    """Every task of ``path`` (``.toml``, else JSON Lines), checked, none of its paths in
    ``places`` (``protected.refusal``); BadInput at the first problem."""
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"not UTF-8 text ({exc.reason})", path=str(path)) from None
    records = (
        _toml_records(path, text) if path.suffix.lower() == ".toml" else _json_lines(path, text)
    )
    specs: list[TaskSpec] = []
    seen: dict[str, int | None] = {}
    for line, record, locate in records:
        spec = _task(path, line, record, locate, places)
        if spec.case_id in seen:
            where = f" (also on line {seen[spec.case_id]})" if seen[spec.case_id] else ""
            raise BadInput(
                f"task {spec.case_id!r} appears twice{where}", path=str(path), line=line, field="id"
            )
        seen[spec.case_id] = line
        specs.append(spec)
    if not specs:
        raise BadInput("no tasks found", path=str(path))
    return specs


Locate = Any  # (field name) -> line number or None


def _toml_records(path: Path, text: str) -> Iterator[tuple[int | None, Any, Locate]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        raise BadInput(
            f"not valid TOML: {exc}", path=str(path), line=int(found.group(1)) if found else None
        ) from None
    extra = sorted(set(data) - {"task"})
    if extra:
        raise BadInput(
            "unknown top-level key; a task file holds only [[task]] tables",
            path=str(path),
            field=extra[0],
        )
    tasks = data.get("task")
    if not isinstance(tasks, list):
        raise BadInput("expected [[task]] tables", path=str(path), field="task")
    lines = text.split("\n")
    headers = [n + 1 for n, raw in enumerate(lines) if re.match(r"\s*\[\[\s*task\s*\]\]", raw)]
    for index, record in enumerate(tasks):
        start = headers[index] if len(headers) == len(tasks) else None
        stop = headers[index + 1] if start is not None and index + 1 < len(headers) else None

        def locate(field: str, start: int | None = start, stop: int | None = stop) -> int | None:
            return _line_of(lines, field, start, stop)

        yield start, record, locate


def _line_of(lines: list[str], field: str, start: int | None, stop: int | None) -> int | None:
    """The line of ``field`` (``key``, ``key[i].sub``) in the task whose ``[[task]]`` header
    is line ``start``; the header's line when it cannot be told."""
    if start is None:
        return None
    found = re.match(r"(\w+)(?:\[(\d+)\](?:\.(\w+))?)?", field)
    if found is None:
        return start
    key, index, sub = found.groups()
    end = stop - 1 if stop else len(lines)
    body = range(start, end)  # 0-based indexes of the lines after the header
    # An array of tables ([[task.key]]): the index-th header, then its sub-key.
    headers = [n for n in body if re.match(rf"\s*\[\[\s*task\.{key}\s*\]\]", lines[n])]
    if headers and index is not None and int(index) < len(headers):
        first = headers[int(index)]
        last = next((n for n in range(first + 1, end) if lines[n].lstrip().startswith("[")), end)
        for number in range(first + 1, last):
            if sub and re.match(rf"\s*{sub}\s*=", lines[number]):
                return number + 1
        return first + 1
    if headers:
        return headers[0] + 1
    for number in body:
        if re.match(rf"\s*{key}\s*=", lines[number]):
            return number + 1
    return start


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_lines(path: Path, text: str) -> Iterator[tuple[int | None, Any, Locate]]:
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw, parse_constant=_no_constant)
        except ValueError as exc:
            raise BadInput(f"not valid JSON ({exc})", path=str(path), line=number) from None
        yield number, record, (lambda field, number=number: number)


def _field_of(error: jsonschema.ValidationError) -> str:
    parts = list(error.absolute_path)
    name = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        return f"{name}.{missing}" if name else missing
    return name or "(task)"


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "required":
        return "missing"
    if error.validator == "oneOf" and list(error.absolute_path) == ["repository"]:
        return (
            "expected {git = PATH, base_commit = COMMIT}, {folder = PATH} or "
            "{tarball = PATH[, root = FOLDER]}"
        )
    return error.message if len(error.message) < 200 else error.message[:197] + "…"


def _task(
    path: Path, line: int | None, record: Any, locate: Locate, places: list[Place]
) -> TaskSpec:
    def bad(field: str, message: str) -> BadInput:
        return BadInput(message, path=str(path), line=locate(field) or line, field=field)

    if not isinstance(record, dict):
        raise bad("(task)", "expected a table/object")
    validator = jsonschema.validators.validator_for(_schema())(_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(record))
    if error is not None:
        raise bad(_field_of(error), _message(error))
    case_id = str(record["id"]).strip()
    if not case_id:
        raise bad("id", "an id cannot be empty")
    if "\x00" in record["prompt"]:
        raise bad("prompt", "contains a NUL character")

    def named(field: str, value: str) -> Path:
        """The path ``value`` names, resolved; BadInput when the rule refuses it."""
        given = Path(value).expanduser()
        return allowed(field, given if given.is_absolute() else path.parent / given)

    def allowed(field: str, where: Path) -> Path:
        why = refusal(where, places, pack=path.parent)
        if why:
            raise bad(field, f"{why}: {RULE}")
        return where.resolve()

    repository = _repository(record["repository"], named, bad)
    return TaskSpec(
        line=line,
        case_id=case_id,
        prompt=record["prompt"],
        category=record.get("category", "general").strip() or "general",
        repository=repository,
        hidden_tests=_hidden_tests(record["hidden_tests"], named, allowed, bad),
        test_command=tuple(record["test_command"]),
        time_limit_s=float(record.get("time_limit_s", DEFAULT_TIME_LIMIT_S)),
        memory_mb=int(record.get("memory_mb", DEFAULT_MEMORY_MB)),
        environment=record.get("environment", ""),
        max_processes=record.get("max_processes"),
        disk_mb=record.get("disk_mb"),
        log_mb=record.get("log_mb"),
        read_only_paths=_read_only_paths(record.get("read_only_paths", []), named, bad),
    )


def _read_only_paths(given: list[str], named: Any, bad: Any) -> tuple[str, ...]:
    """The task's ``read_only_paths``, made absolute; each must exist."""
    found: list[str] = []
    for index, value in enumerate(given):
        field = f"read_only_paths[{index}]"
        where = named(field, value)
        if not where.exists():
            raise bad(field, f"no such file or folder {where}")
        found.append(str(where))
    return tuple(found)


def _repository(given: dict[str, Any], named: Any, bad: Any) -> RepoSpec:
    kind = next(k for k in ("git", "folder", "tarball") if k in given)
    where = named(f"repository.{kind}", given[kind])
    if kind == "tarball":
        if not where.is_file():
            raise bad("repository.tarball", f"no such file {where}")
        root = given.get("root")
        if root is not None:
            root = _relative(root, "repository.root", bad)
        return RepoSpec("tarball", where, root=root)
    if not where.is_dir():
        raise bad(f"repository.{kind}", f"no such folder {where}")
    return RepoSpec(kind, where, base_commit=given.get("base_commit"))


def _relative(value: str, field: str, bad: Any) -> str:
    """A path inside the checkout: relative, without '..', not inside .git."""
    pure = PurePosixPath(value.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or pure.parts == (".",):
        raise bad(field, f"expected a path inside the repository, not {value!r}")
    if pure.parts[0] == ".git":
        raise bad(field, "a hidden test cannot go inside .git")
    return pure.as_posix()


def _hidden_tests(
    items: list[dict[str, str]], named: Any, allowed: Any, bad: Any
) -> tuple[tuple[str, Path], ...]:
    placed: dict[str, Path] = {}
    for index, item in enumerate(items):
        field = f"hidden_tests[{index}]"
        source = named(f"{field}.file", item["file"])
        if "to" in item:
            target = _relative(item["to"], f"{field}.to", bad)
        elif Path(item["file"]).is_absolute() or ".." in Path(item["file"]).parts:
            raise bad(f"{field}.to", "missing (needed when `file` is absolute or has '..')")
        else:
            target = _relative(item["file"], f"{field}.file", bad)
        if source.is_file():
            files = [(target, source)]
        elif source.is_dir():
            # A file in the folder may be a link: each is held to the rule too.
            files = [
                (
                    f"{target}/{inner.relative_to(source).as_posix()}",
                    allowed(f"{field}.file", inner),
                )
                for inner in sorted(source.rglob("*"))
                if inner.is_file()
            ]
            if not files:
                raise bad(f"{field}.file", f"the folder {source} holds no files")
        else:
            raise bad(f"{field}.file", f"no such file {source}")
        for where, file in files:
            if where in placed:
                raise bad(f"{field}.to", f"two hidden test files would both go to {where}")
            placed[where] = file
    return tuple(placed.items())
