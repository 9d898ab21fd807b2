"""Opening a big ledger: `arena status`, and the window to its first pair painted.

    python benchmarks/open_bench.py                    # builds the ledger once, then measures
    python benchmarks/open_bench.py --repeats 9 --only status,window
    python benchmarks/open_bench.py --keep /tmp/ob     # keep the ledger there (and reuse it)
    python benchmarks/open_bench.py --profile window   # cProfile one run of a child
    python benchmarks/open_bench.py --sizes            # the first pair at each family size

The ledger (built once and kept, by default in the temporary folder) holds five
families of 20 systems × 1,000 cases (100,000 outputs, imported through the real
import with its gates) and 20,000 past votes on each (100,000 votes, written
through ``arena.ledger.voting`` by ``large_family.add_past_votes``: presentations,
votes, repeats and skips), plus a few corrections on each family (a retired case,
removed outputs). Then, each in a fresh child process, ``--repeats`` times after a
warm-up, the median wall (and CPU) time from starting the child to its end:

- ``python -c pass``: a bare Python start;
- ``arena --ledger L status``: the table of every family (target ≤ 0.5 s), with the
  rows kept from the run before (``<ledger>.status.json``; the ledger unchanged);
- the same with no rows kept (the file removed before each run): every family counted
  (the same target);
- the same after one vote in one family (on a fresh copy with its rows kept, a vote
  recorded through ``RatingSession`` before each run): that family counted, the others
  kept;
- an empty ``QMainWindow`` shown and painted offscreen: a bare Qt window;
- ``arena --ledger L vote --family F`` offscreen, until the first pair is painted
  (the window then exits): the window on the family with the most votes, on a
  fresh copy of the ledger each time (target ≤ 1.5 s). The child runs the real
  ``ui_app.run``; only its event loop is replaced, by one that ends at that paint;
- the same without ``--family`` (as ``arena-gui`` opens a ledger): until the
  family list shows its counts.

With ``--sizes``, a second ledger (built once and kept beside the first) holds a 20 ×
1,000 family at 0, 10,000 and 100,000 past votes and a family of 100,000 outputs (20 ×
5,000) with none; the window is opened on each until its first pair is painted (targets:
≤ 2× the empty window at every size, and 100k votes / 0 votes ≤ 1.1), beside the empty
window shown after loading only the libraries the first pair needs (numpy, markdown-it,
Pygments): the least a first pair costs before Arena reads anything.

Each child runs with its own empty settings folder (no remembered geometry), and
with its bytecode compiled once beforehand, as an installed Arena has it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FAMILIES = 5
SYSTEMS, CASES = 20, 1_000
VOTES_PER_FAMILY = 20_000
LEDGER = "open-bench.sqlite"
# Bump when the built ledger changes, so a kept one is built again.
VERSION = "1"
# --sizes: each family's (systems, cases, past votes), in a ledger of their own.
SIZES = {
    "votes0": (SYSTEMS, CASES, 0),
    "votes10k": (SYSTEMS, CASES, 10_000),
    "votes100k": (SYSTEMS, CASES, 100_000),
    "outputs100k": (SYSTEMS, 5 * CASES, 0),
}
SIZES_LEDGER = "open-bench-sizes.sqlite"

BARE_PYTHON = "pass"
# What every window child starts with: ``finish`` ends it at once (no teardown), writing
# its profile first when the bench asks for one.
PRELUDE = """
import os, sys
if os.environ.get("OPEN_BENCH_PROFILE"):
    import cProfile
    _profile = cProfile.Profile()
    _profile.enable()

def finish(code=0):
    if os.environ.get("OPEN_BENCH_PROFILE"):
        _profile.disable()
        _profile.dump_stats(os.environ["OPEN_BENCH_PROFILE"])
    sys.stdout.flush()
    os._exit(code)
"""
EMPTY_WINDOW = (
    PRELUDE
    + """
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(["bench"])
window = QMainWindow()
window.resize(1280, 800)
window.show()
app.processEvents()
window.repaint()
finish()
"""
)
# The empty window after loading the libraries the first pair needs beside Qt (the
# scheduler's numpy, the Markdown renderer and the highlighter), and no Arena: a bound
# on the first pair that no arrangement of Arena's own modules or reads can go under.
LIBRARIES_WINDOW = (
    PRELUDE
    + """
