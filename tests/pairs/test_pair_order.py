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
