"""The first write of a process on a ledger of many commits, before and after migration 0016.

    python benchmarks/first_write.py                  # 100,000 commits (about 5 minutes)
    python benchmarks/first_write.py --commits 20000 --keep /tmp/first-write

Every write transaction is a commit (a vote is one), and before its first write a
process reads how far the commits seal each table (``seals.marks``). The script builds
a ledger of a small family and ``--commits`` one-flag commits (written with the page
cache's syncing off: the ledger is thrown away), then, each in a fresh child process and
best of ``--repeats``: opening the ledger and writing one flag (the first write, marks
included), the same on a ledger of one commit (the floor), and the reading of the
marks as it was before migration 0016 (every commit's JSON) on the same file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ledger import Ledger, events  # noqa: E402

FAMILY = "bench"
EVERY_COMMIT = (
    "SELECT t.key, MAX(json_extract(t.value, '$.to')) FROM commits, json_each(commits.tables) "
    "t WHERE json_extract(t.value, '$.to') IS NOT NULL GROUP BY t.key"
)


def build(path: Path, commits: int) -> None:
    from arena.intake.outputs import import_file

    source = path.with_suffix(".jsonl")
    source.write_text(
        "".join(
            json.dumps(
                {"case": {"id": f"c{c}", "prompt": "Say hello."},
                 "system": {"label": s, "model": f"bench/{s}"},
                 "output": f"{s} says hello to case {c} in a friendly sentence."}
            ) + "\n"
            for c in range(20)
            for s in ("alpha", "beta", "gamma")
        )
    )  # fmt: skip
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family=FAMILY, fmt="native", workers=0)
        ledger.db.execute("PRAGMA synchronous = OFF")
        for n in range(commits):
            with ledger.atomic():
                events.add_event(ledger, FAMILY, "flag", case_id="c1", note=f"n{n}")


def first_write(path: str) -> float:
    started = time.perf_counter()
    with Ledger.open(path) as ledger, ledger.atomic():
        events.add_event(ledger, FAMILY, "flag", case_id="c2", note="first")
    return time.perf_counter() - started


def every_commit(path: str) -> float:
    import sqlite3

    db = sqlite3.connect(path)
    started = time.perf_counter()
    db.execute(EVERY_COMMIT).fetchall()
    return time.perf_counter() - started


def _child(what: str, path: Path, repeats: int) -> float:
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, "
        f"{str(ROOT / 'benchmarks')!r}); import first_write as b; print(b.{what}({str(path)!r}))"
    )
    return min(
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.split()[-1])
        for _ in range(repeats)
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the built ledgers here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        many, few = folder / f"commits-{args.commits}.sqlite", folder / "commits-0.sqlite"
        for path, n in ((few, 0), (many, args.commits)):
            if not path.exists():
                started = time.perf_counter()
                build(path, n)
                print(f"  built {n:,} commits in {time.perf_counter() - started:.0f} s")
        floor = _child("first_write", few, args.repeats)
        ours = _child("first_write", many, args.repeats)
        before = _child("every_commit", many, args.repeats)
        print(f"first write, a ledger of one commit (floor): {floor * 1000:.1f} ms")
        print(
            f"first write, {args.commits:,} commits: {ours * 1000:.1f} ms ({ours / floor:.2f}x "
            f"the floor); the marks read from every commit, as before: {before * 1000:.1f} ms "
            f"({(floor + before) / floor:.2f}x the floor with it)"
        )


if __name__ == "__main__":
    main()
