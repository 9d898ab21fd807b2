"""Read pairwise battle files and fit them: the engine of ``arena fit``.

Two formats, each either JSON Lines or one JSON list:

* ``fastchat-battles``: objects with ``model_a``, ``model_b`` and ``winner``
  (``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``), as LMArena
  publishes them, and optionally ``weight`` (default 1; Arena's battles export
  writes it); other fields are ignored.
* ``native``: objects with ``a`` and ``b`` (system names), ``y`` (1 = ``a``
  won, 0 = ``b`` won, 0.5 = tie) and optionally ``w`` (weight, default 1).

Files are streamed (``arena.intake.jsonstream``), so memory grows with the number of
battles, not with the file's size. Every refusal is a
:class:`~arena.errors.BadInput` naming the file, the line and the field. The
fit itself is ``arena.rounds.scoring.fit_battles``.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from arena.errors import BadInput
from arena.intake.jsonstream import iter_json_batches

FORMATS = ("fastchat-battles", "native")

_WINNER = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
# Records are turned into arrays a batch at a time: comprehensions over a batch
# run far faster than one record at a time.
_BATCH = 50_000


@dataclass(frozen=True)
class Battles:
    """Battles as arrays ready for :func:`fitting.fit_points`.

    ``a`` and ``b`` index ``names``; ``decisive`` counts, per system, the
    battles with a winner (not a tie).
    """

    a: NDArray[np.intp]
    b: NDArray[np.intp]
    y: NDArray[np.float64]
    w: NDArray[np.float64]
    names: list[str]
    decisive: NDArray[np.float64]


def read_battles(path: str | os.PathLike[str], *, fmt: str = "fastchat-battles") -> Battles:
    """Stream a battles file into arrays.

    Raises
    ------
    BadInput
        If the file cannot be read or a battle is malformed.
    """
    if fmt not in FORMATS:
        raise BadInput(
            f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}", field="format"
        )
    where = os.fspath(path)
    builder = _Builder(where, fmt)
    try:
        for lines, values in iter_json_batches(where, size=_BATCH):
            builder.add(values, lines)
    except OSError as error:
        raise BadInput(f"cannot read: {error.strerror or error}", path=where) from error
    return builder.finish()


class _Builder:
    """Turns blocks of parsed records into arrays, interning system names."""

    def __init__(self, path: str, fmt: str) -> None:
        self._path = path
        self._fmt = fmt
        self._index: dict[str, int] = {}
        self._parts: list[tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64], Any]] = []

    def add(self, records: list[Any], lines: list[int]) -> None:
        if not records:
            return
        if self._fmt == "fastchat-battles":
            try:
                a, b, y = self._fastchat(records)
            except (KeyError, TypeError, AttributeError):
                a, b, y = self._checked(records, lines)  # finds the record and raises
            # A weight where the file gives one (Arena's own battles export does).
            w: Any = self._weights(records, lines) if any("weight" in r for r in records) else None
        else:
            a, b, y, w = self._native(records, lines)
        same = np.flatnonzero(a == b)
        if same.size:
            line = lines[int(same[0])]
            field = "model_b" if self._fmt == "fastchat-battles" else "b"
            raise self._bad(line, field, "the same system is on both sides")
        self._parts.append((a, b, y, w))

    def _fastchat(
        self, records: list[Any]
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]]:
        # The fast path: comprehensions and C-level maps over the block.
        # Anything unexpected raises, and _checked then names the record.
        names_a = [r["model_a"] for r in records]
        names_b = [r["model_b"] for r in records]
        y = [_WINNER[r["winner"]] for r in records]
        index = self._index
        # New names in order of first appearance, so ids are deterministic.
        seen = dict.fromkeys(itertools.chain.from_iterable(zip(names_a, names_b, strict=True)))
        fresh = [name for name in seen if name not in index]
        if not all(isinstance(name, str) and name for name in fresh):
            raise TypeError("a system name is not a non-empty string")
        for name in fresh:
            index[name] = len(index)
        count = len(records)
        a = np.fromiter(map(index.__getitem__, names_a), dtype=np.intp, count=count)
        b = np.fromiter(map(index.__getitem__, names_b), dtype=np.intp, count=count)
        return a, b, np.array(y, dtype=np.float64)

    def _checked(
        self, records: list[Any], lines: list[int]
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]]:
        a, b, y = [], [], []
        for record, line in zip(records, lines, strict=True):
            record = self._object(record, line)
            a.append(self._intern(record, "model_a", line))
            b.append(self._intern(record, "model_b", line))
            winner = record.get("winner")
            if not isinstance(winner, str) or winner not in _WINNER:
                raise self._bad(
                    line,
                    "winner",
                    f"is {winner!r}; expected model_a, model_b, tie or tie (bothbad)",
                )
            y.append(_WINNER[winner])
        return np.array(a, dtype=np.intp), np.array(b, dtype=np.intp), np.array(y)

    def _weights(self, records: list[dict[str, Any]], lines: list[int]) -> NDArray[np.float64]:
        weights = [r.get("weight", 1) for r in records]
        for weight, line in zip(weights, lines, strict=True):
            if not _is_number(weight) or not math.isfinite(weight) or weight < 0:
                raise self._bad(line, "weight", f"is {weight!r}; expected a finite number >= 0")
        return np.array(weights, dtype=np.float64)

    def _native(
        self, records: list[Any], lines: list[int]
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
        a, b, y, w = [], [], [], []
        for record, line in zip(records, lines, strict=True):
            record = self._object(record, line)
            a.append(self._intern(record, "a", line))
            b.append(self._intern(record, "b", line))
            outcome = record.get("y")
            if not _is_number(outcome) or outcome not in (0, 0.5, 1):
                raise self._bad(line, "y", f"is {outcome!r}; expected 1, 0 or 0.5")
            weight = record.get("w", 1)
            if not _is_number(weight) or not math.isfinite(weight) or weight < 0:
                raise self._bad(line, "w", f"is {weight!r}; expected a finite number >= 0")
            y.append(float(outcome))
            w.append(float(weight))
        return np.array(a, dtype=np.intp), np.array(b, dtype=np.intp), np.array(y), np.array(w)

    def _object(self, record: Any, line: int) -> dict[str, Any]:
        if not isinstance(record, dict):
            raise BadInput(
                f"expected a JSON object, found {type(record).__name__}", path=self._path, line=line
            )
        return record

    def _intern(self, record: dict[str, Any], field: str, line: int) -> int:
        if field not in record:
            raise self._bad(line, field, "missing")
        name = record[field]
        if not isinstance(name, str) or not name:
            raise self._bad(line, field, f"is {name!r}; expected a system name")
        return self._index.setdefault(name, len(self._index))

    def _bad(self, line: int, field: str, message: str) -> BadInput:
        return BadInput(message, path=self._path, line=line, field=field)

    def finish(self) -> Battles:
        if not self._parts:
            raise BadInput("no battles found", path=self._path)
        a = np.concatenate([p[0] for p in self._parts])
        b = np.concatenate([p[1] for p in self._parts])
        y = np.concatenate([p[2] for p in self._parts])
        w = np.concatenate([np.ones(p[0].size) if p[3] is None else p[3] for p in self._parts])
        n = len(self._index)
        won = (y != 0.5) & (w > 0)
        decisive = np.bincount(a[won], minlength=n) + np.bincount(b[won], minlength=n)
        return Battles(a, b, y, w, list(self._index), decisive.astype(np.float64))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
