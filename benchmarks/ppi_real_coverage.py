"""Do the prediction-powered board's intervals cover on real data? Chatbot Arena, three judges.

The real half in ``../shared/realdata/chatbot-arena-judges/`` (13,459 Chatbot Arena battles of
20 systems: the crowd's vote, and the verdict of three LLM judges on the same battles, each
asked once with ``model_a`` shown first; ``tie`` and ``tie (bothbad)`` are ties, 0.5). The
truth is the Bradley–Terry fit (``fitting.fit_points``, default penalty) of all its human
votes. For each ``n`` and draw, ``n`` battles are drawn at random without replacement (the
same battles for every judge: one seed per ``n`` and draw); the rater's votes are the crowd's
votes on them, and each judge's verdict on every battle is at hand. Three boards:

- ``rater-only``: the ``n`` votes alone, with the sandwich intervals of
  ``fit_prediction_powered`` at ``lam = 0`` (the same fit, the same variance);
- ``PPI``: ``fitting.fit_prediction_powered``, the votes with the judge's verdict on the
  same battle as the labeled set and its verdicts on the other battles as the unlabeled
  set, ``lam`` tuned as it tunes it;
- ``pooled``: today's rule for a judge pooled as votes (``arena.rounds.comparisons``): one
  weighted fit of the ``n`` votes (weight 1) and all the judge's verdicts, each weighing
  ``n / 13,459`` so the judge weighs as much as the votes in total; sandwich intervals of
  that weighted fit, computed as the PPI fit computes its own (per system pair, the
  variance of the summed gradient of the battles voted on, each battle's vote and verdict
  together, and of the other battles' verdicts; ``m / (m - 1)`` centring).

Every board is anchored on the truth's anchor (the most-compared system, vicuna-13b, at
1,000 points), and every interval is an interval of points relative to it, as
``fit_prediction_powered`` reports them: coverage is the share of (non-anchor system, draw)
where the truth's points lie in the 95% interval. Width: each system's interval width over
the rater-only one's from the same draw, averaged over systems and draws (``max``: the
largest single ratio). Effective votes: ``n`` times the rater-only board's mean variance
over the board's (non-anchor systems), averaged over draws; PPI's is its own
``effective_votes``. ``±`` is 1.96 standard errors of the coverage over draws.

``--diagnose`` adds PPI at its tuned ``lam`` without the guard that keeps every interval no
wider than the rater-only one, the guarded PPI's coverage with the finite-population
correction (the truth holds the drawn votes: ``n`` is up to 15% of it) and each judge's
within-pair correlation with the crowd (what the pair-stratified fit can use of it).

    .venv/bin/python benchmarks/ppi_real_coverage.py              # 200 draws (~25 s)
    .venv/bin/python benchmarks/ppi_real_coverage.py --draws 20
    .venv/bin/python benchmarks/ppi_real_coverage.py --diagnose --by-system
    .venv/bin/python benchmarks/ppi_real_coverage.py --anchor guanaco-33b
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import expit, ndtri

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fitting import (  # noqa: E402
    DEFAULT_PENALTY,
    POINTS_PER_LOGIT,
    fit_points,
    fit_prediction_powered,
)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata" / "chatbot-arena-judges"
JUDGES = ("gpt-4-0125-preview", "claude-3-opus-20240229", "gpt-3.5-turbo")
SIZES = (500, 1000, 2000)
OUTCOME = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
SEED = 20261207
BOARDS = ("rater-only", "PPI", "pooled")


@dataclass(frozen=True)
class Battles:
    """The real half: every battle's sides, the crowd's outcome and each judge's."""

    systems: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    judges: dict[str, np.ndarray]

    @property
    def size(self) -> int:
        return int(self.a.size)


