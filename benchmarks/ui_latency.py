"""Latency from a vote key to the next pair painted, durable commit included.

    python benchmarks/ui_latency.py                 # prose, diffs, then the large families
    python benchmarks/ui_latency.py --no-prefetch   # the same without rendering ahead
    python benchmarks/ui_latency.py --votes 50 --split --large ""
    python benchmarks/ui_latency.py --votes 0 --large 0,100000

Builds a temporary file ledger with a prose family (outputs of 200 to 20,000
characters of Markdown with code and tables, lengths log-uniform) and a diff
family (2,000-line diffs), opens the real window offscreen, and presses vote keys.
Then large families, 20 systems × 1,000 cases (190,000 pending pairs) each, with
0, 10,000 and 100,000 past votes (``--large``): the same keys on each, and the
ratio of the largest to the smallest, since a key must not cost more as votes
pile up.
Each measurement runs from the key press to the end of a synchronous repaint of
the pair, so it includes the vote's commit (synchronous=FULL), the scheduler, the
presentation's commit, rendering and painting. Between votes the event loop runs
until the idle-time rendering of the likely next pair is done, as it would while
the rater reads. Target: p95 <= 50 ms.

Beside each key, the floor: what no key can do without, one durable commit (one row
of a vote's size into a scratch ledger-like file beside it: WAL, synchronous=FULL)
and the pair on screen shown again from the render cache and repainted; measured
right after each key, so the machine's pace falls on both alike. Target at 100,000
past votes: key p50 <= 1.3 x the floor's p50. Beside it, the key's own writes alone
(``KeyWrites``: the vote and the next presentation through ``arena.ledger`` into a small
ledger of their own, then the same repaint): what a key costs before any choice is made.
Head-file writes are counted and timed wherever they happen (in the key, or after the
paint while the rater reads).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from arena.intake.outputs import FamilySettings, import_file  # noqa: E402
from arena.ledger import Ledger, heads  # noqa: E402
from benchmarks import large_family  # noqa: E402
from tests.conftest import native_line  # noqa: E402

SYSTEMS = ("alpha", "beta", "gamma", "delta", "epsilon")
# Each large family is measured in this many turns, alternating with the others.
TURNS = 2
KEYS = (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4)
WORDS = large_family.WORDS


def _markdown(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        roll = rng.random()
        if roll < 0.15:
            body = "\n".join(
                f"    total_{i} = compute(items[{i}], factor={i})  # step {i}"
                for i in range(rng.randint(3, 15))
            )
            parts.append(f"```python\ndef step():\n{body}\n    return total_0\n```\n")
        elif roll < 0.22:
            rows = "\n".join(
                f"| {rng.choice(WORDS)} | {i} | {rng.random():.3f} |"
                for i in range(rng.randint(2, 8))
            )
            parts.append(f"| name | n | score |\n|---|---|---|\n{rows}\n")
        else:
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 80)))
            parts.append(f"{words.capitalize()} with `code` and **bold** text.\n")
    return "\n".join(parts)[:size]


def _diff(rng: random.Random, lines: int, name: str) -> str:
    body = []
    for i in range(lines - 3):
        sign = rng.choice("+- ")
        body.append(f"{sign}    value_{i} = transform(record.field_{i}, {rng.randint(0, 99)})")
    old = sum(1 for b in body if b[0] != "+") + 1
    new = sum(1 for b in body if b[0] != "-") + 1
    return (
        f"diff --git a/src/{name}.py b/src/{name}.py\n--- a/src/{name}.py\n"
        f"+++ b/src/{name}.py\n@@ -1,{old} +1,{new} @@ def main():\n def main():\n"
        + "\n".join(body)
        + "\n"
    )


def build(path: Path, cases: int, diff_lines: int) -> None:
    rng = random.Random(7)
    prose, diffs = [], []
    for c in range(cases):
        prose_prompt, diff_prompt = _markdown(rng, 600), _markdown(rng, 800)
        for s in SYSTEMS:
            size = int(math.exp(rng.uniform(math.log(200), math.log(20_000))))
            prose.append(native_line(f"p{c}", s, _markdown(rng, size), prompt=prose_prompt))
            diffs.append(
                native_line(
                    f"d{c}",
                    s,
                    _diff(rng, diff_lines, f"mod{c}_{s}"),
                    is_diff=True,
                    prompt=diff_prompt,
                )
            )
    folder = path.parent
    (folder / "prose.jsonl").write_text("\n".join(prose) + "\n", encoding="utf-8")
    (folder / "diffs.jsonl").write_text("\n".join(diffs) + "\n", encoding="utf-8")
    with Ledger.open(path) as ledger:
        import_file(ledger, folder / "prose.jsonl", family="prose", fmt="native")
        import_file(
            ledger,
            folder / "diffs.jsonl",
            family="diffs",
            fmt="native",
            settings=FamilySettings(max_chars=10_000_000),
        )


class Floor:
    """One durable commit of a vote-sized row into a scratch file, then the pair on screen
    shown again from the render cache and repainted: the least a key can cost."""

    def __init__(self, folder: Path) -> None:
        self.conn = sqlite3.connect(str(folder / "floor.sqlite"), isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT)")
        self.body = "x" * 600  # about a vote row with its hashes
        self.timings: dict[str, list[float]] = {}

    def once(self, window, family: str) -> None:
        view = window.rating.pair_view
        start = time.perf_counter()
        self.conn.execute("BEGIN")
        self.conn.execute("INSERT INTO rows (body) VALUES (?)", [self.body])
        self.conn.execute("COMMIT")
        view.show_pair(view.pair)
        view.repaint()
        self.timings.setdefault(family, []).append((time.perf_counter() - start) * 1000)


class KeyWrites:
    """The key's own writes alone: the vote on the pair shown and the next pair's
    presentation with its draw, in one ``atomic`` through ``arena.ledger`` (chains,
    tallies' triggers, seal; the head file after the paint, as the window writes it),
    into a small ledger of its own; then the pair on
    screen shown again from the render cache and repainted, as the floor does. What a key
    costs with no choice to make and no session around it: a bound under the key."""

    def __init__(self, folder: Path) -> None:
        from arena import family_state
        from arena.ledger import voting

        self.ledger = Ledger.open(folder / "writes.sqlite")
        source = folder / "writes.jsonl"
        lines = [native_line(f"w{c}", s, f"Answer {c} of {s}.") for c in range(20) for s in SYSTEMS]
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        import_file(self.ledger, source, family="writes", fmt="native")
        state = family_state.load(self.ledger, "writes")
        self.pairs = [(p.case_id, p.output_a, p.output_b) for p in state.settlement.pending]
        self.session = voting.start_session(self.ledger, "writes", seed=1)
        self.turn = 0
        with self.ledger.atomic():
            self.shown = self._present()
        self.timings: dict[str, list[float]] = {}

    def _present(self):
        from arena.clock import now_iso
        from arena.ledger import draws, voting
        from arena.records import Presentation, PresentationId

        case, left, right = self.pairs[self.turn % len(self.pairs)]
        self.turn += 1
        shown = Presentation(
            PresentationId(voting.new_id()),
            self.session.session_id,
            "writes",
            case,
            left,
            right,
            now_iso(),
            None,
        )
        voting.record_presentation(self.ledger, shown)
        draws.add_draw(self.ledger, "writes", shown.presentation_id, 0.5, 2, False)
        return shown

    def once(self, window, family: str) -> None:
        from arena.clock import now_iso
        from arena.ledger import voting
        from arena.records import Vote, VoteId

        view = window.rating.pair_view
        p = self.shown
        start = time.perf_counter()
        vote = Vote(
            VoteId(voting.new_id()),
            p.presentation_id,
            p.session_id,
            "writes",
            p.case_id,
            p.left_output,
            p.right_output,
            "left",
            p.shown_at,
            now_iso(),
            4000,
            "rater",
            None,
            "",
            False,
        )
        # As the window does: the head file follows once the pair is painted.
        with self.ledger.heads_held(), self.ledger.atomic():
            voting.record_vote(self.ledger, vote)
            self.shown = self._present()
        view.show_pair(view.pair)
        view.repaint()
        self.timings.setdefault(family, []).append((time.perf_counter() - start) * 1000)
        written = len(HEADS.timings)
        self.ledger.write_heads()
        del HEADS.timings[written:]  # its own ledger's head file: not a key's


class HeadWrites:
    """Every head-file write, counted and timed (``heads.write``), wherever it happens."""

    def __init__(self) -> None:
        self.timings: list[float] = []
        self._write = heads.write

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return self._write(*args, **kwargs)
            finally:
                self.timings.append((time.perf_counter() - start) * 1000)

        heads.write = timed


FLOOR: Floor | None = None
WRITES: KeyWrites | None = None
HEADS = HeadWrites()


def measure(window, app, family: str, votes: int, *, say_open: bool = False) -> list[float]:
    started = time.perf_counter()
    assert window.open_family(family), window.ops.last_error
    if say_open:
        print(f"{family}: session opened in {time.perf_counter() - started:.1f} s", flush=True)
    window.show()
    window.activateWindow()
    view = window.rating.pair_view
    timings = []
    for i in range(votes):
        # The rater reads: idle work (progress, rendering ahead) finishes meanwhile.
        app.processEvents()
        while window.cache.busy():
            app.processEvents()
        if window.rating.current_pair() is None:
            break
        start = time.perf_counter()
        QTest.keyClick(window, KEYS[i % 4])
        view.repaint()
        timings.append((time.perf_counter() - start) * 1000)
        if window.ops.last_error:
            raise SystemExit(window.ops.last_error)
        if FLOOR is not None:
            app.processEvents()
            while window.cache.busy():
                app.processEvents()
            if window.rating.current_pair() is not None:
                FLOOR.once(window, family)
                if WRITES is not None:
                    WRITES.once(window, family)
    window.escape()
    return timings


def report(name: str, timings: list[float]) -> tuple[float, float]:
    """Print and return (p50, p95)."""
    ordered = sorted(timings)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    print(
        f"{name:>20}: {len(timings)} votes  p50 {p50:6.1f} ms  "
        f"p95 {p95:6.1f} ms  max {ordered[-1]:6.1f} ms",
        flush=True,
    )
    return p50, p95


def measure_large(window, app, folder: Path, sizes: list[int], votes: int) -> None:
    """One large family per number of past votes, measured in alternating turns so that
    whatever else the machine does falls on every size alike."""
    ledger = window.ledger
    families = {size: f"large-{size}" for size in sizes}
    for size, family in families.items():
        started = time.perf_counter()
        large_family.build(folder, ledger, family)
        large_family.add_past_votes(ledger, family, size)
        print(
            f"{family}: imported, {size} past votes written in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
    timings: dict[int, list[float]] = {size: [] for size in sizes}
    writes_before, keys = len(HEADS.timings), 0
    for turn in range(TURNS):
        for size, family in families.items():
            timings[size] += measure(window, app, family, votes // TURNS, say_open=turn == 0)
    keys = sum(len(t) for t in timings.values())
    figures = [report(f"large, {size} past", timings[size]) for size in sizes]
    if FLOOR is not None:
        for size, family in families.items():
            p50, _ = report(f"floor, {size} past", FLOOR.timings.get(family, []))
            key_p50 = statistics.median(timings[size])
            print(f"{f'key/floor, {size}':>20}: p50 ×{key_p50 / p50:.2f}  (target <= 1.3)")
            if WRITES is not None:
                writes_p50, _ = report(f"key writes, {size}", WRITES.timings.get(family, []))
                print(f"{f'writes/floor, {size}':>20}: p50 ×{writes_p50 / p50:.2f}")
    written = HEADS.timings[writes_before:]
    if written:
        print(
            f"{'head-file writes':>20}: {len(written)} for {keys} keys  "
            f"p50 {statistics.median(written):.1f} ms each (in the key or after its paint)"
        )
    if len(figures) > 1:
        (p50_low, p95_low), (p50_high, p95_high) = figures[0], figures[-1]
        print(
            f"{f'large {sizes[-1]}/{sizes[0]}':>20}: "
            f"p50 ×{p50_high / p50_low:.2f}  p95 ×{p95_high / p95_low:.2f}  "
            "(targets: p95 <= 50 ms at every size, ratio <= 1.2)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--votes", type=int, default=200)
    parser.add_argument("--diff-lines", type=int, default=2000)
    parser.add_argument("--no-prefetch", action="store_true", help="render only on demand")
    parser.add_argument("--split", action="store_true", help="diffs side by side")
    parser.add_argument(
        "--large",
        default="0,10000,100000",
        help="past votes of each large family, comma-separated; empty: no large family",
    )
    parser.add_argument("--large-votes", type=int, default=400, help="votes on each")
    parser.add_argument("--no-floor", action="store_true", help="keys alone, no floor beside")
    args = parser.parse_args()
    sizes = [int(n) for n in args.large.split(",") if n.strip()]

    from arena.ui.app import application
    from arena.ui.main_window import MainWindow
    from arena.ui.settings import Settings

    app = application(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        ledger = Path(folder) / "bench.sqlite"
        started = time.perf_counter()
        # Enough cases that 200 votes never run out of pairs (10 pairs per case).
        build(ledger, cases=max(1, math.ceil(args.votes / 10)), diff_lines=args.diff_lines)
        print(f"ledger built in {time.perf_counter() - started:.1f} s")
        settings = Settings(QSettings(str(Path(folder) / "Arena.ini"), QSettings.Format.IniFormat))
        settings.diff_split = args.split
        window = MainWindow(settings)
        window.resize(1280, 800)
        if args.no_prefetch:
            window.cache.prefetch = lambda *a, **k: None
        assert window.open_ledger(ledger)
        if not args.no_floor:
            global FLOOR, WRITES
            FLOOR = Floor(Path(folder))
            WRITES = KeyWrites(Path(folder))
        for family in ("prose", "diffs") if args.votes else ():
            key_p50, _ = report(family, measure(window, app, family, args.votes))
            if FLOOR is not None:
                p50, _ = report(f"floor, {family}", FLOOR.timings.get(family, []))
                print(f"{f'key/floor, {family}':>20}: p50 ×{key_p50 / p50:.2f}")
        if sizes:
            measure_large(window, app, Path(folder), sizes, args.large_votes)
        window.close()


if __name__ == "__main__":
    main()
