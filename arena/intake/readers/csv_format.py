"""CSV with a header row: case_id, prompt, system, output (+ optional columns)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from arena.errors import BadInput
from arena.intake.readers.base import (
    ParsedOutput,
    ReadOptions,
    as_case_id,
    as_count,
    as_label,
    as_number,
    as_test_result,
    as_text,
    bad,
    plain_descriptor,
)
from arena.records import LANGUAGE_TAG

REQUIRED = ("case_id", "prompt", "system", "output")
OPTIONAL = (
    "category",
    "sample",
    "finish_reason",
    "latency_ms",
    "cost",
    "test_result",
    "prompt_tokens",
    "completion_tokens",
    "language",
)


class _Counting(io.RawIOBase):
    """Counts bytes read so a progress bar can follow a streamed CSV."""

    def __init__(self, handle: io.BufferedReader, progress) -> None:
        self.handle = handle
        self.progress = progress

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.handle.readinto(buffer)
        if n and self.progress:
            self.progress(n)
        return n or 0


def read(path: Path, options: ReadOptions) -> Iterator[ParsedOutput]:
    for line, row in rows(path, options, REQUIRED, OPTIONAL):
        yield _parsed(row, path, line)


def rows(
    path: Path, options: ReadOptions, required: tuple[str, ...], optional: tuple[str, ...]
) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line, row)`` of a CSV file whose header has every ``required`` column and no
    column outside ``required`` and ``optional``; each row redacted."""
    with open(path, "rb") as raw:
        binary = io.BufferedReader(_Counting(raw, options.progress))
        text = io.TextIOWrapper(binary, encoding="utf-8-sig", errors="strict", newline="")
        # The module's default field limit (128 kB) would refuse ordinary long answers.
        csv.field_size_limit(options.max_record_bytes)
        reader = csv.DictReader(text, strict=True)
        try:
            header = reader.fieldnames or []
        except (UnicodeDecodeError, csv.Error) as exc:
            raise BadInput(f"unreadable header ({exc})", path=str(path), line=1) from None
        missing = [c for c in required if c not in header]
        if missing:
            raise BadInput(
                f"missing column(s) {', '.join(missing)}", path=str(path), line=1, field="header"
            )
        unknown = [c for c in header if c not in required + optional]
        if unknown:
            raise BadInput(
                f"unknown column(s) {', '.join(unknown)}", path=str(path), line=1, field="header"
            )
        while True:
            line = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise BadInput(
                    f"not UTF-8 text ({exc.reason})", path=str(path), line=line
                ) from None
            except csv.Error as exc:
                raise BadInput(
                    f"malformed CSV ({exc})", path=str(path), line=reader.line_num
                ) from None
            if None in row:
                raise bad(path, line, "(row)", "more values than header columns")
            for name in required:
                if row.get(name) is None:
                    raise bad(path, line, name, "missing value (fewer values than header columns)")
            yield line, options.redactor.value(row)


def as_language(value: str | None, path: Path, line: int) -> str | None:
    """A cell's language tag; None when empty."""
    language = (value or "").strip() or None
    if language is not None and not LANGUAGE_TAG.match(language):
        raise bad(
            path,
            line,
            "language",
            f"expected a language tag such as fr or zh-Hans, found {language!r}",
        )
    return language


def _parsed(row: dict, path: Path, line: int) -> ParsedOutput:
    label = as_label(row["system"], path, line, "system")
    sample = as_count(row.get("sample"), path, line, "sample")
    return ParsedOutput(
        line=line,
        case_id=as_case_id(row["case_id"], path, line, "case_id"),
        category=(row.get("category") or "general").strip() or "general",
        prompt=as_text(row["prompt"], path, line, "prompt"),
        label=label,
        descriptor=plain_descriptor(label),
        text=as_text(row["output"], path, line, "output"),
        sample=sample or 0,
        finish_reason=(row.get("finish_reason") or None),
        latency_ms=as_number(row.get("latency_ms"), path, line, "latency_ms"),
        cost=as_number(row.get("cost"), path, line, "cost"),
        prompt_tokens=as_count(row.get("prompt_tokens"), path, line, "prompt_tokens"),
        completion_tokens=as_count(row.get("completion_tokens"), path, line, "completion_tokens"),
        test_result=as_test_result(row.get("test_result"), path, line, "test_result"),
        language=as_language(row.get("language"), path, line),
    )
