"""The speed benchmarks of an earlier commit and of this tree, run side by side.

    python benchmarks/side_by_side.py --before 12bd250                 # the user's scale
    python benchmarks/side_by_side.py --before 12bd250 --quick         # a check (~3 min)
    python benchmarks/side_by_side.py --before 12bd250 --after HEAD    # committed code only

Runs ``large_family.py``, ``round_bench.py`` and ``ui_latency.py`` (as ``python
benchmarks/NAME.py`` with that tree's Arena) in a ``git worktree`` of ``--before`` and in
this checkout (or a worktree of ``--after``), in alternating order
(before then after, after then before, ...) ``--reps`` times, and prints each figure's
median before and after and their ratio; ``!`` marks a ratio above ``--limit`` (1.1).

The user's scale, by default: 20 systems × 1,000 cases with 100,000 past votes
(``large_family.py``), a round closed at 100,000 votes (``round_bench.py``), and 200 votes
on each of prose, diffs and a large family of 100,000 past votes (``ui_latency.py``).
Ledgers are built once per tree (in a scratch folder, or ``--keep``), not timed.

Both trees run the after tree's copy of the three scripts (copied into the before
worktree), so the same code measures both: ``large_family.py`` only prints timings since
after 12bd250. ``--scripts own`` runs each tree's own copy instead (when the after
scripts use what the before tree lacks).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from boards_unchanged import REPO, worktree

# "settle, every pair listed        123.4 ms   ..." (large_family.py)
TIMED = re.compile(r"^(?P<what>\S.*?)\s+(?P<ms>\d+\.\d) ms {3}")
# "     prose: 200 votes  p50   12.3 ms  p95   20.1 ms  max ..." (ui_latency.py)
LATENCY = re.compile(
    r"^\s*(?P<what>.+?): \d+ votes\s+p50\s+(?P<p50>[\d.]+) ms\s+p95\s+(?P<p95>[\d.]+)"
)
OPENED = re.compile(r"^(?P<what>\S+): session opened in (?P<s>[\d.]+) s")
# round_bench.py's table: votes, floor s, close s, ratio, peak MB, again s, ratio, narrow s, ratio
ROUND_COLUMNS = ("floor s", "close s", None, "peak MB", "again s", None, "narrow s", None)


def large_family(out: str) -> dict[str, float]:
    return {f"large_family: {m['what']} (ms)": float(m["ms"]) for m in _matches(TIMED, out)}


def round_bench(out: str) -> dict[str, float]:
    found = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) != 9 or not cells[0].replace(",", "").isdigit():
            continue
        for name, cell in zip(ROUND_COLUMNS, cells[1:], strict=True):
            if name is not None:
                found[f"round_bench: {cells[0]} votes, {name}"] = float(cell)
    return found


def ui_latency(out: str) -> dict[str, float]:
    found = {}
    for m in _matches(LATENCY, out):
        found[f"ui_latency: {m['what']} p50 (ms)"] = float(m["p50"])
        found[f"ui_latency: {m['what']} p95 (ms)"] = float(m["p95"])
    for m in _matches(OPENED, out):
        found[f"ui_latency: {m['what']} session opened (s)"] = float(m["s"])
    return found


def _matches(pattern: re.Pattern[str], out: str) -> Iterator[re.Match[str]]:
    return (m for m in map(pattern.match, out.splitlines()) if m)


SIDES = ("before", "after")
PARSERS = {"large_family": large_family, "round_bench": round_bench, "ui_latency": ui_latency}


def arguments(args: argparse.Namespace, keep: Path) -> dict[str, list[str]]:
    """Each benchmark's command-line arguments at the chosen scale."""
    return {
        "large_family": [
            "--keep", str(keep / "large_family"), "--systems", str(args.systems),
            "--cases", str(args.cases), "--votes", str(args.votes),
            "--repeats", str(args.repeats),
        ],
        "round_bench": ["--sizes", str(args.votes), "--ledgers", str(keep / "round_bench")],
        "ui_latency": [
            "--votes", str(args.ui_votes), "--large", args.ui_large,
            "--large-votes", str(args.ui_votes),
        ],
    }  # fmt: skip


