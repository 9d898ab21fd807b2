"""The native format: JSON Lines, one output per line (docs/formats.md)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema

from arena.intake.jsonstream import iter_json_lines
from arena.intake.readers.base import (
    ParsedOutput,
    ReadOptions,
    as_case_id,
    as_label,
    as_text,
    bad,
)
from arena.paths import resource_path
from arena.records import SystemDescriptor


@cache
def _schema() -> dict[str, Any]:
    schema = json.loads(resource_path("schema", "native-output.schema.json").read_text("utf-8"))
    jsonschema.validators.validator_for(schema).check_schema(schema)
    return schema


@cache
def _is_valid() -> Callable[[Any], Any]:
    # fastjsonschema compiles the schema to Python: ~20x faster on the common, valid path.
    return fastjsonschema.compile(_schema())


def _first_error(record: Any) -> jsonschema.ValidationError | None:
    """The most relevant error, from the reference implementation, for the message."""
    validator = jsonschema.validators.validator_for(_schema())(_schema())
    return jsonschema.exceptions.best_match(validator.iter_errors(record))


def _field_name(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        return f"{path}.{missing}" if path else missing
    if error.validator == "additionalProperties":
        return path or "(record)"
    return path or "(record)"


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "required":
        return "missing"
    if error.validator == "oneOf":
        return "expected a family name or a family settings object"
    return error.message if len(error.message) < 200 else error.message[:197] + "…"


def read(path: Path, options: ReadOptions) -> Iterator[ParsedOutput]:
    for line, record in iter_json_lines(path, options.progress, limit=options.max_record_bytes):
        record = options.redactor.value(record)
        if not isinstance(record, dict):
            raise bad(path, line, "(record)", "expected a JSON object")
        try:
            _is_valid()(record)
        except fastjsonschema.JsonSchemaException:
            error = _first_error(record)
            if error is not None:
                raise bad(path, line, _field_name(error), _message(error)) from None
            raise bad(path, line, "(record)", "does not match the native format") from None
        yield _parsed(record, path, line)


def _parsed(record: dict[str, Any], path: Path, line: int) -> ParsedOutput:
    case = record["case"]
    system = dict(record["system"])
    label = as_label(system.pop("label"), path, line, "system.label")
    family = record.get("family")
    settings = family if isinstance(family, dict) else ({"name": family} if family else {})
    return ParsedOutput(
        line=line,
        case_id=as_case_id(case["id"], path, line, "case.id"),
        category=case.get("category", "general"),
        prompt=as_text(case["prompt"], path, line, "case.prompt"),
        label=label,
        descriptor=SystemDescriptor(**system),
        text=as_text(record["output"], path, line, "output"),
        sample=record.get("sample", 0),
        is_diff=record.get("is_diff", False),
        finish_reason=record.get("finish_reason"),
        latency_ms=record.get("latency_ms"),
        cost=record.get("cost"),
        prompt_tokens=record.get("prompt_tokens"),
        completion_tokens=record.get("completion_tokens"),
        test_result=record.get("test_result"),
        language=case.get("language"),
        family=dict(settings),
    )
