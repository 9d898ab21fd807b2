"""Prediction-powered boards in simulation: calibrated, and how many votes is a judge worth?

One simulated family (``fitting.simulate``): 10 systems with evenly spread strengths, 1,000
cases, every output with a length; every unordered pair of systems on every case is an
*item* (45,000). The rater votes Bradley–Terry on the two outputs' qualities, with ties and
"both bad" (``fitting.simulate.RaterTraits``). Four judges read the same outputs and judge
every item in both orders (the prediction is the mean of the two verdicts; a tie or two
orders that disagree make the item *unsure*):

- ``accurate``: as good as the real GPT-4 judge (83% agreement with the rater where both
  are decisive, about 50% exact agreement ties included);
- ``position``: the same reader with a lean to the output shown first (says "left" 86% of
  the time when asked once, like the real GPT-3.5);
- ``length``: the same reader with a lean to the longer output;
- ``noisy``: 60% agreement where both are decisive.

The rater's pairs come from one of three designs: ``coverage`` (every system pair in turn,
``fitting.simulate.simulate_votes``, then items uniformly at random), ``adaptive`` (a
quarter coverage-first, then system pairs in proportion to (p(1-p))^2 of the rater-only
fit of those votes: the closest pairs, several times as often) and ``unsure`` (system pairs
in turn; within a pair the case drawn with probability pi proportional to 1 + (k-1)*unsure,
k = 4, with replacement, and pi passed to the fit). Each draw fits
:func:`fitting.fit_prediction_powered` (lam tuned; at lam = 0 it is the rater-only board).

Truth is the rater model's board: the Bradley–Terry fit (no penalty) of every item's
expected outcome, each system pair weighted alike, on the anchor the draw's fit chose.

Bound: the same fit given the *calibrated* judge, E[rater's outcome | the judge's two
verdicts, system pair] worked out from the model (each item's expected outcome averaged over
the items of its pair where the judge gave the same two verdicts). For a fixed rater sample,
no prediction built from this judge's verdicts lowers a prediction-powered variance more (it
is the best control variate of the outcome given the verdicts): it keeps the judge's correct
part and drops the rest.

Told which (the issue's bound: an estimator told which verdicts are wrong): the same
calibration with, as an extra known feature of each item, whether each of its two verdicts
is wrong-way (:func:`wrong_way`), i.e. E[outcome | the two verdicts, the two flags, system
pair]. It is told *which* verdicts are wrong, not what the answer is; "told" below (those
verdicts replaced by the expected outcome) is told the answer too.

    .venv/bin/python benchmarks/ppi_simulation.py [--draws 200] [--jobs 2] [--target 40]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fitting import POINTS_PER_LOGIT, fit_points, fit_prediction_powered  # noqa: E402
from fitting import simulate as sim  # noqa: E402

N_SYSTEMS = 10
N_CASES = 1000
SPREAD = 5.0  # strengths evenly spaced in [-SPREAD, SPREAD] logits
QUALITY_SD = 3.0  # an output's quality around its system's strength
RATER = sim.RaterTraits(tie=0.15, both_bad=0.1)
UNSURE_K = 4.0  # unsure items drawn k times as often as sure ones
TIE_WIDTH = 3.0  # a judge ties most within a few logits of even
COVER_EACH = 5  # the coverage design's first votes per system pair
ADAPTIVE_FIRST = 0.25  # share of the adaptive design's votes spent covering
FAMILY_SEED = 20261207
DESIGNS = ("coverage", "adaptive", "unsure")
GRID = (0.7, 1.0)  # vote counts tried, as shares of the rater-only count for the target
# The fit given: the judge; the calibrated judge (the bound); the calibrated judge told which
# of its verdicts are wrong-way ("which"); the judge with its wrong verdicts replaced by the
# rater's expected outcome ("told"); a perfect judge (the expected outcome).
PREDICTIONS = ("ppi", "bound", "which", "told", "perfect")


@dataclass(frozen=True)
class JudgeTraits:
    """How a judge answers one order: "left" whatever it read with probability ``first``;
    else, with x = sharpness * (m + e) + length * d, a tie with probability ``tie`` * 4 t (1 -
    t), t = sigma(x / TIE_WIDTH) (most where it is least sure), else "left" with probability
    sigma(x); ``m`` the item's quality margin as the
    rater sees it, ``e`` ~ N(0, misread) the judge's misreading of the item (the same in
    both orders), ``d`` = (len_left - len_right) / (len_left + len_right)."""

    name: str
    tie: float
    sharpness: float
    misread: float = 0.0
    first: float = 0.0
    length: float = 0.0


JUDGES = (
    JudgeTraits("accurate", tie=0.6, sharpness=2.0, misread=2.5),
    JudgeTraits("position", tie=0.2, sharpness=2.0, misread=2.5, first=0.77),
    JudgeTraits("length", tie=0.6, sharpness=2.0, misread=2.5, length=20.0),
    JudgeTraits("noisy", tie=0.3, sharpness=0.5, misread=14.0),
)


@dataclass(frozen=True)
class World:
    """The family's items (case, the first and second system: the lower index first) and
    what the model says of each: the rater's expected outcome for the first, the judge's
    margin before its own leans, the length term, and the true board."""

    family: sim.SimulatedFamily
    pending: NDArray[np.intp]  # settled_pairs' rows (case, output, output): the items
    case: NDArray[np.intp]
    first: NDArray[np.intp]
    second: NDArray[np.intp]
    pair: NDArray[np.intp]  # 0 .. 44
    margin: NDArray[np.float64]  # exp(-difficulty) * (q_first - q_second)
    d: NDArray[np.float64]  # (len_first - len_second) / (len_first + len_second)
    expected: NDArray[np.float64]  # the rater's expected outcome for the first
    expected_sq: NDArray[np.float64]  # and of its square
    strengths: NDArray[np.float64]  # the rater model's board (log-strengths)
    n_pairs: int


def make_world(seed: int = FAMILY_SEED) -> World:
    rng = np.random.default_rng(seed)
    drawn = sim.draw_systems(N_SYSTEMS, rng=rng)
    strengths = np.linspace(-SPREAD, SPREAD, N_SYSTEMS)
    systems = sim.SystemTraits(strengths, np.zeros(N_SYSTEMS), drawn.log_length)
    family = sim.draw_family(systems, N_CASES, rng=rng, quality_sd=QUALITY_SD)
    _, pending = sim.settled_pairs(family)  # no gate fails, no copies: every item pending
    case, first, second = pending[:, 0], pending[:, 1], pending[:, 2]
    pair_of = np.full((N_SYSTEMS, N_SYSTEMS), -1)
    i, j = np.triu_indices(N_SYSTEMS, k=1)
    pair_of[i, j] = np.arange(i.size)
    pair_of[j, i] = np.arange(i.size)
    margin = np.exp(-family.difficulty[case]) * (
        family.quality[case, first] - family.quality[case, second]
    )
    len_f, len_s = family.length[case, first], family.length[case, second]
    d = (len_f - len_s) / (len_f + len_s)
    expected = sim.balanced_expected_y(family, RATER, case, first, second)
    board = truth_board(first, second, expected)
    # E[y^2] of the first, each side half the time: a win 1, a tie or both bad 1/4.
    square = np.array([1.0, 0.0, 0.25, 0.25])
    sq = [
        sim.choice_probabilities(family, RATER, case, first, second) @ square,
        sim.choice_probabilities(family, RATER, case, second, first) @ square[[1, 0, 2, 3]],
    ]
    return World(
        family, pending, case, first, second, pair_of[first, second], margin, d, expected,
        (sq[0] + sq[1]) / 2, board.strengths, int(i.size),
    )  # fmt: skip


def truth_board(first, second, expected, weight=None):
    """The Bradley–Terry fit (no penalty) of expected outcomes: each item as a win of the
    first weighing its expected outcome and a loss weighing the rest."""
    w = np.ones(first.size) if weight is None else weight
    return fit_points(
        np.concatenate([first, first]), np.concatenate([second, second]),
        np.concatenate([np.ones(first.size), np.zeros(first.size)]),
        np.concatenate([w * expected, w * (1.0 - expected)]),
        n_systems=N_SYSTEMS, penalty=0.0, anchor=0,
    )  # fmt: skip


# --- the judge -------------------------------------------------------------------------


def _one_order(
    world: World, judge: JudgeTraits, read: NDArray[np.float64], forward: bool, rng
) -> NDArray[np.float64]:
    """The judge's verdict for the first system with it shown left (``forward``) or right."""
    sign = 1.0 if forward else -1.0
    logit = sign * (judge.sharpness * read + judge.length * world.d)
    soft = expit(logit / TIE_WIDTH)
    lazy = rng.random(read.size) < judge.first  # "left", whatever it read
    tie = ~lazy & (rng.random(read.size) < judge.tie * 4.0 * soft * (1.0 - soft))
    says_left = lazy | (rng.random(read.size) < expit(logit))
    first_wins = says_left if forward else ~says_left
    return np.where(tie, 0.5, first_wins.astype(np.float64))


