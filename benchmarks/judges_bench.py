"""`arena judges show` at scale: 100,000 rater votes and 3 model judges × 50,000 verdicts.

    python benchmarks/judges_bench.py                     # build once (kept), then measure
    python benchmarks/judges_bench.py --votes 2000 --verdicts 1000   # a small one
    python benchmarks/judges_bench.py --keep /tmp/jb --repeats 3

The ledger (built once with a fixed seed and kept, by default in the temporary folder)
holds one family of 20 systems × 1,000 cases (imported through the real import with its
gates, as ``large_family.build`` writes it) and ``--votes`` past votes written as the
rater's (``large_family.add_past_votes``: presentations, votes, repeats and skips). Three
model judges then give ``--verdicts`` verdicts each, written to a native verdict file and
imported through `arena judges import`: each judge orders the systems by a hidden quality
(with its own noise, a pull to the left and a 15% tie rate); half its items are items the
rater voted, the other half not; the first judge asks each of its items in both orders.

Each command runs as a whole child process, ``--repeats`` times after a warm-up: the
median wall and CPU time (``RUSAGE_CHILDREN``), and the peak RSS of one more run
(``ru_maxrss`` of RUSAGE_CHILDREN, read by a child of its own that runs it), beside two
floors measured in the same run: ``python -c pass`` and the SQL read of the votes and
verdicts alone (``judge_store``, what the report reads before any figure; the wall ratio
is against it). Measured: `arena judges show` (target at the full size: ≤ 10 s wall and
≤ 500 MB peak RSS) and `arena round close --with-judges` of the three judges (the pooled,
prediction-powered board), each run on a fresh copy of the ledger.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SYSTEMS, CASES = 20, 1_000
JUDGES = ("judge-a", "judge-b", "judge-c")
# Bump when the built ledger changes, so a kept one is built again.
VERSION = "1"
FLOOR = "SQL read of votes and verdicts"
FLOOR_READ = """
import sys
from arena.ledger import Ledger, judge_store
with Ledger.open(sys.argv[1]) as ledger:
    votes = judge_store.rater_verdicts(ledger, "big")
    verdicts = judge_store.verdicts(ledger, "big")
