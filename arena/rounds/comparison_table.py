"""A family's comparisons held column by column: a million votes are a few arrays rather
than a million objects; ``Comparison`` is one of them as a record."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from arena.records import OutputId, SystemId

SETTLER = "settler"
Y_OF_CHOICE = {"left": 1.0, "right": 0.0, "tie": 0.5, "both_bad": 0.5}

Status = Literal["fitted", "repeat", "left_out"]
# Why a vote is left out, in the order the rules are asked (the first that holds is the reason).
# ``other_rater``: a round that names its raters (``--raters``) leaves the others' votes out.
LEFT_OUT_REASONS = (
    "retired_case",
    "removed_output",
    "failing_gate",
    "settled_pair",
    "other_rater",
)


@dataclass(frozen=True)
class Comparison:
    """One comparison of system a (left, for votes and judges' verdicts) with system b; y is
    a's outcome. A judge's verdict (``source`` judge, ``actor`` ``judge:NAME``) is one only
    in a round pooled with that judge."""

    source: Literal["vote", "settled", "judge"]
    case_id: str
    category: str
    output_a: OutputId
    output_b: OutputId
    system_a: SystemId
    system_b: SystemId
    y: float
    weight: float
    actor: str
    status: Status
    reason: str | None = None
    vote_id: str | None = None
    choice: str | None = None
    repeat_of: str | None = None
    session: int | None = None
    rule: str | None = None
    len_a: int = 0
    len_b: int = 0
    is_diff: bool = False
    # Settled with a gate verdict on one of its outputs set aside by the rater.
    overruled: bool = False


FIELDS = tuple(f.name for f in dataclasses.fields(Comparison))
NUMBERS = {
    "y": np.float64,
    "weight": np.float64,
    "len_a": np.int64,
    "len_b": np.int64,
    "is_diff": np.bool_,
    "overruled": np.bool_,
}
# Ids of votes, nearly all different: kept as a list (a code each would save nothing).
IDS = ("vote_id", "repeat_of")


class Coded(NamedTuple):
    """A column of repeated values: each row's code into ``values``."""

    codes: np.ndarray
    values: Sequence[Any]

    @classmethod
    def of(cls, items: Iterable[Any]) -> Coded:
        seen: dict[Any, int] = {}
        return cls(codes(items, seen), list(seen))

    def map(self, function: Callable[[Any], Any], dtype: Any) -> np.ndarray:
        """``function`` of each row's value, worked out once per distinct value."""
        return np.array([function(v) for v in self.values], dtype=dtype)[self.codes]

    def isin(self, *wanted: Any) -> np.ndarray:
        return np.isin(self.codes, [i for i, v in enumerate(self.values) if v in wanted])

    def decoded(self, rows: np.ndarray | None = None) -> list[Any]:
        """The values of every row (of ``rows`` only, when given)."""
        codes = self.codes if rows is None else self.codes[rows]
        return [self.values[c] for c in codes.tolist()]


def codes(items: Iterable[Any], vocabulary: dict[Any, int]) -> np.ndarray:
    """The code of each item in ``vocabulary``, adding those it lacks (in order)."""
    items = list(items)
    try:  # one pass where every item is known: a family's votes after their first batch
        return known_codes(items, vocabulary)
    except KeyError:
        for value in dict.fromkeys(items):
            vocabulary.setdefault(value, len(vocabulary))
        return known_codes(items, vocabulary)


def known_codes(items: Sequence[Any], vocabulary: Mapping[Any, int]) -> np.ndarray:
    """The code of each item; an item ``vocabulary`` lacks is a KeyError."""
    return np.fromiter(map(vocabulary.__getitem__, items), dtype=np.int32, count=len(items))


Column = np.ndarray | Coded | list


class Comparisons:
    """Comparisons column by column, in ``FIELDS`` order: numbers as arrays, vote ids as
    lists, the rest coded."""

    def __init__(self, columns: dict[str, Column]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns["y"])

    def __getitem__(self, name: str) -> Any:
        return self.columns[name]

    def __iter__(self) -> Iterator[Comparison]:
        for values in zip(*(self.values(name) for name in self.columns), strict=True):
            yield Comparison(*values)

    def values(self, name: str, rows: np.ndarray | None = None) -> list[Any]:
        """The values of ``name`` in every row (in ``rows`` only, when given)."""
        column = self.columns[name]
        if isinstance(column, Coded):
            return column.decoded(rows)
        if isinstance(column, list):
            return column if rows is None else [column[i] for i in rows.tolist()]
        return (column if rows is None else column[rows]).tolist()

    @classmethod
    def from_records(cls, records: Iterable[Comparison]) -> Comparisons:
        rows = list(records)
        columns: dict[str, Column] = {}
        for name in FIELDS:
            found = [getattr(r, name) for r in rows]
            columns[name] = (
                np.array(found, dtype=NUMBERS[name])
                if name in NUMBERS
                else found
                if name in IDS
                else Coded.of(found)
            )
        return cls(columns)

    def mask(self, name: str, *values: Any) -> np.ndarray:
        """Rows whose ``name`` (a coded column) is one of ``values``."""
        column = self.columns[name]
        assert isinstance(column, Coded), name
        return column.isin(*values)

    @property
    def votes(self) -> np.ndarray:
        return self.mask("source", "vote")

    @property
    def decisive(self) -> np.ndarray:
        """Human votes for one side (left or right), as the preliminary mark counts them."""
        return self.votes & self.mask("choice", "left", "right")
