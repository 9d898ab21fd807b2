"""Cases and outputs read and written a batch at a time, for large imports.

``catalog`` adds one record per call, each after a query of its own; an import of
tens of thousands of outputs instead looks up a batch's cases and outputs with one
query each and writes them with one ``executemany`` each. The rows are the same.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager

from arena.ledger.catalog import _OUTPUT_COLUMNS, _SELECT_OUTPUTS, _case, _output, key_row
from arena.ledger.connection import Ledger
from arena.records import Case, CaseId, Output, OutputId

# SQLite's page cache while a large import writes (its default is 2 MB). Outputs and
# gate results are indexed by output id, a hash: each row lands on a random page of
# those indexes, and once they outgrow the cache nearly every row reads and writes
# pages again (the gate results of a 100 MB import: 4.2 s of CPU with 2 MB, 3.1 s with 64 MB).
IMPORT_CACHE_MB = 64
# Well under SQLite's limit on the parameters of one statement (999 before 3.32).
_IN_CHUNK = 500


def _chunks(keys: Collection[str]) -> Iterator[list[str]]:
    ordered = list(keys)
    for start in range(0, len(ordered), _IN_CHUNK):
        yield ordered[start : start + _IN_CHUNK]


@contextmanager
def import_cache(ledger: Ledger, megabytes: int | None = None) -> Iterator[None]:
    """A page cache of ``megabytes`` (``IMPORT_CACHE_MB``) while the block runs: at most
    that much more memory."""
    size = IMPORT_CACHE_MB if megabytes is None else megabytes
    (before,) = ledger.conn.execute("PRAGMA cache_size").fetchone()
    ledger.conn.execute(f"PRAGMA cache_size = {-int(size) * 1024}")
    try:
        yield
    finally:
        ledger.conn.execute(f"PRAGMA cache_size = {int(before)}")


def stored_cases(ledger: Ledger, family: str, case_ids: Collection[str]) -> dict[CaseId, Case]:
    """The cases of ``family`` among ``case_ids`` that are in the ledger."""
    found: dict[CaseId, Case] = {}
    for chunk in _chunks(case_ids):
        marks = ", ".join("?" * len(chunk))
        for row in ledger.db.query(
            f"SELECT * FROM cases WHERE family = ? AND case_id IN ({marks})", [family, *chunk]
        ):
            case = _case(row)
            found[case.case_id] = case
    return found


def add_cases(ledger: Ledger, cases: Sequence[Case]) -> None:
    """Store new cases, in order (``catalog.add_case`` without its look-up)."""
    ledger.conn.executemany(
        "INSERT INTO cases (family, case_id, category, prompt, language, detected_language, "
        "language_evidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                c.family,
                c.case_id,
                c.category,
                c.prompt,
                c.language,
                c.detected_language,
                c.language_evidence,
            )
            for c in cases
        ],
    )


def stored_outputs(ledger: Ledger, output_ids: Collection[str]) -> dict[OutputId, Output]:
    """The outputs among ``output_ids`` that are in the ledger."""
    found: dict[OutputId, Output] = {}
    for chunk in _chunks(output_ids):
        marks = ", ".join("?" * len(chunk))
        for row in ledger.conn.execute(f"{_SELECT_OUTPUTS} WHERE output_id IN ({marks})", chunk):
            output = _output(row)
            found[output.output_id] = output
    return found


def add_outputs(ledger: Ledger, outputs: Sequence[tuple[Output, str]], import_id: str) -> None:
    """Store new outputs, each with its content hash, in order (``catalog.add_output``
    without its look-up: the caller has checked they are new)."""
    columns = (*_OUTPUT_COLUMNS, "content_hash", "import_id")
    ledger.conn.executemany(
        f"INSERT INTO outputs ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [_output_row(output, digest, import_id) for output, digest in outputs],
    )
    ledger.conn.executemany(
        f"INSERT INTO output_keys VALUES ({', '.join('?' * 5)})",
        [key_row(output) for output, _ in outputs],
    )


def _output_row(output: Output, digest: str, import_id: str) -> tuple[object, ...]:
    row = [getattr(output, name) for name in _OUTPUT_COLUMNS]
    row[_IS_DIFF] = int(output.is_diff)
    return (*row, digest, import_id)


_IS_DIFF = _OUTPUT_COLUMNS.index("is_diff")
