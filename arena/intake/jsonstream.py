"""Reading large JSON inputs record by record, with line numbers for errors.

JSON Lines are read line by line and parsed by orjson: strict (no NaN,
Infinity, numbers that overflow to infinity, or lone surrogates, none of
which SQLite or a hash could take) and about five times faster than the
standard library here. A top-level JSON array is decoded one element at a
time from a sliding buffer, so a 1 GB file never sits in memory whole.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from arena.errors import BadInput

Progress = Callable[[int], None]
_CHUNK = 1 << 20
# No record Arena reads comes near this; a bigger one is refused before it fills memory
# (parsing a 200 MB record took 4 GB). Readers take another limit where a person asks.
MAX_RECORD_BYTES = 64 << 20
# Deeper values are refused: nothing Arena reads nests this far, and every consumer
# (redaction, schema checks, hashing) walks values recursively.
MAX_DEPTH = 64
_DECODER = json.JSONDecoder()


def _text(raw: bytes, path: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"not UTF-8 text (byte {exc.start})", path=path, line=line) from None


def _too_long(limit: int, path: str, line: int) -> BadInput:
    return BadInput(
        f"a record longer than {limit / 2**20:g} MB starts here; if it is meant, "
        "raise the limit (`arena import --max-record-mb`)",
        path=path,
        line=line,
    )


def _line_batches(
    path: str | Path, progress: Progress | None, limit: int = MAX_RECORD_BYTES
) -> Iterator[tuple[list[int], list[Any]]]:
    """Line numbers and values of the non-blank lines, a chunk of the file at a time.

    Each line is parsed on its own (exact line numbers, one value per line),
    but in a comprehension over the chunk, which is several times faster than
    a Python loop per line; only a chunk that fails is walked line by line to
    name the bad line.
    """
    name = str(path)
    first = 1
    tail = b""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(_CHUNK)
            if progress and chunk:
                progress(len(chunk))
            if first == 1 and not tail and chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            data = tail + chunk
            if chunk:
                cut = data.rfind(b"\n") + 1
                data, tail = data[:cut], data[cut:]
                if len(tail) > limit:
                    raise _too_long(limit, name, first + data.count(b"\n"))
                if not data:
                    continue
            elif not data:
                return
            lines = data.split(b"\n")
            if data.endswith(b"\n"):
                lines.pop()
            numbers = [first + i for i, raw in enumerate(lines) if raw.strip()]
            kept = [lines[n - first] for n in numbers]
            try:
                values = [orjson.loads(raw) for raw in kept]
                # Counting brackets is cheap; only a line with many is walked.
                for raw, number, value in zip(kept, numbers, values, strict=True):
                    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
                        _check_depth(value, name, number)
            except orjson.JSONDecodeError:
                for number, raw in zip(numbers, kept, strict=True):
                    try:
                        orjson.loads(raw)
                    except orjson.JSONDecodeError as exc:
                        _text(raw, name, number)  # name a UTF-8 problem as such
                        raise BadInput(f"not valid JSON ({exc})", path=name, line=number) from None
                raise
            if numbers:
                yield numbers, values
            first += len(lines)
            if not chunk:
                return


def iter_json_lines(
    path: str | Path, progress: Progress | None = None, *, limit: int = MAX_RECORD_BYTES
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line of a JSON Lines file."""
    for numbers, values in _line_batches(path, progress, limit):
        yield from zip(numbers, values, strict=True)


def iter_json_batches(
    path: str | Path, progress: Progress | None = None, *, size: int = 50_000
) -> Iterator[tuple[list[int], list[Any]]]:
    """Line numbers and values in batches, from a JSON array or a JSON Lines file.

    For readers that turn records into arrays: whole batches are far cheaper
    to process than one record at a time.
    """
    with open(path, "rb") as handle:
        start = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    if not start.startswith(b"["):
        yield from _line_batches(path, progress)
        return
    elements = iter_json_array(path, progress)
    while batch := list(itertools.islice(elements, size)):
        numbers, values = zip(*batch, strict=True)
        yield list(numbers), list(values)