def judge_verdicts(world: World, judge: JudgeTraits, rng) -> tuple[NDArray, NDArray]:
    """Every item's verdicts for the first system, shown first and shown second."""
    read = world.margin + rng.normal(0.0, judge.misread, world.margin.size)
    return _one_order(world, judge, read, True, rng), _one_order(world, judge, read, False, rng)


def wrong_way(world: World, verdict: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Verdicts (for the first system) pointing the other way from the rater's expected
    outcome: the rule "told" applies to the mean of the two verdicts, (verdict - 1/2) *
    (expected - 1/2) < 0. A tie verdict, or an item the rater expects even, is never
    wrong-way."""
    return (verdict - 0.5) * (world.expected - 0.5) < 0.0


def told_which(world: World, forward: NDArray, backward: NDArray) -> NDArray[np.intp]:
    """Which of the item's two verdicts are wrong-way, as 0..3 (forward 1, backward 2)."""
    return wrong_way(world, forward).astype(np.intp) + 2 * wrong_way(world, backward)


def calibrated(
    world: World, forward: NDArray, backward: NDArray, known: NDArray[np.intp] | None = None
) -> NDArray[np.float64]:
    """The bound's prediction: E[rater's outcome | pair, the two verdicts], from the model;
    with ``known`` (0..3, :func:`told_which`), given that too."""
    cell = world.pair * 9 + (2 * forward).astype(np.intp) * 3 + (2 * backward).astype(np.intp)
    size = world.n_pairs * 9
    if known is not None:
        cell, size = cell * 4 + known, size * 4
    total = np.bincount(cell, weights=world.expected, minlength=size)
    count = np.bincount(cell, minlength=size)
    return np.clip(total[cell] / count[cell], 0.0, 1.0)


def unsure_of(y_hat: NDArray[np.float64]) -> NDArray[np.bool_]:
    """A tie in either order or two orders that disagree."""
    return (y_hat > 0.0) & (y_hat < 1.0)


# --- the rater and its designs ---------------------------------------------------------


def rater_outcomes(world: World, items: NDArray[np.intp], rng) -> NDArray[np.float64]:
    """The rater's vote on each item, sides at random, as the outcome of the first."""
    swap = rng.random(items.size) < 0.5
    left = np.where(swap, world.second[items], world.first[items])
    right = np.where(swap, world.first[items], world.second[items])
    probs = sim.choice_probabilities(world.family, RATER, world.case[items], left, right)
    u = rng.random(items.size)[:, None]
    choice = np.minimum((u >= np.cumsum(probs, axis=1)).sum(axis=1), 3)
    y_left = np.array([1.0, 0.0, 0.5, 0.5])[choice]
    return np.where(swap, 1.0 - y_left, y_left)


def _item_index(world: World, case, a, b) -> NDArray[np.intp]:
    """The item of ``case`` on systems ``a`` and ``b`` (either order)."""
    pairs = world.n_pairs
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    # Items are ordered case, then the pair (triu order), as settled_pairs lists them.
    rank = lo * N_SYSTEMS - lo * (lo + 1) // 2 + (hi - lo - 1)
    return case * pairs + rank


def _coverage_first(world: World, n: int, rng) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """``n`` votes, system pairs in turn, the scheduler's stand-in (fitting.simulate)."""
    # Among the items of 100 cases drawn at random (the stand-in sorts every row it is given).
    cases = rng.choice(N_CASES, min(N_CASES, 100), replace=False)
    pending = world.pending[np.isin(world.pending[:, 0], cases)]
    votes = sim.simulate_votes(world.family, RATER, n, rng=rng, pending=pending, repeat_share=0.0)
    items = _item_index(world, votes.case, votes.a, votes.b)
    y = np.where(votes.a == world.first[items], votes.y, 1.0 - votes.y)
    return items, y


def _per_pair(world: World, counts: NDArray[np.int64], taken: NDArray[np.bool_], rng):
    """``counts[s]`` items of each system pair ``s`` not ``taken``, uniformly."""
    key = rng.random(world.pair.size) + 2.0 * taken
    order = np.lexsort((key, world.pair))
    start = np.searchsorted(world.pair[order], np.arange(world.n_pairs))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size) - start[world.pair[order]]
    return np.flatnonzero((rank < counts[world.pair]) & ~taken)


