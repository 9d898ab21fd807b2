"""Time Arena's point fit against its peers on the same synthetic comparisons.

Not a test: prints a table. Each method runs in its own subprocess on data
regenerated from the same seed, so peak memory belongs to that method alone:
VmHWM is reset once the data is built and the method's modules imported,
and the peak above the resident size at that point is reported. BLAS is pinned to one thread with
threadpoolctl in every worker, for every method. Each method runs once to
warm up (JAX compiles), then ``--repeats`` timed runs; the median is shown.

    python benchmarks/fit_bench.py --quick
    python benchmarks/fit_bench.py --sizes 500x1000000 --methods ours,ilsr,arena-rank
    python benchmarks/fit_bench.py --e2e-only

Peers (test/bench extras): choix, arena-rank (JAX), scikit-learn, pandas.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SCALE = 400.0 / math.log(10.0)
METHODS = ("ours", "ilsr", "opt", "arena-rank", "sklearn")
LABELS = {
    "ours": "arena fitting.fit_points",
    "ilsr": "choix ilsr_pairwise_dense",
    "opt": "choix opt_pairwise",
    "arena-rank": "arena-rank BradleyTerry",
    "sklearn": "FastChat sklearn LogisticRegression",
}
FULL_SIZES = [(n, m) for n in (20, 100, 500) for m in (10_000, 100_000, 1_000_000)]
QUICK_SIZES = [(20, 10_000), (100, 100_000), (500, 1_000_000)]


def make_data(n: int, m: int, seed: int = 0):
    """Comparisons among ``n`` systems: strengths N(0, 1), 10% ties, unit weights."""
    rng = np.random.default_rng(seed + 1000 * n + m)
    s = rng.normal(0.0, 1.0, n)
    a = rng.integers(0, n, m)
    b = rng.integers(0, n - 1, m)
    b = b + (b >= a)
    p = 1.0 / (1.0 + np.exp(-(s[a] - s[b])))
    y = np.where(rng.random(m) < 0.1, 0.5, (rng.random(m) < p).astype(float))
    return a, b, y, np.ones(m)


def _frame(a, b, y):
    import pandas as pd

    names = np.array([f"m{i:04d}" for i in range(max(a.max(), b.max()) + 1)])
    winner = np.where(y == 1.0, "model_a", np.where(y == 0.0, "model_b", "tie"))
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})


# --- the methods: each returns mean-centred points indexed like the systems ---


def run_ours(n, a, b, y, w):
    from fitting import fit_points

    result = fit_points(a, b, y, w, n_systems=n, penalty=0.0)
    return SCALE * (result.strengths - result.strengths.mean())


def run_ilsr(n, a, b, y, w):
    import choix

    comp = np.bincount(a * n + b, weights=w * y, minlength=n * n)
    comp += np.bincount(b * n + a, weights=w * (1 - y), minlength=n * n)
    theta = choix.ilsr_pairwise_dense(comp.reshape(n, n), alpha=0.0)
    return SCALE * (theta - theta.mean())


def run_opt(n, a, b, y, w):
    import choix

    # No ties or weights in choix: every comparison twice, a tie once each
    # way (twice the data; the unpenalized optimum is unchanged).
    won = np.concatenate([np.where(y >= 0.5, a, b), np.where(y > 0.5, a, b)])
    lost = np.concatenate([np.where(y >= 0.5, b, a), np.where(y > 0.5, b, a)])
    theta = choix.opt_pairwise(n, list(zip(won.tolist(), lost.tolist(), strict=True)))
    return SCALE * (theta - theta.mean())


def prepare_arena_rank(n, a, b, y, w):
    return _frame(a, b, y)


def run_arena_rank(n, frame):
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    dataset = PairDataset.from_pandas(frame)  # its public path from a DataFrame
    model = BradleyTerry(n_competitors=len(dataset.competitors))
    model.fit(dataset)
    ratings = np.asarray(model.params["ratings"])
    order = np.array([int(name[1:]) for name in dataset.competitors])
    out = np.zeros(n)
    out[order] = SCALE * (ratings - ratings.mean())
    return out


def prepare_sklearn(n, a, b, y, w):
    return _frame(a, b, y)


def fastchat_mle(frame):
    """FastChat's compute_mle_elo (pivot tables + LogisticRegression(tol=1e-6)).

    The design matrix is the same as FastChat's; it is filled with numpy
    instead of FastChat's per-pair Python loop, which only makes it faster.
    """
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    def pivot(rows):
        return pd.pivot_table(
            rows, index="model_a", columns="model_b", aggfunc="size", fill_value=0
        )

    models = sorted(set(frame["model_a"]) | set(frame["model_b"]))
    a_win = pivot(frame[frame["winner"] == "model_a"]).reindex(index=models, columns=models)
    b_win = pivot(frame[frame["winner"] == "model_b"]).reindex(index=models, columns=models)
    tie = pivot(frame[frame["winner"].str.startswith("tie")]).reindex(index=models, columns=models)
    a_win, b_win, tie = (t.fillna(0).to_numpy(float) for t in (a_win, b_win, tie))
    win = a_win * 2 + b_win.T * 2 + tie + tie.T
    p = len(models)
    i, j = np.nonzero(~np.eye(p, dtype=bool))
    rows = i.size
    x = np.zeros((2 * rows, p))
    x[np.arange(2 * rows), np.concatenate([i, i])] = math.log(10)
    x[np.arange(2 * rows), np.concatenate([j, j])] = -math.log(10)
    target = np.concatenate([np.ones(rows), np.zeros(rows)])
    weight = np.concatenate([win[i, j], win[j, i]])
    keep = weight > 0
    lr = LogisticRegression(fit_intercept=False, penalty=None, tol=1e-6)
    lr.fit(x[keep], target[keep], sample_weight=weight[keep])
    coef = lr.coef_[0] * 400.0
    return models, coef - coef.mean()


def run_sklearn(n, frame):
    models, points = fastchat_mle(frame)
    out = np.zeros(n)
    out[[int(name[1:]) for name in models]] = points
    return out


# --- end to end: a battles file in, a leaderboard out ---


def write_battles_file(path: Path, n: int, m: int) -> None:
    a, b, y, _ = make_data(n, m, seed=7)
    winner = np.where(y == 1.0, "model_a", np.where(y == 0.0, "model_b", "tie"))
    with open(path, "w", encoding="utf-8") as handle:
        for k in range(m):
            row = {
                "model_a": f"m{a[k]:04d}",
                "model_b": f"m{b[k]:04d}",
                "winner": str(winner[k]),
                "tstamp": 1.7e9 + k,
            }
            handle.write(json.dumps(row) + "\n")


def run_e2e_ours(path):
    from arena.rounds.scoring import fit_battles

    board = fit_battles(path, penalty=0.0)
    points = {row["system"]: row["points"] for row in board["systems"]}
    return points


def run_e2e_pandas(path):
    import pandas as pd

    frame = pd.read_json(path, lines=True)
    models, points = fastchat_mle(frame)
    return dict(zip(models, points, strict=True))


# --- worker: one method, one size, in a fresh process ---


def _reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _peak_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


PREIMPORT = {
    "ours": ["fitting"],
    "ilsr": ["choix"],
    "opt": ["choix"],
    "arena-rank": ["arena_rank.models.bradley_terry", "arena_rank.utils.data_utils", "pandas"],
    "sklearn": ["sklearn.linear_model", "pandas"],
    "e2e-ours": ["arena.intake.battles"],
    "e2e-pandas": ["sklearn.linear_model", "pandas"],
}


def worker(args) -> None:
    import importlib

    from threadpoolctl import threadpool_limits

    sys.path.insert(0, str(ROOT))
    for module in PREIMPORT[args.method]:
        importlib.import_module(module)
    with threadpool_limits(limits=1, user_api="blas"):
        if args.method.startswith("e2e-"):
            fn = run_e2e_ours if args.method == "e2e-ours" else run_e2e_pandas
            call = lambda: fn(args.file)  # noqa: E731
        else:
            data = make_data(args.n, args.m)
            prepare = globals().get(f"prepare_{args.method.replace('-', '_')}")
            fn = globals()[f"run_{args.method.replace('-', '_')}"]
            prepared = prepare(args.n, *data) if prepare else None
            if prepared is not None:
                call = lambda: fn(args.n, prepared)  # noqa: E731
            else:
                call = lambda: fn(args.n, *data)  # noqa: E731
        _reset_peak()  # peak memory from here on: imports done, data built
        base = _peak_mb()
        result = call()  # warm-up (JAX compiles here)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - start)
    if isinstance(result, dict):
        names = sorted(result)
        result = np.array([result[k] for k in names], dtype=float)
        result = result - result.mean()
    np.save(args.out, np.asarray(result, dtype=float))
    print(json.dumps({"times": times, "peak_mb": _peak_mb() - base}))


def spawn(method, n, m, repeats, out, file=None, timeout=None):
    cmd = [sys.executable, __file__, "--worker", method, "--n", str(n), "--m", str(m)]
    cmd += ["--repeats", str(repeats), "--out", str(out)]
    if file:
        cmd += ["--file", str(file)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        return None, f"skipped (>{timeout:.0f} s)"
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["failed"])[-1]
        return None, f"failed: {tail[:60]}"
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


def exact_points(n, m):
    from fitting import fit_points

    result = fit_points(*make_data(n, m), n_systems=n, penalty=0.0, tol=1e-14, max_iter=200)
    return SCALE * (result.strengths - result.strengths.mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="three sizes, two repeats")
    parser.add_argument("--sizes", help="comma-separated NxM, e.g. 500x1000000")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--opt-max-comparisons", type=int, default=10_000)
    parser.add_argument("--sklearn-max-systems", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--e2e-lines", type=int, default=1_000_000)
    parser.add_argument("--e2e-systems", type=int, default=100)
    parser.add_argument("--no-e2e", action="store_true")
    parser.add_argument("--e2e-only", action="store_true")
    # worker mode
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--m", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.method = args.worker
        worker(args)
        return
    sys.path.insert(0, str(ROOT))
    repeats = 2 if args.quick and args.repeats == 5 else args.repeats
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    if args.sizes:
        sizes = [tuple(int(v) for v in size.split("x")) for size in args.sizes.split(",")]
    methods = [m for m in args.methods.split(",") if m]
    tmp = Path(tempfile.mkdtemp(prefix="fit_bench_"))
    if not args.e2e_only:
        print(f"repeats={repeats} (median shown), BLAS pinned to 1 thread in every worker")
        header = f"{'size':>12} {'method':36} {'median s':>9} {'ratio':>8} {'peak MB':>8}"
        print(header + f" {'max |Δ| vs ours':>16} {'ours vs exact':>14}")
        for n, m in sizes:
            exact = exact_points(n, m)
            ours_time, ours_points = None, None
            for method in methods:
                if method == "opt" and m > args.opt_max_comparisons:
                    note = f"skipped (>{120} s at this size; --opt-max-comparisons)"
                    print(f"{n:>4}x{m:<7} {LABELS[method]:36} {note}")
                    continue
                if method == "sklearn" and n > args.sklearn_max_systems:
                    note = "skipped (>40 s, >2 GB here; --sklearn-max-systems)"
                    print(f"{n:>4}x{m:<7} {LABELS[method]:36} {note}")
                    continue
                out = tmp / f"{method}-{n}-{m}.npy"
                stats, note = spawn(method, n, m, repeats, out, timeout=args.timeout)
                if stats is None:
                    print(f"{n:>4}x{m:<7} {LABELS[method]:36} {note}")
                    continue
                median = statistics.median(stats["times"])
                points = np.load(out)
                if method == "ours":
                    ours_time, ours_points = median, points
                ratio = f"{median / ours_time:.1f}x" if ours_time else "-"
                diff = (
                    f"{np.max(np.abs(points - ours_points)):.2e}"
                    if ours_points is not None
                    else "-"
                )
                vs_exact = f"{np.max(np.abs(points - exact)):.1e}" if method == "ours" else ""
                print(
                    f"{n:>4}x{m:<7} {LABELS[method]:36} {median:9.3f} {ratio:>8} "
                    f"{stats['peak_mb']:8.0f} {diff:>16} {vs_exact:>14}"
                )
    if not args.no_e2e:
        path = tmp / "battles.jsonl"
        write_battles_file(path, args.e2e_systems, args.e2e_lines)
        size_mb = path.stat().st_size / 1e6
        print(
            f"\nend to end: {args.e2e_lines:,} lines, {args.e2e_systems} systems, {size_mb:.0f} MB"
        )
        results = {}
        for method, label in (
            ("e2e-ours", "arena.rounds.scoring.fit_battles"),
            ("e2e-pandas", "pandas read_json + FastChat sklearn"),
        ):
            out = tmp / f"{method}.npy"
            stats, note = spawn(method, 0, 0, repeats, out, file=path, timeout=args.timeout)
            if stats is None:
                print(f"{label:40} {note}")
                continue
            results[method] = np.load(out)
            median = statistics.median(stats["times"])
            print(f"{label:40} {median:9.3f} s  peak {stats['peak_mb']:6.0f} MB")
        if len(results) == 2:
            gap = np.max(np.abs(results["e2e-ours"] - results["e2e-pandas"]))
            print(f"max |Δ points| between the two: {gap:.2e}")


if __name__ == "__main__":
    main()