def iter_json_array(
    path: str | Path, progress: Progress | None = None, *, limit: int = MAX_RECORD_BYTES
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, element)`` for each element of a top-level JSON array.

    The line number is where the element starts.
    """
    name = str(path)
    with open(path, "rb") as handle:
        reader = _Buffer(handle, name, progress, limit)
        reader.skip_space()
        if reader.peek() == "\ufeff":
            reader.pos += 1
            reader.skip_space()
        if reader.peek() != "[":
            raise BadInput("expected a JSON array ('[')", path=name, line=reader.line)
        reader.pos += 1
        reader.skip_space()
        if reader.peek() == "]":
            reader.pos += 1
            reader.expect_end()
            return
        while True:
            reader.skip_space()
            yield reader.line, reader.value()
            reader.skip_space()
            mark = reader.peek()
            if mark == ",":
                reader.pos += 1
                continue
            if mark == "]":
                reader.pos += 1
                reader.expect_end()
                return
            raise BadInput(
                "expected ',' or ']' after an array element", path=name, line=reader.line
            )


class _Buffer:
    """A window onto a UTF-8 file that tracks the current line."""

    def __init__(
        self, handle: Any, name: str, progress: Progress | None, limit: int = MAX_RECORD_BYTES
    ) -> None:
        self.handle = handle
        self.limit = limit
        self.name = name
        self.progress = progress
        self.buf = ""
        self.pos = 0
        self.line = 1
        self.eof = False
        self._pending = b""

    def _fill(self) -> bool:
        if self.eof:
            return False
        raw = self.handle.read(_CHUNK)
        if self.progress:
            self.progress(len(raw))
        if not raw:
            self.eof = True
            if self._pending:
                raise BadInput(
                    "not UTF-8 text (file ends inside a character)", path=self.name, line=self.line
                )
            return False
        raw = self._pending + raw
        # Keep an incomplete trailing UTF-8 sequence for the next chunk.
        cut = len(raw)
        for back in range(1, min(4, len(raw)) + 1):
            byte = raw[-back]
            if byte & 0xC0 == 0x80:
                continue
            if byte >= 0xC0:
                need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
                if back < need:
                    cut = len(raw) - back
            break
        self._pending = raw[cut:]
        try:
            text = raw[:cut].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadInput(
                f"not UTF-8 text (byte {exc.start} of a chunk)", path=self.name, line=self.line
            ) from None
        self.buf = self.buf[self.pos :] + text
        self.pos = 0
        if len(self.buf) > self.limit:  # characters, not bytes: a bound all the same
            raise _too_long(self.limit, self.name, self.line)
        return True

    def peek(self) -> str:
        while self.pos >= len(self.buf):
            if not self._fill():
                return ""
        return self.buf[self.pos]

    def skip_space(self) -> None:
        while True:
            ch = self.peek()
            if ch in (" ", "\t", "\r", "\n"):
                if ch == "\n":
                    self.line += 1
                self.pos += 1
            else:
                return

    def value(self) -> Any:
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if not self.eof and self._fill():
                    continue
                raise BadInput(
                    f"not valid JSON ({exc.msg})",
                    path=self.name,
                    line=self.line + self.buf.count("\n", self.pos, exc.pos),
                ) from None
            except RecursionError:
                raise BadInput("JSON nested too deeply", path=self.name, line=self.line) from None
            # A number at the very end of the buffer may continue in the next chunk.
            if end >= len(self.buf) and not self.eof and self._fill():
                continue
            start = self.line
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            _check_depth(value, self.name, start)
            _check_values(value, self.name, start)
            return value

    def expect_end(self) -> None:
        self.skip_space()
        if self.peek() != "":
            raise BadInput("unexpected text after the JSON array", path=self.name, line=self.line)


def _check_depth(value: Any, path: str, line: int) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadInput(f"JSON nested more than {MAX_DEPTH} levels deep", path=path, line=line)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _check_values(value: Any, path: str, line: int) -> None:
    """raw_decode accepts NaN, Infinity and lone surrogates; JSON (and SQLite) do not."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and (item != item or item in (float("inf"), float("-inf"))):
            raise BadInput("NaN and Infinity are not JSON numbers", path=path, line=line)
        if isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise BadInput(
                    "a string holds a lone surrogate (\\ud800–\\udfff)", path=path, line=line
                ) from None
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list):
            stack.extend(item)
