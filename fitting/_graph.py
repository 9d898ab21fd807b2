"""Comparison-graph structure: who is connected to whom, and who beat whom.

Points are only comparable within a connected component of the comparison
graph. Without a penalty the maximum-likelihood fit of a component is finite
only if its win graph (an edge p -> q when p won some weight against q; a
tie gives both edges) is strongly connected (Zermelo 1929; Ford 1957).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_array
from scipy.sparse.csgraph import breadth_first_order, connected_components


def components(wins: NDArray[np.float64]) -> NDArray[np.intp]:
    """Connected-component label of each system (a system never compared is alone)."""
    met = (wins + wins.T) > 0.0
    if _spans(met):
        return np.zeros(met.shape[0], dtype=np.intp)
    _, labels = connected_components(_sparse(met), directed=False)
    return labels.astype(np.intp)


def strong_components(wins: NDArray[np.float64]) -> NDArray[np.intp]:
    """Strongly-connected-component label of each system in the win graph."""
    beat = wins > 0.0
    if _spans(beat) and _spans(beat.T):
        return np.zeros(beat.shape[0], dtype=np.intp)
    _, labels = connected_components(_sparse(beat), directed=True, connection="strong")
    return labels.astype(np.intp)


def reachable(wins: NDArray[np.float64], start: int, *, reverse: bool = False) -> NDArray[np.bool_]:
    """Systems ``start`` beat, directly or through others (``start`` included).

    With ``reverse``, the systems that beat ``start`` in that sense instead.
    """
    beat = wins > 0.0
    graph = _sparse(beat.T if reverse else beat)
    order = breadth_first_order(graph, start, directed=True, return_predecessors=False)
    mask = np.zeros(beat.shape[0], dtype=bool)
    mask[order] = True
    return mask


def _spans(edges: NDArray[np.bool_], steps: int = 4) -> bool:
    """Whether system 0 reaches every system within a few steps.

    A cheap dense test that settles the usual well-mixed round (everyone
    reached, from and to system 0, means one component) without building a
    sparse graph; False only means "not shown", and the caller then runs
    the general algorithm.
    """
    seen = edges[0].copy()
    seen[0] = True
    for _ in range(steps):
        if seen.all():
            return True
        seen |= edges[seen].any(axis=0)
    return bool(seen.all())


def _sparse(mask: NDArray[np.bool_]) -> csr_array:
    # np.nonzero is row-major, so the CSR arrays are laid out directly,
    # without the sort scipy's dense-to-sparse conversion does.
    rows, cols = np.nonzero(mask)
    indptr = np.zeros(mask.shape[0] + 1, dtype=np.intp)
    np.cumsum(np.bincount(rows, minlength=mask.shape[0]), out=indptr[1:])
    return csr_array((np.ones(cols.size, dtype=np.int8), cols, indptr), shape=mask.shape)
