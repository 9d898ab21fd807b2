"""`round close` against the floor of reading its rows, at 10k, 100k (and 1M) votes.

    python benchmarks/round_bench.py                          # 10k, 100k and 1M (~3 min)
    python benchmarks/round_bench.py --sizes 10000,100000     # quicker
    python benchmarks/round_bench.py --ledgers /tmp/rb        # keep (and reuse) the ledgers

A family of 20 systems × 1,000 cases is imported once (gates run as in a real
import); each size copies that ledger and adds its votes in one transaction:
presentations and votes with correct hash chains, 10% repeats, a few skips and
retractions, a session per 2,000 votes, then a few corrections (a retired case,
removed outputs, an overruled verdict). For each size, in a child process each:

- floor: reading the rows round close needs (cases, systems, outputs, gate
  results, events, votes, retractions, sessions) with plain SQL ``fetchall``;
- narrow floor: the same rows, only the columns a close reads of them (a vote's
  hashes, times and comment are not): printed last, with the close's ratio to it;
- round close: opening the ledger and `close_round` with the default settings
  on a fresh copy of the built ledger, and the child's peak memory;
- a second close with nothing new since (it restates the first).

Then, whole processes as a user runs them (CPU time, user + system, from the start of the
interpreter to its exit, imports included; bytecode cached as an installed Arena has it):

- process floor: a child that imports only what it needs (sqlite3, numpy, ``fitting``),
  reads the floor's rows, turns the votes into comparisons and fits the board once;
- process close: ``python -m arena round close`` on a fresh copy, and what it costs
  beyond the process floor (startup, imports, checks, settling, summary, storing);
- floor + check: the process floor, then the soundness check a close makes before
  anything else (the family's rows against their chains and seals): the least a sound
  close costs, with its ratio to the floor.

The children inherit Arena's one BLAS thread (``OPENBLAS_NUM_THREADS``, set when this
script imports Arena), so the floor's numpy is loaded as the close's is.

Times are the best of two runs, the peak memory the worst.

Targets (issue 16): close ≤ 2× the floor, peak ≤ 1 GB at 1M, second close ≤ 1.2×.
Issue 49: the process close ≤ 2× the process floor at 10k and 100k, and under 1 s of CPU
beyond it at 10k.
"""

from __future__ import annotations

import argparse
import json
import math
import os
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

from arena import family_state  # noqa: E402
from arena.intake.outputs import import_file  # noqa: E402
from arena.ledger import Ledger, events  # noqa: E402
from arena.ledger.chain import row_hash  # noqa: E402
from arena.ledger.guards import GENESIS_HASH  # noqa: E402
from arena.records import OutputId  # noqa: E402
from benchmarks import large_family  # noqa: E402
from tests.conftest import copy_ledger  # noqa: E402

FAMILY = "bench"
SYSTEMS, CASES, CATEGORIES = 20, 1_000, 5
SESSION_VOTES = 2_000
# Each figure is the best of this many runs (the peak memory, the worst).
REPEATS = 2
WORDS = large_family.WORDS + (
    "should",
    "compare",
    "each",
    "method",
    "carefully",
    "before",
    "choosing",
    "one",
)
# What the floor reads: every row round close needs, as plain SQL.
FLOOR_QUERIES = (
    "SELECT * FROM cases WHERE family = :f",
    "SELECT * FROM systems WHERE system_id IN (SELECT system_id FROM outputs WHERE family = :f)",
    "SELECT * FROM outputs WHERE family = :f ORDER BY rowid",
    "SELECT * FROM gate_results WHERE output_id IN "
    "(SELECT output_id FROM outputs WHERE family = :f) ORDER BY output_id, seq",
    "SELECT * FROM events WHERE family = :f ORDER BY seq",
    "SELECT * FROM votes WHERE family = :f ORDER BY seq",
    "SELECT * FROM retractions WHERE family = :f ORDER BY seq",
    "SELECT * FROM sessions WHERE family = :f ORDER BY number",
)

