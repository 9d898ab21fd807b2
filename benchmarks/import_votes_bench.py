"""`arena import-votes` against sqlite-utils `insert_all` of the same rows.

    python benchmarks/import_votes_bench.py                        # 1,000,000 votes
    python benchmarks/import_votes_bench.py --votes 10000,1000000  # several sizes
    python benchmarks/import_votes_bench.py --ledgers /tmp/ivb     # keep (and reuse) files

A family of 20 systems × 1,000 cases is imported once (`large_family.build`:
the normal import, gates included). For each size a vote log is written (one
vote a line as docs/formats.md describes: systems by label, a session per 2,000
votes, 10% repeats of an earlier line with sides swapped, now and then a
sample given), and then, each in a child process of its own:

- import: `arena import-votes LOG --family bench --json` through the CLI's
  ``main`` (the module imports are done before the clock starts), on a fresh
  copy of the family's ledger; the child's peak memory;
- floor: the presentations and votes that import wrote, read back into memory
  first, then written with sqlite-utils ``insert_all`` into a fresh database
  holding the same two tables (the ledger's own CREATE TABLE and CREATE INDEX
  statements; no triggers, no foreign keys), in WAL mode with
  ``synchronous = FULL`` as the ledger, in one transaction, then closing it
  (the import's time also ends with the ledger closed).

The import also reads and checks the log, hashes every record and every row,
and runs the ledger's triggers (append-only guards, hash chains, one vote in
force per presentation) on every row; the floor only stores rows already made.

Target (issue): import ≤ 3× the floor at 1M votes.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FAMILY = "bench"
SYSTEMS, CASES = 20, 1_000
SESSION_VOTES = 2_000
TABLES = ("presentations", "votes")


def build_base(path: Path) -> None:
    from arena.ledger import Ledger
    from benchmarks import large_family

    with tempfile.TemporaryDirectory() as folder, Ledger.open(path) as ledger:
        large_family.build(Path(folder), ledger, FAMILY, SYSTEMS, CASES)


def _at(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_767_225_600 + second))


def write_votes(path: Path, n_votes: int) -> None:
    rng = random.Random(n_votes)
    labels = [f"system{s:02d}" for s in range(SYSTEMS)]
    firsts: list[tuple[int, dict]] = []  # (line, record) of votes a repeat may come back to
    with open(path, "w", encoding="utf-8") as out:
        for line in range(1, n_votes + 1):
            if firsts and rng.random() < 0.10:
                was_line, was = rng.choice(firsts)
                record = {
                    "case_id": was["case_id"],
                    "left_system": was["right_system"],
                    "right_system": was["left_system"],
                    "repeat_of": was_line,
                }
            else:
                left, right = rng.sample(labels, 2)
                record = {
                    "case_id": f"case{rng.randrange(CASES):04d}",
                    "left_system": left,
                    "right_system": right,
                }
                if rng.random() < 0.05:
                    record["left_sample"] = record["right_sample"] = 0
            record |= {
                "choice": rng.choice(("left", "right", "left", "right", "tie", "both_bad")),
                "session": f"sitting-{line // SESSION_VOTES:04d}",
                "actor": "rater",
                "shown_at": _at(line * 20),
                "voted_at": _at(line * 20 + rng.randint(2, 19)),
            }
            if "repeat_of" not in record and len(firsts) < 50_000:
                firsts.append((line, record))
            out.write(json.dumps(record) + "\n")


def _peak_bytes() -> int:
    """This process's own peak memory (VmHWM: ``ru_maxrss`` keeps the parent's across exec)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def child_import(ledger: Path, log: Path) -> dict:
    import contextlib
    import io

    from arena.cli.main import main
    from arena.intake import votes  # noqa: F401  (imported before the clock starts)

    before = _peak_bytes()
    printed = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(printed):
        code = main(
            ["--ledger", str(ledger), "import-votes", str(log), "--family", FAMILY, "--json"]
        )
    seconds = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"import-votes exited {code}")
    return {"seconds": seconds, "peak_bytes": _peak_bytes(), "before_bytes": before} | json.loads(
        printed.getvalue()
    )


def child_floor(ledger: Path, target: Path) -> dict:
    from sqlite_utils import Database

    source = sqlite3.connect(ledger)
    source.row_factory = sqlite3.Row
    schema = [
        sql
        for (sql,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL "
            f"AND tbl_name IN ({', '.join('?' * len(TABLES))}) ORDER BY type DESC, name",
            TABLES,
        )
    ]
    rows = {
        table: [
            {k: r[k] for k in r.keys() if k != "seq"}
            for r in source.execute(f"SELECT * FROM {table} ORDER BY seq")
        ]
        for table in TABLES
    }
    source.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    db = Database(sqlite3.connect(target))
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    for sql in schema:
        db.execute(sql)
    start = time.perf_counter()
    with db.atomic():
        for table in TABLES:
            db[table].insert_all(rows[table])
    db.close()  # as the import's time ends with the ledger closed (WAL checkpointed)
    seconds = time.perf_counter() - start
    db = Database(sqlite3.connect(target))
    written = sum(db[t].count for t in TABLES)
    db.close()
    return {"seconds": seconds, "rows": written}


def _child(what: str, *paths: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if out.returncode != 0:
        raise SystemExit(f"{what} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def measure(base: Path, folder: Path, n_votes: int) -> dict:
    log = folder / f"votes-{n_votes}.jsonl"
    if not log.exists():
        write_votes(log, n_votes)
    trial, floor_db = folder / "trial.sqlite", folder / "floor.sqlite"
    from tests.conftest import copy_ledger  # not in the children, whose memory is measured

    copy_ledger(base, trial)  # with its head file, over any older trial
    imported = _child("import", trial, log)
    floor = _child("floor", trial, floor_db)
    for path in folder.glob("trial.sqlite*"):
        path.unlink()
    for path in folder.glob("floor.sqlite*"):
        path.unlink()
    return {"votes": n_votes, "log_mb": log.stat().st_size / 2**20, **imported, "floor": floor}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--votes", default="1000000", help="vote counts, comma separated")
    parser.add_argument("--ledgers", type=Path, help="keep (and reuse) the family and logs here")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        what, first, second = args.child
        run = {"import": child_import, "floor": child_floor}[what]
        print(json.dumps(run(Path(first), Path(second))))
        return
    sizes = [int(s.replace("_", "")) for s in args.votes.split(",") if s]
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.ledgers or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        from benchmarks import large_family  # not in the children, whose memory is measured

        base = large_family.base_ledger(folder, build_base, f"{SYSTEMS} systems × {CASES} cases")
        print(
            f"{'votes':>9} {'log MB':>7} {'import s':>9} {'votes/s':>8} {'peak MB':>8} "
            f"{'floor s':>8} {'rows/s':>8} {'ratio':>6}"
        )
        for n in sizes:
            r = measure(base, folder, n)
            floor = r["floor"]
            assert r["votes_added"] == n and floor["rows"] == 2 * n, r
            print(
                f"{n:>9,} {r['log_mb']:>7.0f} {r['seconds']:>9.2f} "
                f"{n / r['seconds']:>8,.0f} {r['peak_bytes'] / 2**20:>8.0f} "
                f"{floor['seconds']:>8.2f} {floor['rows'] / floor['seconds']:>8,.0f} "
                f"{r['seconds'] / floor['seconds']:>6.2f}",
                flush=True,
            )
        print(
            "import: the CLI in a child process (votes/s); floor: insert_all of its "
            "presentation and vote rows (rows/s, 2 per vote); ratio = import / floor; "
            "peak: the import child's peak resident memory"
        )


if __name__ == "__main__":
    main()