def load(root: Path = DATA) -> Battles:
    """The four files, checked to hold the same battles line by line."""

    def read(name: str) -> list[dict]:
        with open(root / f"{name}.jsonl", encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    human = read("human")
    systems = tuple(sorted({r["model_a"] for r in human} | {r["model_b"] for r in human}))
    index = {s: i for i, s in enumerate(systems)}
    key = [(r["num"], r["model_a"], r["model_b"]) for r in human]
    judges = {}
    for name in JUDGES:
        rows = read(name)
        if [(r["num"], r["model_a"], r["model_b"]) for r in rows] != key:
            raise ValueError(f"{name}.jsonl does not hold human.jsonl's battles in its order")
        judges[name] = np.array([OUTCOME[r["winner"]] for r in rows])
    return Battles(
        systems=systems,
        a=np.array([index[r["model_a"]] for r in human], dtype=np.intp),
        b=np.array([index[r["model_b"]] for r in human], dtype=np.intp),
        y=np.array([OUTCOME[r["winner"]] for r in human]),
        judges=judges,
    )


def truth(data: Battles):
    """The Bradley–Terry fit of every human vote (default penalty, anchor by weight)."""
    return fit_points(data.a, data.b, data.y, n_systems=len(data.systems))


def drawn(data: Battles, n: int, draw: int, seed: int = SEED) -> np.ndarray:
    """The battles of draw ``draw`` of size ``n`` (the same for every judge)."""
    return np.sort(np.random.default_rng((seed, n, draw)).choice(data.size, n, replace=False))


def sandwich(strengths, a, b, weight, gradient, part, penalty, anchor, ranked):
    """Sandwich variance of each system's points relative to ``anchor``, as
    ``fit_prediction_powered`` computes its own: items (``a`` vs ``b``, ``weight`` their
    total weight in the fit, ``gradient`` their summed gradient for ``a``) stratified by
    system pair and ``part``; per group the variance of the summed gradient (``m/(m-1)``
    centred; a lone item its square); the Hessian of the weighted fit at ``strengths``.
    NaN for systems not ``ranked``; 0 for the anchor."""
    n = strengths.size
    flip = a > b
    p, q = np.where(flip, b, a), np.where(flip, a, b)
    g = np.where(flip, -gradient, gradient)
    keys, stratum = np.unique(p * n + q, return_inverse=True)
    pairs = np.stack([keys // n, keys % n], axis=1)
    group = stratum * 2 + part
    groups = 2 * keys.size
    m = np.bincount(group, minlength=groups).astype(np.float64)
    s1 = np.bincount(group, weights=g, minlength=groups)
    s2 = np.bincount(group, weights=g * g, minlength=groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        centred = np.maximum(s2 - s1 * s1 / m, 0.0) * m / (m - 1)
    v = np.where(m >= 2, centred, np.where(m > 0, s2, 0.0)).reshape(-1, 2).sum(axis=1)
    total = np.zeros((n, n))
    np.add.at(total, (p, q), weight)
    total = total + total.T
    live = np.flatnonzero(ranked)
    prob = expit(np.subtract.outer(strengths[live], strengths[live]))
    hess = -total[np.ix_(live, live)] * prob * (1.0 - prob)
    np.fill_diagonal(hess, 0.0)
    hess[np.diag_indices_from(hess)] = penalty - hess.sum(axis=1)
    inverse = np.linalg.inv(hess)
    where = np.full(n, -1)
    where[live] = np.arange(live.size)
    pp, qq = where[pairs[:, 0]], where[pairs[:, 1]]
    inside = (pp >= 0) & (qq >= 0)
    contrast = np.zeros((live.size, keys.size))
    contrast[:, inside] = inverse[:, pp[inside]] - inverse[:, qq[inside]]
    contrast -= contrast[where[anchor]]
    out = np.full(n, np.nan)
    out[live] = (POINTS_PER_LOGIT**2) * (contrast**2) @ v
    return out


def pooled_board(data: Battles, votes: np.ndarray, verdicts: np.ndarray, anchor: int):
    """Today's rule: the votes and every verdict in one weighted fit, the judge weighing as
    much as the votes; its points and sandwich standard errors (relative to ``anchor``)."""
    n_sys, total = len(data.systems), data.size
    c = votes.size / total  # each verdict's weight: the judge's total is the votes'
    a = np.concatenate([data.a[votes], data.a])
    b = np.concatenate([data.b[votes], data.b])
    y = np.concatenate([data.y[votes], verdicts])
    w = np.concatenate([np.ones(votes.size), np.full(total, c)])
    board = fit_points(a, b, y, w, n_systems=n_sys, anchor=anchor)
    s = board.strengths
    sigma = expit(s[data.a] - s[data.b])
    # Each battle's summed gradient: its verdict, and its vote where it has one.
    gradient = c * (sigma - verdicts)
    gradient[votes] += sigma[votes] - data.y[votes]
    part = np.ones(total, dtype=np.intp)
    part[votes] = 0
    weight = np.full(total, c)
    weight[votes] += 1.0
    var = sandwich(s, data.a, data.b, weight, gradient, part, DEFAULT_PENALTY, anchor, board.ranked)
    return board.points, np.sqrt(var)


def within_pair_correlation(data: Battles, judge: str) -> float:
    """The correlation of the crowd's outcome and the judge's over every battle, each
    centred on its system pair's mean (oriented low index first): the share of a vote's
    variance a judge can take off, as the pair-stratified fit uses it, is about its square."""
    flip = data.a > data.b
    _, stratum = np.unique(
        np.minimum(data.a, data.b) * 1000 + np.maximum(data.a, data.b), return_inverse=True
    )

    def centred(x: np.ndarray) -> np.ndarray:
        x = np.where(flip, 1.0 - x, x)
        return x - (np.bincount(stratum, x) / np.bincount(stratum))[stratum]

    return float(np.corrcoef(centred(data.y), centred(data.judges[judge]))[0, 1])


def run_cell(
    data: Battles,
    judge: str,
    n: int,
    draws: int,
    *,
    seed: int = SEED,
    target=None,
    anchor: int | None = None,
    diagnose: bool = False,
):
    """Every draw of one judge and ``n``: per board, whether each system's interval holds
    the truth, its width and the effective votes; PPI's ``lam``. Arrays (draw, system);
    NaN where a system is the anchor or not ranked. ``anchor``: default the truth's.
    ``diagnose``: also PPI at its tuned ``lam`` without the no-wider guard, and the
    guarded PPI's coverage with the finite-population correction ``sqrt(1 - n/size)``."""
    target = truth(data) if target is None else target
    anchor = int(target.anchor) if anchor is None else int(anchor)
    if anchor != target.anchor:
        target = fit_points(data.a, data.b, data.y, n_systems=len(data.systems), anchor=anchor)
    n_sys = len(data.systems)
    z = float(ndtri(0.975))
    verdicts = data.judges[judge]
    shape = (len(BOARDS), draws, n_sys)
    covered, width = np.full(shape, np.nan), np.full(shape, np.nan)
    effective = np.full((len(BOARDS), draws), np.nan)
    lam, lam_tuned = np.zeros(draws), np.zeros(draws)
    extra = np.full((3, draws, n_sys), np.nan)  # unguarded covered, width ratio; FPC covered
    fpc = np.sqrt(1.0 - n / data.size)
    for k in range(draws):
        votes = drawn(data, n, k, seed)
        rest = np.setdiff1d(np.arange(data.size), votes, assume_unique=True)
        ppi = fit_prediction_powered(
            data.a[votes],
            data.b[votes],
            data.y[votes],
            verdicts[votes],
            unlabeled_a=data.a[rest],
            unlabeled_b=data.b[rest],
            unlabeled_y_hat=verdicts[rest],
            n_systems=n_sys,
            anchor=anchor,
            n_resamples=1,  # only effective_votes' point is used
        )
        alone = fit_points(
            data.a[votes], data.b[votes], data.y[votes], n_systems=n_sys, anchor=anchor
        )
        pooled_points, pooled_se = pooled_board(data, votes, verdicts, anchor)
        boards = (
            (alone.points, ppi.rater_only_standard_error),
            (ppi.board.points, ppi.standard_error),
            (pooled_points, pooled_se),
        )
        keep = ppi.board.ranked & (np.arange(n_sys) != anchor)
        base_var = ppi.rater_only_standard_error[keep] ** 2
        for i, (points, se) in enumerate(boards):
            held = np.abs(points - target.points) <= z * se
            covered[i, k] = np.where(keep, held, np.nan)
            width[i, k] = np.where(keep, 2 * z * se, np.nan)
            effective[i, k] = n * base_var.mean() / np.mean(se[keep] ** 2)
        effective[1, k] = ppi.effective_votes
        lam[k], lam_tuned[k] = ppi.lam, ppi.lam_tuned
        if diagnose:
            free = fit_prediction_powered(
                data.a[votes],
                data.b[votes],
                data.y[votes],
                verdicts[votes],
                unlabeled_a=data.a[rest],
                unlabeled_b=data.b[rest],
                unlabeled_y_hat=verdicts[rest],
                n_systems=n_sys,
                anchor=anchor,
                lam=ppi.lam_tuned,
                n_resamples=1,
            )
            held = np.abs(free.board.points - target.points) <= z * free.standard_error
            extra[0, k] = np.where(keep, held, np.nan)
            with np.errstate(divide="ignore", invalid="ignore"):  # the anchor's 0 / 0
                ratio = free.standard_error / ppi.rater_only_standard_error
            extra[1, k] = np.where(keep, ratio, np.nan)
            held = np.abs(ppi.board.points - target.points) <= z * fpc * ppi.standard_error
            extra[2, k] = np.where(keep, held, np.nan)
    return {
        "covered": covered,
        "width": width,
        "effective": effective,
        "lam": lam,
        "lam_tuned": lam_tuned,
        "diagnosis": extra if diagnose else None,
    }


def summary(cell: dict) -> dict[str, dict[str, float]]:
    """Per board: coverage, its 1.96 SE over draws, mean and max width ratio, effective
    votes; and PPI's mean lam and share of draws with lam > 0."""
    covered, width = cell["covered"], cell["width"]
    ratio = width / width[0]
    out = {}
    for i, board in enumerate(BOARDS):
        per_draw = np.nanmean(covered[i], axis=1)
        out[board] = {
            "coverage": float(np.nanmean(covered[i])),
            "pm": float(1.96 * per_draw.std(ddof=1) / np.sqrt(per_draw.size))
            if per_draw.size > 1
            else float("nan"),
            "width": float(np.nanmean(ratio[i])),
            "max_width": float(np.nanmax(ratio[i])),
            "effective": float(np.mean(cell["effective"][i])),
        }
    out["PPI"]["lam"] = float(np.mean(cell["lam"]))
    out["PPI"]["lam_positive"] = float(np.mean(cell["lam"] > 0))
    if cell.get("diagnosis") is not None:
        extra = cell["diagnosis"]
        out["diagnosis"] = {
            "lam_tuned": float(np.mean(cell["lam_tuned"])),
            "unguarded_coverage": float(np.nanmean(extra[0])),
            "unguarded_width": float(np.nanmean(extra[1])),
            "unguarded_max_width": float(np.nanmax(extra[1])),
            "unguarded_wider_share": float(np.nanmean(extra[1] > 1.0 + 1e-9)),
            "fpc_coverage": float(np.nanmean(extra[2])),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=200, help="draws per judge and n (200)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="n, comma-separated")
    parser.add_argument("--judges", default=",".join(JUDGES), help="judges, comma-separated")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--data", type=Path, default=DATA, help="the chatbot-arena-judges folder")
    parser.add_argument("--by-system", action="store_true", help="coverage per system too")
    parser.add_argument("--anchor", help="the system intervals are relative to (the truth's)")
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="PPI without its no-wider guard, finite-population coverage",
    )
    parser.add_argument("--json", action="store_true", help="the summary as JSON")
    args = parser.parse_args(argv)
    if not (args.data / "human.jsonl").is_file():
        print(f"skipped: no real data at {args.data} (../shared/realdata/chatbot-arena-judges)")
        return 0
    started = time.perf_counter()
    data = load(args.data)
    target = truth(data)
    anchor = target.anchor if args.anchor is None else data.systems.index(args.anchor)
    sizes = [int(s) for s in args.sizes.split(",")]
    judges = args.judges.split(",")
    command = ".venv/bin/python benchmarks/ppi_real_coverage.py" + " ".join(
        [""] + (sys.argv[1:] if argv is None else argv)
    )
    results, cells = {}, {}
    for judge in judges:
        for n in sizes:
            cells[judge, n] = cell = run_cell(
                data,
                judge,
                n,
                args.draws,
                seed=args.seed,
                target=target,
                anchor=anchor,
                diagnose=args.diagnose,
            )
            results[f"{judge} n={n}"] = summary(cell)
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"`{command}`")
    print(
        f"{data.size:,} battles, {len(data.systems)} systems; truth: fit_points of every human "
        f"vote, anchor {data.systems[anchor]}; {args.draws} draws per row\n"
    )
    print(
        "| judge | n | rater-only coverage | PPI coverage | PPI width × (max) | PPI λ (share > 0) "
        "| PPI effective votes | pooled coverage | pooled width × | pooled effective votes |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for judge in judges:
        for n in sizes:
            r = results[f"{judge} n={n}"]
            ro, pp, po = r["rater-only"], r["PPI"], r["pooled"]
            print(
                f"| {judge} | {n:,} | {100 * ro['coverage']:.1f} ± {100 * ro['pm']:.1f}% "
                f"| {100 * pp['coverage']:.1f} ± {100 * pp['pm']:.1f}% "
                f"| {pp['width']:.2f} ({pp['max_width']:.2f}) "
                f"| {pp['lam']:.2f} ({100 * pp['lam_positive']:.0f}%) | {pp['effective']:,.0f} "
                f"| {100 * po['coverage']:.1f} ± {100 * po['pm']:.1f}% | {po['width']:.2f} "
                f"| {po['effective']:,.0f} |"
            )
    if args.diagnose:
        print(
            "\nDiagnosis: PPI at its tuned λ without the no-wider guard; the guarded PPI's "
            "coverage with the finite-population correction √(1 − n/N); the judge's "
            "within-pair correlation with the crowd\n"
        )
        print(
            "| judge | n | within-pair r | λ tuned | unguarded coverage | unguarded width × (max) "
            "| share of intervals wider | guarded coverage, FPC |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for judge in judges:
            r_within = within_pair_correlation(data, judge)
            for n in sizes:
                dg = results[f"{judge} n={n}"]["diagnosis"]
                print(
                    f"| {judge} | {n:,} | {r_within:.3f} | {dg['lam_tuned']:.2f} "
                    f"| {100 * dg['unguarded_coverage']:.1f}% "
                    f"| {dg['unguarded_width']:.3f} ({dg['unguarded_max_width']:.2f}) "
                    f"| {100 * dg['unguarded_wider_share']:.1f}% "
                    f"| {100 * dg['fpc_coverage']:.1f}% |"
                )
    if args.by_system:
        print("\nCoverage per system (%), over every judge and n: rater-only / PPI / pooled")
        for j, name in enumerate(data.systems):
            if j == anchor:
                continue
            shares = [
                100 * np.nanmean(np.concatenate([c["covered"][i][:, j] for c in cells.values()]))
                for i in range(len(BOARDS))
            ]
            print(f"  {name:32s} " + " / ".join(f"{s:5.1f}" for s in shares))
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