import numpy, sqlite3
from markdown_it import MarkdownIt
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
"""
    + EMPTY_WINDOW[len(PRELUDE) :]
)
# `arena vote` / `arena-gui` through the CLI's main and the real ``ui_app.run``, with the
# window's event loop replaced by one that ends once the first pair (or the family list)
# is painted.
WINDOW = (
    PRELUDE
    + """
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from arena.cli import main as cli
from arena.ui import app as ui_app
from arena.ui.main_window import MainWindow

looping = QApplication.exec

def until_ready(*_):
    app = QApplication.instance()
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))

    def ready():
        if window.rating.session is None:  # the list with its counts
            return any("votes" in row for row in window.families.model.rows)
        return window.rating.current_pair() is not None

    def check():
        if window.ops.last_error:
            print(window.ops.last_error, file=sys.stderr)
            finish(1)
        if ready():
            window.repaint()  # synchronous: the pair (or the list) is on screen
            finish()

    timer = QTimer()
    timer.timeout.connect(check)
    timer.start(1)
    return looping()

QApplication.exec = until_ready
argv = sys.argv[1:]
if "--family" not in argv:
    sys.exit(ui_app.run(["arena"], ledger_path=Path(argv[1])))
sys.exit(cli.main(argv))
"""
)


def build(path: Path) -> None:
    from arena.ledger import Ledger, catalog, events
    from benchmarks import large_family

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, Ledger.open(path) as ledger:
        for n in range(FAMILIES):
            family = f"family{n}"
            large_family.build(Path(folder), ledger, family, SYSTEMS, CASES)
            large_family.add_past_votes(ledger, family, VOTES_PER_FAMILY, seed=n)
            # A few corrections, as a family in use has them.
            with ledger.atomic():
                events.add_event(ledger, family, "retire_case", case_id="case0999", note="bench")
                for o in catalog.outputs(ledger, family)[:3]:
                    events.add_event(ledger, family, "remove_output", output_id=o.output_id)
            print(f"{family}: built ({time.perf_counter() - started:.0f} s)", flush=True)
    path.with_suffix(".version").write_text(VERSION)


def build_sizes(path: Path) -> None:
    from arena.ledger import Ledger
    from benchmarks import large_family

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, Ledger.open(path) as ledger:
        for family, (systems, cases, votes) in SIZES.items():
            large_family.build(Path(folder), ledger, family, systems, cases)
            if votes:
                large_family.add_past_votes(ledger, family, votes, seed=1)
            print(f"{family}: built ({time.perf_counter() - started:.0f} s)", flush=True)
    path.with_suffix(".version").write_text(VERSION)


def measure_sizes(folder: Path, repeats: int, rebuild: bool) -> None:
    """The window on each family of ``SIZES`` until its first pair is painted, against
    the empty window, in one rotation."""

    built = kept(folder / SIZES_LEDGER, build_sizes, rebuild)
    upgraded, work = folder / "sizes-upgraded.sqlite", folder / "sizes-work.sqlite"
    upgraded_copy(built, upgraded)
    py = sys.executable
    children = {
        "empty": Child([py, "-c", EMPTY_WINDOW]),
        "libraries": Child([py, "-c", LIBRARIES_WINDOW]),
    } | {
        family: Child(
            [py, "-c", WINDOW, "--ledger", str(work), "vote", "--family", family],
            lambda: fresh_copy(upgraded, work),
        )
        for family in SIZES
    }
    with tempfile.TemporaryDirectory() as scratch:
        env = _env(Path(scratch))
        for child in children.values():
            timed(child, env)  # warms the file cache and compiles the bytecode
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in children}
        for _ in range(repeats):  # a rotation: load falls alike on each
            for name, child in children.items():
                runs[name].append(timed(child, env))
    got = {
        name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
        for name, r in runs.items()
    }
    empty = got["empty"][0]
    print(f"medians of {repeats} rotations, each run in a fresh process (wall, CPU):")
    print(f"  {'empty QMainWindow':<38} {empty:6.3f} s  (CPU {got['empty'][1]:5.3f} s)")
    wall, cpu = got["libraries"]
    print(
        f"  {'empty window + the libraries alone':<38} {wall:6.3f} s  (CPU {cpu:5.3f} s)   "
        f"×{wall / empty:4.1f} empty window (CPU ×{cpu / got['empty'][1]:4.1f})"
    )
    for family, (systems, cases, votes) in SIZES.items():
        wall, cpu = got[family]
        label = f"first pair, {systems} × {cases:,}, {votes:,} votes"
        verdict = "met" if wall <= 2 * empty else "NOT met"
        print(
            f"  {label:<38} {wall:6.3f} s  (CPU {cpu:5.3f} s)   ×{wall / empty:4.1f} empty "
            f"window (CPU ×{cpu / got['empty'][1]:4.1f})   target ≤ 2×: {verdict}"
        )
    ratio = got["votes100k"][0] / got["votes0"][0]
    cpu_ratio = got["votes100k"][1] / got["votes0"][1]
    verdict = "met" if ratio <= 1.1 else "NOT met"
    print(f"  100k votes / 0 votes: ×{ratio:.2f} (CPU ×{cpu_ratio:.2f})   target ≤ 1.1: {verdict}")


def _env(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        # Settings of its own (no remembered geometry, no recent ledgers).
        XDG_CONFIG_HOME=str(scratch),
        HOME=str(scratch),
        PYTHONPATH=str(ROOT),
        # Compiled once and then read, as an installed Arena is (outside the checkout).
        PYTHONPYCACHEPREFIX=str(scratch / "pycache"),
    )
    return env


@dataclass
class Child:
    """One kind of child process, and how to make it fresh before each run."""

    argv: list[str]
    before: Callable[[], None] = lambda: None


def timed(child: Child, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``child``."""
    child.before()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(child.argv, env=env, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - started
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{child.argv} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    cpu = now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime
    return took, cpu


def medians(child: Child, env: dict[str, str], repeats: int) -> tuple[float, float]:
    timed(child, env)  # warms the file cache and compiles the bytecode
    runs = [timed(child, env) for _ in range(repeats)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def profile(child: Child, env: dict[str, str], out: Path) -> None:
    """Run ``child`` with cProfile on and print its heaviest calls."""
    argv = child.argv
    if argv[1] != "-c":  # a command (a script): under cProfile from the start
        argv = [sys.executable, "-m", "cProfile", "-o", str(out), *argv]
    timed(child, env)  # compiles the bytecode, which would otherwise dominate the profile
    child.before()
    subprocess.run(argv, env={**env, "OPEN_BENCH_PROFILE": str(out)}, cwd=ROOT, check=True)
    import pstats

    stats = pstats.Stats(str(out))
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(25)


def fresh_copy(built: Path, work: Path) -> None:
    """``work``: a copy of the built ledger (with its -wal and head files, if any), on disk:
    else the window's first commit (synchronous=FULL) would wait for the whole copy. The
    status rows kept beside the old copy go: each copy counts them once itself."""
    for suffix in ("", "-wal", "-shm", ".heads.json", ".lock", ".status.json"):
        Path(str(work) + suffix).unlink(missing_ok=True)
        if suffix in ("", "-wal", ".heads.json") and Path(str(built) + suffix).exists():
            shutil.copyfile(str(built) + suffix, str(work) + suffix)
            with open(str(work) + suffix, "rb+") as copied:
                os.fsync(copied.fileno())


def kept(built: Path, build_it: Callable[[Path], None], rebuild: bool) -> Path:
    """``built``, built again when asked, missing or made for another ``VERSION``."""
    stamp = built.with_suffix(".version")
    if rebuild or not stamp.exists() or stamp.read_text() != VERSION:
        for leftover in built.parent.glob(built.name + "*"):
            leftover.unlink()
        build_it(built)
    return built


def upgraded_copy(built: Path, upgraded: Path) -> None:
    """The copy the children work on, brought to the current schema once (opening it for
    writing migrates it)."""
    from arena.ledger import Ledger

    fresh_copy(built, upgraded)
    Ledger.open(upgraded).close()


def voted_copy(built: Path, work: Path, family: str) -> None:
    """``work``: a fresh copy of ``built`` with its status rows kept, then one vote in
    ``family`` recorded as the window records it (a pair shown, then the vote)."""
    from arena.ledger import Ledger
    from arena.rating.session import RatingSession
    from arena.rating.status import family_status

    fresh_copy(built, work)
    with Ledger.open(work) as ledger:
        family_status(ledger)  # the rows kept, as the copy stands
        RatingSession(ledger, family, seed=0).vote("left")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="the folder to keep the built ledger in")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each (median)")
    parser.add_argument("--rebuild", action="store_true", help="build the ledger again")
    parser.add_argument(
        "--profile",
        choices=("status", "first", "after-vote", "window", "list"),
        help="cProfile one run of that child instead of measuring",
    )
    parser.add_argument(
        "--only",
        help="measure only these children (comma-separated: status,first,after-vote,window,list)",
    )
    parser.add_argument(
        "--sizes",
        action="store_true",
        help="the window's first pair on families of each size instead (its own ledger)",
    )
    args = parser.parse_args()
    from arena.rating import status_cache

    folder = args.keep or Path(tempfile.gettempdir()) / "arena-open-bench"
    folder.mkdir(parents=True, exist_ok=True)
    if args.sizes:
        measure_sizes(folder, args.repeats, args.rebuild)
        return
    built = kept(folder / LEDGER, build, args.rebuild)
    # The window gets a fresh copy before each run, since it records a session and the
    # pair it shows.
    upgraded, work = folder / "upgraded.sqlite", folder / "work.sqlite"
    upgraded_copy(built, upgraded)
    with closing(sqlite3.connect(upgraded)) as db:
        votes = dict(db.execute("SELECT family, COUNT(*) FROM votes GROUP BY family"))
        (outputs,) = db.execute("SELECT COUNT(*) FROM outputs").fetchone()
    family = max(votes, key=lambda k: votes[k])
    print(f"ledger: {built} ({outputs:,} outputs, {sum(votes.values()):,} votes)", flush=True)

    py, arena = sys.executable, str(Path(sys.executable).with_name("arena"))
    children = {
        "bare": Child([py, "-c", BARE_PYTHON]),
        "status": Child([arena, "--ledger", str(upgraded), "status"]),
        "first": Child(
            [arena, "--ledger", str(upgraded), "status"],
            lambda: status_cache.path_for(str(upgraded)).unlink(missing_ok=True),
        ),
        "after-vote": Child(
            [arena, "--ledger", str(work), "status"], lambda: voted_copy(upgraded, work, family)
        ),
        "empty": Child([py, "-c", EMPTY_WINDOW]),
        "window": Child(
            [py, "-c", WINDOW, "--ledger", str(work), "vote", "--family", family],
            lambda: fresh_copy(upgraded, work),
        ),
        "list": Child(
            [py, "-c", WINDOW, "--ledger", str(work)], lambda: fresh_copy(upgraded, work)
        ),
    }
    with tempfile.TemporaryDirectory() as scratch:
        env = _env(Path(scratch))
        if args.profile:
            profile(children[args.profile], env, Path(scratch) / "profile.out")
            return
        wanted = {"bare", "empty", *(args.only or "status,first,after-vote,window,list").split(",")}
        got = {
            name: medians(child, env, args.repeats)
            for name, child in children.items()
            if name in wanted
        }
    bare, empty = got["bare"][0], got["empty"][0]
    print(f"medians of {args.repeats} runs, each in a fresh process (wall, CPU):")
    rows = (
        ("python -c pass", "bare", None, None),
        ("arena status", "status", bare, 0.5),
        ("arena status, nothing kept", "first", bare, 0.5),
        ("arena status after a vote", "after-vote", bare, 0.5),
        ("empty QMainWindow", "empty", None, None),
        (f"window, first pair ({family})", "window", empty, 1.5),
        ("window, family list", "list", empty, None),
    )
    for label, name, base, target in rows:
        if name not in got:
            continue
        wall, cpu = got[name]
        line = f"  {label:<30} {wall:6.3f} s  (CPU {cpu:5.3f} s)"
        if base is not None:
            what = "bare python" if base is bare else "empty window"
            line += f"   ×{wall / base:5.1f} {what}"
        if target is not None:
            line += f"   target ≤ {target} s: {'met' if wall <= target else 'NOT met'}"
        print(line)


if __name__ == "__main__":
    main()