# The same rows, only the columns a close reads (no hashes, times or comments of votes):
# a stricter floor, which the close matches its reading to (at 1M votes, reading whole
# vote rows is most of the floor above).
NARROW_QUERIES = (
    *FLOOR_QUERIES[:3],
    "SELECT output_id, gate, passed, reason, fingerprint FROM gate_results WHERE output_id IN "
    "(SELECT output_id FROM outputs WHERE family = :f) ORDER BY seq",
    FLOOR_QUERIES[4],
    "SELECT vote_id, case_id, left_output, right_output, choice, actor, repeat_of, session_id "
    "FROM votes WHERE family = :f ORDER BY seq",
    "SELECT vote_id FROM retractions WHERE family = :f",
    "SELECT session_id, number FROM sessions WHERE family = :f",
)


def _prose(rng: random.Random, size: int) -> str:
    """Paragraphs of a few sentences, now and then a short list."""
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        if rng.random() < 0.2:
            parts.append(
                "\n".join(
                    f"- {rng.choice(WORDS)} {rng.choice(WORDS)}" for _ in range(rng.randint(2, 5))
                )
            )
            continue
        parts.append(
            " ".join(
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24))).capitalize() + "."
                for _ in range(rng.randint(2, 5))
            )
        )
    return "\n\n".join(parts)[:size]


def _native_file(path: Path, rng: random.Random) -> None:
    """20 × 1,000 English answers, 200 to 4,000 characters; ~3% cut off, ~1% identical."""
    with open(path, "w", encoding="utf-8") as out:
        for case in range(CASES):
            prompt = _prose(rng, 300)
            shared = _prose(rng, 600)
            for system in range(SYSTEMS):
                size = int(math.exp(rng.uniform(math.log(200), math.log(4000))))
                text = shared if rng.random() < 0.01 else _prose(rng, size)
                record = {
                    "family": {"name": FAMILY, "max_chars": 3500},
                    "case": {
                        "id": f"c{case:04d}",
                        "category": f"cat{case % CATEGORIES}",
                        "prompt": prompt,
                    },
                    "system": {"label": f"s{system:02d}", "model": f"bench/s{system:02d}"},
                    "output": text,
                    "finish_reason": "length" if rng.random() < 0.03 else "stop",
                    "latency_ms": rng.uniform(200, 9000),
                    "cost": rng.uniform(0.0001, 0.01),
                }
                out.write(json.dumps(record) + "\n")


def build_base(path: Path) -> None:
    rng = random.Random(16)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "bench.jsonl"
        _native_file(source, rng)
        with Ledger.open(path) as ledger:
            import_file(ledger, source, family=FAMILY, fmt="native")


