"""The one-sort order of several columns is ``np.lexsort``'s, ties and all."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.pairs.settling import order_by


@settings(max_examples=200, deadline=None)
@given(
    rows=st.integers(0, 60),
    highs=st.lists(st.sampled_from([1, 3, 50, 2**20, 2**40]), min_size=1, max_size=4),
    seed=st.integers(0, 2**32 - 1),
)
def test_one_sort_of_a_combined_key_orders_as_lexsort(rows, highs, seed):
    rng = np.random.default_rng(seed)
    # Few distinct values make ties (kept in input order); large ones overflow 63 bits
    # combined, where the order falls back to lexsort itself.
    columns = [rng.integers(0, high, rows, dtype=np.int64) for high in highs]
    assert np.array_equal(order_by(*columns), np.lexsort(columns[::-1]))


@settings(max_examples=200, deadline=None)
@given(
    rows=st.integers(0, 60),
    highs=st.lists(st.sampled_from([1, 3, 50, 2**20]), min_size=1, max_size=3),
    first_high=st.sampled_from([1, 4, 2**16, 2**17]),
    seed=st.integers(0, 2**32 - 1),
)
def test_rows_in_order_but_for_the_first_column_order_as_lexsort(rows, highs, first_high, seed):
    """Pairs listed case by case and wanted by system pair: the radix sort of the first
    column alone is checked to be the order (a first column past 16 bits is sorted whole)."""
    rng = np.random.default_rng(seed)
    rest = [rng.integers(0, high, rows, dtype=np.int64) for high in highs]
    in_order = np.lexsort(rest[::-1])
    columns = [rng.integers(0, first_high, rows, dtype=np.int64)] + [c[in_order] for c in rest]
    assert np.array_equal(order_by(*columns), np.lexsort(columns[::-1]))