def same_scripts(after: Path, before: Path) -> None:
    """The after tree's copies of the benchmarks, in the before tree's worktree."""
    for name in PARSERS:
        shutil.copyfile(after / "benchmarks" / f"{name}.py", before / "benchmarks" / f"{name}.py")


def run(tree: Path, name: str, argv: list[str]) -> dict[str, float]:
    """``benchmarks/NAME.py ARGV`` of ``tree``, with that tree's Arena: its figures."""
    env = {**os.environ, "PYTHONPATH": str(tree), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / f"{name}.py"), *argv],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {name}.py failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    found = PARSERS[name](done.stdout)
    if not found:
        raise SystemExit(f"{tree}: {name}.py printed no figure I can read:\n{done.stdout}")
    return found


@contextlib.contextmanager
def after_tree(rev: str | None) -> Iterator[Path]:
    if rev is None:
        yield REPO
    else:
        with worktree(rev) as tree:
            yield tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the earlier commit")
    parser.add_argument("--after", help="a commit instead of this checkout as it is")
    parser.add_argument("--reps", type=int, help="runs of each benchmark per tree (3)")
    parser.add_argument("--only", default=",".join(PARSERS), help="benchmarks, comma-separated")
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--votes", type=int, default=100_000, help="past votes of the family")
    parser.add_argument("--repeats", type=int, default=5, help="large_family's repeats")
    parser.add_argument("--ui-votes", type=int, default=200, help="ui_latency: votes on each")
    parser.add_argument("--ui-large", default="100000", help="ui_latency: its --large")
    quick = "a check: 100 cases, 5,000 votes, 2 reps, 40 window votes, no large family"
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--scripts", choices=("after", "own"), default="after")
    parser.add_argument("--limit", type=float, default=1.1)
    parser.add_argument("--keep", type=Path, help="keep the built ledgers here")
    args = parser.parse_args()
    if args.quick:
        args.cases, args.votes, args.ui_votes, args.ui_large = 100, 5000, 40, ""
        args.repeats = 3
    args.reps = args.reps or (2 if args.quick else 3)
    names = args.only.split(",")
    figures: dict[str, dict[str, list[float]]] = {side: defaultdict(list) for side in SIDES}
    with (
        worktree(args.before) as before,
        after_tree(args.after) as after,
        tempfile.TemporaryDirectory() as scratch,
    ):
        folder = args.keep or Path(scratch)
        trees = {"before": before, "after": after}
        if args.scripts == "after":
            same_scripts(after, before)
        after_name = args.after or "this checkout"
        print(f"before: {args.before} ({before}); after: {after_name} ({after})", flush=True)
        for rep in range(args.reps):
            order = SIDES if rep % 2 == 0 else SIDES[::-1]
            for name in names:
                for side in order:
                    argv = arguments(args, folder / side)[name]
                    for figure, value in run(trees[side], name, argv).items():
                        figures[side][figure].append(value)
                    print(f"  rep {rep + 1}: {name} {side} done", file=sys.stderr, flush=True)
    print(f"\n{'figure':<66} {'before':>10} {'after':>10} {'ratio':>7}   (median of {args.reps})")
    for figure, values in figures["before"].items():
        old = statistics.median(values)
        new = statistics.median(figures["after"].get(figure) or [float("nan")])
        ratio = new / old if old else float("nan")
        mark = " !" if ratio > args.limit else ""
        print(f"{figure:<66} {old:>10.2f} {new:>10.2f} {ratio:>6.2f}×{mark}")
    for figure in sorted(set(figures["after"]) - set(figures["before"])):
        print(f"{figure:<66} {'—':>10} {statistics.median(figures['after'][figure]):>10.2f}")


if __name__ == "__main__":
    main()
