"""A check recomputes what a commit sealed as the seal wrote it: SQLite's lines with the
floats and blobs Python writes, hashed span by span a batch of rows at a time."""

from __future__ import annotations

import json
import math
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ledger import seal_spans, seals


@given(st.floats(allow_nan=True, allow_infinity=True) | st.binary(max_size=40))
def test_a_float_or_blob_is_written_as_json_writes_it(value):
    assert seals.value_json(value) == json.dumps(value, ensure_ascii=False, default=seals._blob)


def test_edge_floats_are_written_as_json_writes_them():
    for value in (0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1e308, 0.1, 1 / 3, -1e-7):
        assert seals.value_json(value) == json.dumps(value)
    assert math.isnan(json.loads(seals.value_json(math.nan)))


@pytest.mark.parametrize("batch", [1, 2, 3, 7, 4096])
@pytest.mark.parametrize("table", ["outputs", "gate_results", "output_keys"])
def test_spans_hashed_a_batch_at_a_time_hash_as_each_span_alone(
    small_family, monkeypatch, batch, table
):
    """Spans of every length (empty, one row, across batches) over a table's rows."""
    monkeypatch.setattr(seal_spans, "_BATCH", batch)
    db = small_family.conn
    (top,) = db.execute(f"SELECT max(rowid) FROM {table}").fetchone()
    bounds = [0, 1, 1, 2, 5, 6, top - 3, top - 1, top, top]
    run = [(at, {"from": low, "to": high}) for at, (low, high) in enumerate(pairwise(bounds))]
    found = list(seal_spans._run_digests(db, table, run))
    alone = [
        seals.lines_digest(seal_spans._sql_lines(db, table, span["from"], span["to"]))[:2]
        for _, span in run
    ]
    assert found == alone
    assert sum(count for count, _ in found) == top
