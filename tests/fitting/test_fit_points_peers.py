"""fitting.fit_points against independent implementations (test-only peers).

Alignment, for every comparison below: the same weighted data; peers fit
log-strengths centred on their mean, so ours are mean-centred too (we compare
``strengths - mean``, or points ``- mean + 1000``); anchors play no part.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

from fitting import POINTS_PER_LOGIT, fit_points

# arena-rank runs on JAX, whose threads must never live in the test process: the
# crash tests fork it (tests/reliability/test_kill.py). So it runs in a child.
_ARENA_RANK = """
import json, sys
import numpy as np
import jax.numpy as jnp
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.utils.data_utils import PairDataset
data = np.load(sys.argv[1])
a, b, y, w, n = data["a"], data["b"], data["y"], data["w"], int(data["n"])
dataset = PairDataset(
    competitors=[str(i) for i in range(n)],
    pairs=jnp.array(np.column_stack([a, b]), dtype=jnp.int32),
    outcomes=jnp.array(y), counts=jnp.ones(a.size), weights=jnp.array(w),
    opt_weights=jnp.array(w))
model = BradleyTerry(n_competitors=n)
model.fit(dataset)
print(json.dumps((np.asarray(model.params["ratings"]) * model.alpha + 1000.0).tolist()))
"""


def _arena_rank_ratings(tmp_path, a, b, y, w, n) -> np.ndarray:
    """arena-rank's ratings (1000 + 400/ln 10 * theta) at its default settings."""
    if importlib.util.find_spec("arena_rank") is None:
        pytest.skip("arena-rank is not installed")
    data = tmp_path / "battles.npz"
    np.savez(data, a=a, b=b, y=y, w=w, n=n)
    out = subprocess.run(
        [sys.executable, "-c", _ARENA_RANK, str(data)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    return np.array(json.loads(out.splitlines()[-1]))


def _data(seed: int, n: int, m: int, weights: bool = True):
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 1, n)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    p = 1 / (1 + np.exp(-(s[a] - s[b])))
    y = np.where(rng.random(m) < 0.15, 0.5, (rng.random(m) < p).astype(float))
    w = rng.choice([0.5, 1.0, 2.0], m) if weights else np.ones(m)
    return a, b, y, w


def _centred_points(result):
    return POINTS_PER_LOGIT * (result.strengths - result.strengths.mean())


def test_matches_choix_dense_ilsr_unpenalized_within_a_thousandth_of_a_point():
    choix = pytest.importorskip("choix")
    n = 12
    a, b, y, w = _data(1, n, 5000)
    # choix's comparison matrix: comp[i, j] = weight i won over j, ties half
    # each way; its ILSR is the unpenalized ML fit (alpha = 0), mean-centred.
    comp = np.zeros((n, n))
    np.add.at(comp, (a, b), w * y)
    np.add.at(comp, (b, a), w * (1 - y))
    theirs = choix.ilsr_pairwise_dense(comp, alpha=0.0, tol=1e-12, max_iter=1000)
    ours = fit_points(a, b, y, w, n_systems=n, penalty=0.0)
    assert ours.mle_exists
    theirs_points = POINTS_PER_LOGIT * (theirs - theirs.mean())
    assert np.max(np.abs(_centred_points(ours) - theirs_points)) < 0.001


def test_matches_choix_opt_pairwise_with_penalty_within_a_hundredth_of_a_point():
    choix = pytest.importorskip("choix")
    n, lam = 8, 0.5
    rng = np.random.default_rng(2)
    a = rng.integers(0, n, 400)
    b = (a + rng.integers(1, n, 400)) % n
    # choix takes (winner, loser) tuples with no weights or ties: use whole
    # wins. Its penalty is alpha*||s||^2, ours (lambda/2)*||s||^2: alpha = lambda/2.
    data = [(int(i), int(j)) for i, j in zip(a, b, strict=True)]
    theirs = choix.opt_pairwise(n, data, alpha=lam / 2, method="Newton-CG", tol=1e-10)
    ours = fit_points(a, b, np.ones(a.size), n_systems=n, penalty=lam)
    # The penalty fixes the level: no centring needed on either side.
    assert np.max(np.abs(POINTS_PER_LOGIT * (ours.strengths - theirs))) < 0.01


def test_matches_arena_rank_unpenalized_within_a_tenth_of_a_point(tmp_path):
    n = 10
    a, b, y, w = _data(3, n, 4000)
    # arena-rank: no penalty, ratings 1000 + 400/ln10 * theta with theta
    # staying mean-zero (L-BFGS steps are sums of zero-sum gradients);
    # default tolerances. One row per comparison, its weight as opt_weight.
    theirs = _arena_rank_ratings(tmp_path, a, b, y, w, n)
    ours = fit_points(a, b, y, w, n_systems=n, penalty=0.0)
    assert np.max(np.abs(ours.points - ours.points.mean() + 1000.0 - theirs)) < 0.1


def test_peers_print_numbers_for_a_system_that_never_loses_where_we_report_it():
    choix = pytest.importorskip("choix")
    n = 4
    a, b, y, _ = _data(4, n, 300, weights=False)
    never_loses = (a == 0) & (y == 0) | (b == 0) & (y == 1) | (y == 0.5) & ((a == 0) | (b == 0))
    a, b, y = a[~never_loses], b[~never_loses], y[~never_loses]
    data = [
        (int(i), int(j)) if v == 1 else (int(j), int(i)) for i, j, v in zip(a, b, y, strict=True)
    ]
    # choix's default tiny penalty returns a finite, meaningless strength.
    theirs = choix.opt_pairwise(n, data)
    assert np.isfinite(theirs).all() and theirs[0] - np.median(theirs) > 5
    ours = fit_points(a, b, y, n_systems=n, penalty=0.0, anchor=1)
    assert not ours.mle_exists
    assert ours.status[0] == "unbounded_above" and np.isnan(ours.points[0])
    assert ours.ranked[1:].all()


def test_peers_fit_disconnected_graphs_where_we_leave_other_components_unranked():
    choix = pytest.importorskip("choix")
    a = np.array([0, 1, 0, 2, 3, 2])
    b = np.array([1, 0, 1, 3, 2, 3])
    data = [(int(i), int(j)) for i, j in zip(a, b, strict=True)]
    # choix centres everything together and returns numbers for 2 and 3 on
    # the same scale as 0 and 1, though nothing links the two pairs.
    theirs = choix.opt_pairwise(4, data)
    assert np.isfinite(theirs).all()
    ours = fit_points(a, b, np.ones(6), n_systems=4, anchor=0)
    assert list(ours.status) == ["ranked", "ranked", "unranked", "unranked"]
    assert np.isnan(ours.points[2:]).all()


@pytest.mark.slow
def test_arena_rank_prints_an_arbitrary_number_for_a_system_that_never_loses(tmp_path):
    a = np.array([0, 0, 1, 2, 1])
    b = np.array([1, 2, 2, 1, 2])
    y = np.ones(5)
    theirs = _arena_rank_ratings(tmp_path, a, b, y, np.ones(5), 3)
    assert np.isfinite(theirs).all() and theirs[0] - theirs[1] > 1000  # set by the stopping rule
    ours = fit_points(a, b, y, n_systems=3, penalty=0.0, anchor=1)
    assert ours.status[0] == "unbounded_above"
