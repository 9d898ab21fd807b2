"""Finding voted pairs' outputs by their numbers (``history._place_of``): the table it
builds for a family whose numbers are close together and the search it falls back on
where they are spread must both answer as a plain look-up does."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from arena.ledger.history import _place_of


@given(
    numbers=st.sets(st.integers(1, 2**31), max_size=60),
    compact=st.booleans(),
    wanted=st.lists(st.integers(0, 2**31 + 5), max_size=40),
)
def test_each_number_is_found_at_its_place_and_no_other_is_found(numbers, compact, wanted):
    listed = sorted(numbers)
    if compact:  # as one import numbers a family's outputs: a run of rowids
        listed = list(range(1_000, 1_000 + len(listed)))
    # Some of the numbers themselves, the others anything.
    wanted = wanted + listed[::3]
    found = _place_of(np.array(listed, dtype=np.int64), np.array(wanted, dtype=np.int64))
    place = {n: at for at, n in enumerate(listed)}
    assert found.tolist() == [place.get(w, -1) for w in wanted]