print(len(votes), len(verdicts))
"""


def build(
    path: Path,
    votes: int,
    verdicts: int,
    seed: int = 7,
    systems: int = SYSTEMS,
    cases: int = CASES,
) -> None:
    """The family (``systems`` × ``cases``), the rater's ``votes`` and each judge's
    ``verdicts``, at ``path`` (the tests build a small one)."""
    from arena.cli.main import main as arena
    from arena.ledger import Ledger, catalog, voting
    from benchmarks.large_family import add_past_votes
    from benchmarks.large_family import build as build_family

    with Ledger.open(path) as ledger:
        build_family(path.parent, ledger, "big", systems, cases)
        add_past_votes(ledger, "big", votes, seed=seed)
        outputs = {o.output_id: o for o in catalog.outputs(ledger, "big")}
        labels = {s.system_id: s.label for s in catalog.systems(ledger, "big")}
        voted = sorted(
            {
                (v.case_id, *sorted((outputs[v.left_output].system_id,
                                     outputs[v.right_output].system_id)))
                for v in voting.votes_in_force(ledger, "big")
            }
        )  # fmt: skip
    rng = random.Random(seed)
    ids = sorted(labels)
    quality = {s: rng.gauss(0.0, 1.0) for s in ids}
    voted_set = set(voted)
    for n, judge in enumerate(JUDGES):
        both = n == 0  # the first judge asks every item in both orders
        items = verdicts // 2 if both else verdicts
        mine = rng.sample(voted, min(len(voted), items // 2))
        taken = voted_set | set(mine)
        while len(mine) < items:
            case = f"case{rng.randrange(cases):04d}"
            item = (case, *sorted(rng.sample(ids, 2)))
            if item not in taken:
                taken.add(item)
                mine.append(item)
        lines = []
        for case, a, b in mine:
            for game in (1, 2) if both else (1,):
                left, right = (a, b) if (game == 1) == (rng.random() < 0.5) else (b, a)
                edge = quality[left] - quality[right] + 0.3 + rng.gauss(0.0, 1.0 + n / 2)
                winner = "tie" if rng.random() < 0.15 else ("left" if edge > 0 else "right")
                record = {"case_id": case, "left_system": labels[left], "game": game,
                          "right_system": labels[right], "winner": winner}  # fmt: skip
                lines.append(json.dumps(record))
        file = path.parent / f"{judge}.jsonl"
        file.write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = ["--ledger", str(path), "judges", "import", str(file), "--family", "big",
                "--judge", judge, "--kind", "model"]  # fmt: skip
        if arena(argv) != 0:
            raise SystemExit(f"importing {file} failed")


def measure(
    argv: list[str], repeats: int, before: Callable[[], object] = lambda: None
) -> tuple[float, float]:
    """Median wall and CPU seconds of ``argv`` run as a child ``repeats`` times after a
    warm-up (``before`` runs ahead of each, untimed)."""
    walls, cpus = [], []
    for _ in range(repeats + 1):
        before()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
    return statistics.median(walls[1:]), statistics.median(cpus[1:])


def peak_mb(argv: list[str], before: Callable[[], object] = lambda: None) -> float:
    """Peak RSS in MB of ``argv`` run once: ``ru_maxrss`` of RUSAGE_CHILDREN, read in a
    child of its own that runs it (this process's children's maximum would include the
    others')."""
    before()
    probe = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv], check=True, capture_output=True, text=True, cwd=ROOT
    )
    return int(done.stdout.strip()) / 1024  # Linux: kilobytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "judges-bench")
    parser.add_argument("--votes", type=int, default=100_000)
    parser.add_argument("--verdicts", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from arena.ledger import Ledger

    folder = args.keep / f"v{VERSION}-{args.votes}-{args.verdicts}"
    path = folder / "judges-bench.sqlite"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        build(path, args.votes, args.verdicts)
        print(f"built {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    with Ledger.open(path):  # a kept ledger is brought to this tree's schema once
        pass
    closed = folder / "closed.sqlite"

    def fresh_copy() -> None:  # a round close writes: each run closes the same ledger
        for suffix in ("", ".heads.json"):
            source = Path(f"{path}{suffix}")
            if source.exists():
                shutil.copyfile(source, f"{closed}{suffix}")

    arena = [sys.executable, "-m", "arena", "--ledger"]
    judges = ",".join(JUDGES)
    runs: dict[str, tuple[list[str], Callable[[], object]]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], lambda: None),
        FLOOR: ([sys.executable, "-c", FLOOR_READ, str(path)], lambda: None),
        "arena judges show": ([*arena, str(path), "judges", "show", "--family", "big"],
                              lambda: None),
        "arena round close --with-judges": ([*arena, str(closed), "round", "close", "--family",
                                             "big", "--with-judges", judges], fresh_copy),
    }  # fmt: skip
    print(
        f"{args.votes:,} rater votes, {len(JUDGES)} model judges × {args.verdicts:,} verdicts "
        f"({SYSTEMS} systems × {CASES:,} cases); median of {args.repeats} after a warm-up"
    )
    print(f"| {'command':<32} | wall s | CPU s | peak RSS MB | wall × floor |")
    print(f"|{'-' * 34}|-------:|------:|------------:|-------------:|")
    floor = None
    for what, (argv, before) in runs.items():
        wall, cpu = measure(argv, args.repeats, before)
        peak = peak_mb(argv, before)
        if what == FLOOR:
            floor = wall
        ratio = f"{wall / floor:12.1f}" if floor else f"{'':>12}"
        print(f"| {what:<32} | {wall:6.2f} | {cpu:5.2f} | {peak:11.0f} | {ratio} |", flush=True)
    print(f"floor: {FLOOR}")


if __name__ == "__main__":
    main()