def design(world: World, name: str, n: int, unsure: NDArray[np.bool_], rng):
    """The rater's items, its outcomes and each vote's selection probability (or None)."""
    if name == "coverage":
        first = min(n, COVER_EACH * world.n_pairs)
        items, y = _coverage_first(world, first, rng)
        taken = np.zeros(world.pair.size, dtype=bool)
        taken[items] = True
        rest = rng.choice(np.flatnonzero(~taken), n - first, replace=False)
        return (
            np.concatenate([items, rest]),
            np.concatenate([y, rater_outcomes(world, rest, rng)]),
            None,
        )
    if name == "adaptive":
        first = max(COVER_EACH * world.n_pairs, int(ADAPTIVE_FIRST * n))
        items, y = _coverage_first(world, first, rng)
        fit = fit_points(world.first[items], world.second[items], y, n_systems=N_SYSTEMS)
        s = fit.strengths
        i, j = np.triu_indices(N_SYSTEMS, k=1)
        p = expit(s[i] - s[j])
        weight = (p * (1 - p)) ** 2
        counts = rng.multinomial(n - first, weight / weight.sum())
        taken = np.zeros(world.pair.size, dtype=bool)
        taken[items] = True
        rest = _per_pair(world, counts, taken, rng)
        return (
            np.concatenate([items, rest]),
            np.concatenate([y, rater_outcomes(world, rest, rng)]),
            None,
        )
    if name == "unsure":
        counts = np.full(world.n_pairs, n // world.n_pairs)
        counts[rng.choice(world.n_pairs, n % world.n_pairs, replace=False)] += 1
        pi = selection_probabilities(world, unsure)
        items = np.concatenate(
            [
                rng.choice(where, counts[s], replace=True, p=pi[where])
                for s, where in enumerate(_by_pair(world))
            ]
        )
        return items, rater_outcomes(world, items, rng), pi[items]
    raise ValueError(name)


def _by_pair(world: World) -> list[NDArray[np.intp]]:
    return [np.flatnonzero(world.pair == s) for s in range(world.n_pairs)]


def selection_probabilities(world: World, unsure: NDArray[np.bool_]) -> NDArray[np.float64]:
    """pi within each system pair, proportional to 1 + (k - 1) * unsure (sums to 1 a pair)."""
    raw = 1.0 + (UNSURE_K - 1.0) * unsure
    total = np.bincount(world.pair, weights=raw, minlength=world.n_pairs)
    return raw / total[world.pair]


# --- one draw --------------------------------------------------------------------------


def one_draw(world: World, judge: JudgeTraits, design_name: str, n: int, seed) -> dict:
    """Coverage and widths of the three estimators on one draw of verdicts and votes."""
    rng = np.random.default_rng(seed)
    forward, backward = judge_verdicts(world, judge, rng)
    y_hat = (forward + backward) / 2
    items, y, prob = design(world, design_name, n, unsure_of(y_hat), rng)
    unlabeled = np.ones(world.pair.size, dtype=bool)
    unlabeled[items] = False
    out = {}
    predictions = {"ppi": y_hat, "bound": calibrated(world, forward, backward)}
    if design_name == "coverage":
        predictions["which"] = calibrated(
            world, forward, backward, told_which(world, forward, backward)
        )
        wrong = wrong_way(world, y_hat)
        predictions["told"] = np.where(wrong, world.expected, y_hat)
        predictions["perfect"] = world.expected
    for estimator, prediction in predictions.items():
        found = fit_prediction_powered(
            world.first[items], world.second[items], y, prediction[items],
            unlabeled_a=world.first[unlabeled], unlabeled_b=world.second[unlabeled],
            unlabeled_y_hat=prediction[unlabeled], n_systems=N_SYSTEMS,
            selection_probability=prob, cluster=world.case[items],
            unlabeled_cluster=world.case[unlabeled], fixed_cluster=np.zeros(0, dtype=np.intp),
            n_resamples=1,
        )  # fmt: skip
        anchor = found.board.anchor
        truth = 1000.0 + POINTS_PER_LOGIT * (world.strengths - world.strengths[anchor])
        others = np.arange(N_SYSTEMS) != anchor
        held = (found.low <= truth) & (truth <= found.high)
        out[estimator] = {
            "held": int(held[others].sum()),
            "width": float(np.mean(found.high[others] - found.low[others])),
            "lam": found.lam,
        }
        if estimator == "ppi":
            z = (found.high - found.low)[others] / (2 * found.standard_error[others])
            out["rater"] = {
                "width": float(np.mean(2 * z * found.rater_only_standard_error[others]))
            }
            out["wider"] = bool(
                np.any(
                    found.standard_error[others]
                    > found.rater_only_standard_error[others] * (1 + 1e-9)
                )
            )
    return out


_WORLD: World | None = None


def _world() -> World:
    global _WORLD
    if _WORLD is None:
        _WORLD = make_world()
    return _WORLD


def _task(args: tuple[int, str, int, int, int]) -> tuple[tuple[int, str, int], list[dict]]:
    j, design_name, n, draws, seed = args
    world = _world()
    results = [
        one_draw(world, JUDGES[j], design_name, n, [seed, j, DESIGNS.index(design_name), n, d])
        for d in range(draws)
    ]
    return (j, design_name, n), results


# --- the judges as asked once -----------------------------------------------------------


def judge_profile(world: World, judge: JudgeTraits, rng) -> dict[str, float]:
    """The judge asked once (each item in one order at random), against one vote of the
    rater per item; and how often its two orders leave it unsure."""
    forward, backward = judge_verdicts(world, judge, rng)
    y = rater_outcomes(world, np.arange(world.pair.size), rng)
    shown_first = rng.random(y.size) < 0.5  # the item's first system shown left
    once = np.where(shown_first, forward, backward)
    says_left = np.where(shown_first, once == 1.0, once == 0.0)
    both = (once != 0.5) & (y != 0.5)
    decisive = (once != 0.5) & (world.d != 0)
    prefers_longer = np.where(world.d > 0, once == 1.0, once == 0.0)
    return {
        "exact": float(np.mean(once == y)),
        "decisive": float(np.mean(once[both] == y[both])),
        "left": float(np.mean(says_left)),
        "ties": float(np.mean(once == 0.5)),
        "longer": float(np.mean(prefers_longer[decisive])),
        "unsure": float(np.mean(unsure_of((forward + backward) / 2))),
        "best_k": best_k(world, forward, backward),
    }


def best_k(world: World, forward: NDArray, backward: NDArray) -> float:
    """The k that active sampling would want: sampling in proportion to the outcome's
    standard deviation left over by the calibrated judge (Zrnic and Candès), unsure items
    against sure ones: sqrt(mean Var(y | pair, verdicts) over unsure / over sure)."""
    y_hat = (forward + backward) / 2
    cell = world.pair * 9 + (2 * forward).astype(np.intp) * 3 + (2 * backward).astype(np.intp)
    mean = calibrated(world, forward, backward)
    size = world.n_pairs * 9
    second = np.bincount(cell, weights=world.expected_sq, minlength=size)
    count = np.bincount(cell, minlength=size)
    var = second[cell] / count[cell] - mean**2
    unsure = unsure_of(y_hat)
    return float(math.sqrt(var[unsure].mean() / var[~unsure].mean()))


# --- the report ------------------------------------------------------------------------


def votes_for(widths: dict[int, float], target: float) -> float:
    """The votes at which the mean width reaches ``target``: log width linear in log n
    between the two grid points around it (extrapolated from the nearest two outside)."""
    ns = np.array(sorted(widths))
    w = np.array([widths[n] for n in ns])
    x, yv = np.log(ns), np.log(w)
    k = int(np.clip(np.searchsorted(-yv, -math.log(target)), 1, ns.size - 1))
    slope = (yv[k] - yv[k - 1]) / (x[k] - x[k - 1])
    return float(math.exp(x[k - 1] + (math.log(target) - yv[k - 1]) / slope))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=200, help="draws per judge, design and n")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--target", type=float, default=40.0, help="target mean half-width of the 95%% intervals"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    command = ".venv/bin/python benchmarks/ppi_simulation.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    print(f"$ {command.strip()}\n")
    world = make_world()
    rng = np.random.default_rng(args.seed)
    target = 2 * args.target  # full width

    # The world and the judges as a user would measure them (asked once).
    points = POINTS_PER_LOGIT * (world.strengths - world.strengths.min())
    ties = float(np.mean(rater_outcomes(world, np.arange(world.pair.size), rng) == 0.5))
    print(
        f"Family: {N_SYSTEMS} systems, {N_CASES} cases, {world.pair.size} items; true points "
        f"above the lowest: {', '.join(f'{p:.0f}' for p in points)}; rater ties {ties:.0%}.\n"
    )
    print(
        "| judge | exact agreement | decisive agreement | says first | ties | prefers longer "
        "| unsure (both orders) | best k |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for judge in JUDGES:
        p = judge_profile(world, judge, rng)
        print(
            f"| {judge.name} | {p['exact']:.1%} | {p['decisive']:.1%} | {p['left']:.1%} | "
            f"{p['ties']:.1%} | {p['longer']:.1%} | {p['unsure']:.1%} | {p['best_k']:.1f} |"
        )

    # The rater-only votes for the target, from a pilot: width ~ 1/sqrt(n).
    pilot_n = 2000
    pilot = [
        one_draw(world, JUDGES[0], "coverage", pilot_n, [args.seed, 99, d])["rater"]["width"]
        for d in range(4)
    ]
    n0 = pilot_n * (float(np.mean(pilot)) / target) ** 2
    grid = sorted({int(round(f * n0 / 5) * 5) for f in GRID})
    print(f"\nTarget: mean 95% interval ±{args.target:.0f} points; the rater alone needs about "
          f"{n0:.0f} votes (pilot); vote counts tried: {', '.join(map(str, grid))}.\n")  # fmt: skip

    tasks = []
    chunk = max(1, args.draws // (4 * max(1, args.jobs)) or 1)
    for j in range(len(JUDGES)):
        for name in DESIGNS:
            for n in grid:
                for start in range(0, args.draws, chunk):
                    count = min(chunk, args.draws - start)
                    tasks.append((j, name, n, count, args.seed * 1_000_003 + start))
    results: dict[tuple[int, str, int], list[dict]] = {}
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(args.jobs) as pool:
        for key, found in pool.imap_unordered(_task, tasks):
            results.setdefault(key, []).extend(found)

    def mean_width(j: int, name: str, estimator: str) -> dict[int, float]:
        return {
            n: float(np.mean([r[estimator]["width"] for r in results[(j, name, n)]])) for n in grid
        }

    print("Coverage of the 95% intervals (share of the 9 non-anchor systems' intervals holding the "
          f"truth, {args.draws} draws each), prediction-powered fit:\n")  # fmt: skip
    head = " | ".join(f"n = {n}" for n in grid)
    print(f"| judge | design | {head} | mean λ | wider than rater-only |")
    print("|---|---|" + "---|" * len(grid) + "---|---|")
    for j, judge in enumerate(JUDGES):
        for name in DESIGNS:
            cov = [
                np.sum([r["ppi"]["held"] for r in results[(j, name, n)]])
                / (9 * len(results[(j, name, n)]))
                for n in grid
            ]
            lam = np.mean([r["ppi"]["lam"] for n in grid for r in results[(j, name, n)]])
            wider = sum(r["wider"] for n in grid for r in results[(j, name, n)])
            print(f"| {judge.name} | {name} | " + " | ".join(f"{c:.1%}" for c in cov)
                  + f" | {lam:.2f} | {wider} |")  # fmt: skip

    print(f"\nRater votes for a mean 95% interval of ±{args.target:.0f} points (log-log "
          "interpolation over the vote counts tried); in brackets the ratio to the rater alone "
          "on the same system-pair design (unsure-first: to coverage). bound: the fit given the "
          "calibrated judge; told which: given the judge calibrated knowing which of its "
          "verdicts are wrong-way (the issue's bound); PPI / which: PPI's votes over told "
          "which's (within 5% of the bound: ≤ 1.05); told: given the judge with its wrong "
          "verdicts replaced by the rater's expected outcome; perfect: given the expected "
          "outcome itself:\n")  # fmt: skip
    print(
        "| judge | design | rater alone | PPI | bound | PPI − bound | told which | PPI / which "
        "| told | perfect | coverage: bound, told which, told, perfect |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for j, judge in enumerate(JUDGES):
        for name in DESIGNS:
            base_design = "coverage" if name == "unsure" else name
            alone = votes_for(mean_width(j, base_design, "rater"), target)
            cells = [r for n in grid for r in results[(j, name, n)]]
            row = [f"{alone:.0f}"]
            found = {}
            for estimator in PREDICTIONS:
                if estimator not in cells[0]:
                    continue
                found[estimator] = votes_for(mean_width(j, name, estimator), target)
            row += [f"{found[e]:.0f} ({found[e] / alone:.2f})" for e in ("ppi", "bound")]
            row.append(f"{(found['ppi'] - found['bound']) / alone:+.2f}")
            if "which" in found:
                row.append(f"{found['which']:.0f} ({found['which'] / alone:.2f})")
                row.append(f"{found['ppi'] / found['which']:.2f}")
            else:
                row += ["—", "—"]
            row += [
                f"{found[e]:.0f} ({found[e] / alone:.2f})" if e in found else "—"
                for e in ("told", "perfect")
            ]
            held = [
                np.mean([r[e]["held"] for r in cells]) / 9 for e in PREDICTIONS[1:] if e in found
            ]
            row.append(", ".join(f"{h:.1%}" for h in held))
            print(f"| {judge.name} | {name} | " + " | ".join(row) + " |")
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
