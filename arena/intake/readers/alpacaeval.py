"""AlpacaEval ``model_outputs.json``: a JSON list of {instruction, output, generator}.

Cases are keyed by the instruction text (AlpacaEval has no ids), so files of
different systems pair up by instruction even when one misses an item.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from arena.canonical import sha256_hex
from arena.intake.jsonstream import iter_json_array
from arena.intake.readers.base import (
    ParsedOutput,
    ReadOptions,
    as_label,
    as_record,
    as_text,
    plain_descriptor,
)


def case_id_for(instruction: str) -> str:
    return "i-" + sha256_hex(instruction)[:16]


def read(path: Path, options: ReadOptions) -> Iterator[ParsedOutput]:
    for line, record in iter_json_array(path, options.progress, limit=options.max_record_bytes):
        record = options.redactor.value(record)
        record = as_record(
            record,
            path,
            line,
            ("instruction", "generator"),
            expected="expected an object with instruction, output, generator",
        )
        instruction = as_text(record["instruction"], path, line, "instruction")
        generator = as_label(record["generator"], path, line, "generator")
        yield ParsedOutput(
            line=line,
            case_id=case_id_for(instruction),
            category=str(record.get("dataset") or "general"),
            prompt=instruction,
            label=generator,
            descriptor=plain_descriptor(generator),
            text=as_text(record.get("output"), path, line, "output", allow_none=True),
        )