def _at(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000+00:00", time.gmtime(1_767_225_600 + second))


class _Chain:
    """Rows of one append-only table, hashed as ``chain.append`` hashes them."""

    def __init__(self, table: str, columns: tuple[str, ...]) -> None:
        self.table, self.columns, self.prev, self.rows = table, columns, GENESIS_HASH, []

    def add(self, row: dict) -> None:
        digest = row_hash(self.prev, row)
        self.rows.append((*(row[c] for c in self.columns), self.prev, digest))
        self.prev = digest

    def write(self, db: sqlite3.Connection) -> None:
        names = (*self.columns, "prev_hash", "hash")
        db.executemany(
            f"INSERT INTO {self.table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            self.rows,
        )


PRESENTATION = (
    "presentation_id",
    "session_id",
    "family",
    "case_id",
    "left_output",
    "right_output",
    "shown_at",
    "repeat_of",
)
VOTE = (
    "vote_id",
    "presentation_id",
    "session_id",
    "family",
    "case_id",
    "left_output",
    "right_output",
    "choice",
    "shown_at",
    "voted_at",
    "active_ms",
    "actor",
    "repeat_of",
    "comment",
    "identity_leak",
)
RETRACTION = ("retraction_id", "family", "vote_id", "session_id", "retracted_at")


def _choice(rng: random.Random, strength: dict[str, float], left: str, right: str) -> str:
    roll = rng.random()
    if roll < 0.02:
        return "skip"
    if roll < 0.10:
        return "tie"
    if roll < 0.14:
        return "both_bad"
    p_left = 1 / (1 + math.exp(strength[right] - strength[left]))
    return "left" if rng.random() < p_left else "right"


def add_votes(path: Path, n_votes: int) -> None:
    """``n_votes`` votes on the family's pending pairs, then a few corrections."""
    rng = random.Random(n_votes)
    with Ledger.open(path) as ledger:
        state = family_state.load(ledger, FAMILY)
        pending = state.settlement.pending
        system_of = {o.output_id: o.system_id for o in state.outputs.values()}
        strength = {s: rng.gauss(0, 1) for s in set(system_of.values())}
        shown, voted, retracted = (
            _Chain("presentations", PRESENTATION),
            _Chain("votes", VOTE),
            _Chain("retractions", RETRACTION),
        )
        sessions, earlier = [], []
        for i in range(n_votes):
            if i % SESSION_VOTES == 0:
                session = f"session{len(sessions):06d}"
                sessions.append((session, FAMILY, len(sessions) + 1, 0, "rater", _at(i)))
            repeat = earlier and rng.random() < 0.10
            if repeat:
                was = rng.choice(earlier)
                case, left, right = was["case_id"], was["right_output"], was["left_output"]
            else:
                pair = rng.choice(pending)
                case, left, right = pair.case_id, pair.output_a, pair.output_b
                if rng.random() < 0.5:
                    left, right = right, left
            presentation = {
                "presentation_id": f"p{i:08d}",
                "session_id": session,
                "family": FAMILY,
                "case_id": case,
                "left_output": left,
                "right_output": right,
                "shown_at": _at(i),
                "repeat_of": was["presentation_id"] if repeat else None,
            }
            shown.add(presentation)
            vote = {
                **presentation,
                "vote_id": f"v{i:08d}",
                "choice": _choice(rng, strength, system_of[left], system_of[right]),
                "voted_at": _at(i + 1),
                "active_ms": 4000,
                "actor": "rater",
                "repeat_of": was["vote_id"] if repeat else None,
                "comment": "",
                "identity_leak": 0,
            }
            voted.add(vote)
            if not repeat and vote["choice"] != "skip":
                earlier.append(vote)
        for vote in rng.sample(earlier, len(earlier) // 100):
            retracted.add(
                {
                    "retraction_id": "r" + vote["vote_id"],
                    "family": FAMILY,
                    "vote_id": vote["vote_id"],
                    "session_id": vote["session_id"],
                    "retracted_at": _at(n_votes + 1),
                }
            )
        with ledger.atomic():
            ledger.conn.executemany("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)", sessions)
            for rows in (shown, voted, retracted):
                rows.write(ledger.conn)
        _corrections(ledger, state, rng)


def _corrections(ledger: Ledger, state: family_state.FamilyState, rng: random.Random) -> None:
    outputs = list(state.in_force)
    failing = next(o for o in outputs if state.fails_gate(o.output_id))
    with ledger.atomic():
        events.add_event(ledger, FAMILY, "retire_case", case_id=outputs[0].case_id, note="bench")
        for output in rng.sample(outputs, 5):
            events.add_event(
                ledger, FAMILY, "remove_output", output_id=output.output_id, note="bench"
            )
        failed = next(
            r.gate for r in state.gate_results[OutputId(failing.output_id)] if not r.passed
        )
        events.add_event(
            ledger, FAMILY, "overrule", output_id=failing.output_id, gate=failed, note="bench"
        )


# The process floor's child: only sqlite3, numpy and fitting's fit are imported.
PROCESS_FLOOR = """
import sqlite3, sys
sys.path.insert(0, sys.argv[3])
import numpy as np
from fitting.points import fit_points

db = sqlite3.connect(sys.argv[1])
family = sys.argv[2]
for sql in {queries!r}:
    rows = db.execute(sql, {{"f": family}}).fetchall()
system = dict(db.execute("SELECT output_id, system_id FROM outputs WHERE family = ?", (family,)))
votes = db.execute(
    "SELECT left_output, right_output, choice FROM votes WHERE family = ? AND choice != 'skip'",
    (family,),
).fetchall()
codes = {{s: i for i, s in enumerate(sorted(set(system.values())))}}
a = np.fromiter((codes[system[v[0]]] for v in votes), np.intp, len(votes))
b = np.fromiter((codes[system[v[1]]] for v in votes), np.intp, len(votes))
y = np.fromiter(({{"left": 1.0, "right": 0.0}}.get(v[2], 0.5) for v in votes), float, len(votes))
fit_points(a, b, y, n_systems=len(codes))
"""
# The process floor, then the soundness check every close makes first (SPEC, Trust): what
# no sound close can do without, whatever its own work costs.
PROCESS_CHECKED = (
    PROCESS_FLOOR
    + """
from arena.ledger import Ledger, soundness
with Ledger.open(sys.argv[1], readonly=True) as ledger:
    assert not soundness.problems(ledger, family, soundness.ROUND)
"""
)


def _process_env(folder: Path) -> dict[str, str]:
    """The children's environment: bytecode cached (in ``folder``), as an installed Arena
    runs; without it every run compiles the Arena modules it loads again (a close: 133
    modules, 0.2 s of CPU here)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env


def _process_cpu(command: list[str], env: dict[str, str]) -> float:
    """The CPU seconds (user + system) of ``command`` run to its end as a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def process_figures(path: Path, folder: Path) -> dict:
    """The process floor, the floor with the soundness check and the process close on
    ``path``, best of ``REPEATS`` each."""
    env = _process_env(folder)
    floor_cmd, checked_cmd = (
        [sys.executable, "-c", child.format(queries=FLOOR_QUERIES), str(path), FAMILY, str(ROOT)]
        for child in (PROCESS_FLOOR, PROCESS_CHECKED)
    )
    trial = folder / "trial.sqlite"
    close_cmd = [sys.executable, "-m", "arena", "--ledger", str(trial), "round", "close"]
    close_cmd += ["--family", FAMILY]
    # Warm-up, untimed: the bytecode of everything both import is written once.
    _process_cpu([sys.executable, "-m", "arena", "--help"], env)
    _process_cpu(floor_cmd, env)
    _process_cpu(checked_cmd, env)
    floors, checked, closes = [], [], []
    for _ in range(REPEATS + 1):
        floors.append(_process_cpu(floor_cmd, env))
        checked.append(_process_cpu(checked_cmd, env))
        _copy_to_disk(path, trial)
        closes.append(_process_cpu(close_cmd, env))
    trial.unlink()
    # The first close wrote the bytecode of what it loads on use: left out.
    return {"floor": min(floors), "checked": min(checked), "close": min(closes[1:])}


def floor(path: Path, queries: tuple[str, ...] = FLOOR_QUERIES) -> float:
    start = time.perf_counter()
    db = sqlite3.connect(path)
    for sql in queries:
        db.execute(sql, {"f": FAMILY}).fetchall()
    db.close()
    return time.perf_counter() - start


def close(path: Path) -> float:
    from arena import fit
    from arena.rounds.closing import close_round
    from arena.rounds.model import RoundSettings

    # The numerics load on first use: load them here, as the floor's libraries are, so the
    # time is the close's work, not SciPy's import (about 1.3 s here).
    for name in ("fit_points", "rater_agreement", "split_half_tau", "length_bias"):
        getattr(fit, name)
    # So is sqlite-utils, which the ledger loads at its first write (`arena status` never does).
    import arena.ledger.database  # noqa: F401

    start = time.perf_counter()
    with Ledger.open(path) as ledger:
        close_round(ledger, FAMILY, RoundSettings())
    return time.perf_counter() - start


def _child(what: str, path: Path) -> dict:
    """Run ``what`` on ``path`` in a fresh interpreter; its time and its own peak memory."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.splitlines()[-1])


def _peak_bytes() -> int:
    """This process's own peak memory.

    On Linux ``ru_maxrss`` keeps the parent's peak across fork and exec (the
    parent here holds a million votes while building), so the peak of this
    process's memory map is read instead.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _run_child(what: str, path: Path) -> None:
    seconds = {
        "floor": floor,
        "narrow": lambda p: floor(p, NARROW_QUERIES),
        "close": close,
    }[what](path)
    print(json.dumps({"seconds": seconds, "peak_bytes": _peak_bytes()}))


def _copy_to_disk(source: Path, dest: Path) -> None:
    """``copy_ledger``, then written through to the disk: else the close's first fsync
    flushes the whole copy (a gigabyte at 1M votes) and the close is timed doing it."""
    copy_ledger(source, dest)
    for name in (dest, Path(str(dest) + ".heads.json")):
        if name.exists():
            with open(name, "rb+") as copy:
                os.fsync(copy.fileno())


def measure(base: Path, folder: Path, n_votes: int) -> dict:
    path = folder / f"votes-{n_votes}.sqlite"
    if not path.exists():
        started = time.perf_counter()
        copy_ledger(base, path)
        add_votes(path, n_votes)
        print(
            f"  built {n_votes:,} votes in {time.perf_counter() - started:.0f} s", file=sys.stderr
        )
    # A ledger kept from an older Arena is brought to the current schema first (opening it
    # for writing migrates it), else each close would be timed migrating its copy.
    Ledger.open(path).close()
    trial = folder / "trial.sqlite"
    floor_s = min(_child("floor", path)["seconds"] for _ in range(REPEATS))
    narrow_s = min(_child("narrow", path)["seconds"] for _ in range(REPEATS))
    closes, again = [], {}
    for _ in range(REPEATS):
        _copy_to_disk(path, trial)  # each first close on the ledger as built
        closes.append(_child("close", trial))
        again = _child("close", trial)
    trial.unlink()
    return {
        **{f"process_{k}": v for k, v in process_figures(path, folder).items()},
        "votes": n_votes,
        "floor": floor_s,
        "narrow": narrow_s,
        "close": min(c["seconds"] for c in closes),
        "peak_mb": max(c["peak_bytes"] for c in closes) / 2**20,
        "again": again["seconds"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="vote counts, comma separated"
    )
    parser.add_argument("--ledgers", type=Path, help="keep (and reuse) the built ledgers here")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _run_child(args.child[0], Path(args.child[1]))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.ledgers or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        base = large_family.base_ledger(folder, build_base, f"{SYSTEMS} systems × {CASES} cases")
        print(
            f"{'votes':>9} {'floor s':>8} {'close s':>8} {'ratio':>6} {'peak MB':>8} "
            f"{'again s':>8} {'ratio':>6} {'narrow s':>8} {'ratio':>6}"
        )
        results = []
        for n in sizes:
            r = measure(base, folder, n)
            results.append(r)
            print(
                f"{r['votes']:>9,} {r['floor']:>8.2f} {r['close']:>8.2f} "
                f"{r['close'] / r['floor']:>6.2f} {r['peak_mb']:>8.0f} {r['again']:>8.2f} "
                f"{r['again'] / r['floor']:>6.2f} {r['narrow']:>8.2f} "
                f"{r['close'] / r['narrow']:>6.2f}",
                flush=True,
            )
        print("\nwhole processes, CPU seconds (user + system)")
        print(
            f"{'votes':>9} {'floor':>8} {'close':>8} {'ratio':>6} {'beyond':>8} "
            f"{'floor+check':>12} {'ratio':>6}"
        )
        for r in results:
            floor_s, close_s = r["process_floor"], r["process_close"]
            checked_s = r["process_checked"]
            print(
                f"{r['votes']:>9,} {floor_s:>8.2f} {close_s:>8.2f} "
                f"{close_s / floor_s:>6.2f} {close_s - floor_s:>8.2f} "
                f"{checked_s:>12.2f} {checked_s / floor_s:>6.2f}"
            )


if __name__ == "__main__":
    main()
