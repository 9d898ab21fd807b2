"""Simulated power loss (powerloss.py): the app's mode loses no acknowledged vote.

For each workload the app's vote path runs under the logging VFS; crash points
are drawn across the whole log (plus extra ones inside checkpoints, where the
database file itself is written); each point gives five crash images (none,
a random subset, a prefix, all, and a torn write of the pending writes). Each
image is opened by the app (``Ledger.open``) and checked (``integrity.check``):
every vote acknowledged before the crash must be there, and nothing may be damaged.

The control run uses WAL with synchronous=NORMAL, which does not sync at commit:
it must lose acknowledged votes, or the simulator is not simulating anything.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("apsw", reason="the power-loss simulator needs apsw (pip install apsw)")

from arena.errors import ArenaError  # noqa: E402
from arena.ledger import Ledger  # noqa: E402
from arena.ledger.integrity import check  # noqa: E402

from .powerloss import MODES, crash_points, run_workload, write_image  # noqa: E402

FAMILY = "rel"


def _pick_points(events: list[tuple], n: int, rng: random.Random) -> list[int]:
    """Crash points: 3/4 anywhere in the log, 1/4 among writes to the database file
    (checkpoints, and the close that folds the WAL in)."""
    anywhere = [rng.randrange(len(events) + 1) for _ in range(n - n // 4)]
    in_db = [i for i, e in enumerate(events) if e[0] in ("w", "t", "s") and e[1] == "db"]
    inside = [rng.choice(in_db) + rng.randint(0, 1) for _ in range(n // 4)] if in_db else []
    return anywhere + inside


def _check_image(files: dict, acked: dict[str, list[str]], where: Path) -> tuple[int, str]:
    """(acknowledged votes and undos missing, problems or '') for one crash image."""
    for leftover in where.parent.glob(where.name + "*"):
        leftover.unlink()
    write_image(files, where)
    try:
        with Ledger.open(where) as ledger:
            problems = check(ledger)
            votes = {r[0] for r in ledger.db.execute("SELECT vote_id FROM votes")}
            retracted = {r[0] for r in ledger.db.execute("SELECT vote_id FROM retractions")}
    except ArenaError as exc:
        return 0, f"cannot be opened: {exc}"
    lost = sum(v not in votes for v in acked.get("vote", []))
    lost += sum(v not in retracted for v in acked.get("undo", []))
    return lost, "; ".join(problems)


def _simulate(
    tmp_path: Path,
    template: Path,
    *,
    synchronous: str,
    runs: int,
    votes: int,
    points: int,
    seed: int,
    figures,
) -> dict[str, int]:
    rng = random.Random(seed)
    damaged: list[str] = []
    for run in range(runs):
        log = run_workload(
            template,
            tmp_path / f"live{run}.sqlite",
            family=FAMILY,
            synchronous=synchronous,
            votes=votes,
            seed=rng.randrange(2**31),
        )
        figures["workload_votes_acknowledged"] += sum(
            e[0] == "ack" and e[1] == "vote" for e in log.events
        )
        figures["checkpoint_writes_logged"] += sum(e[0] == "w" and e[1] == "db" for e in log.events)
        for point in crash_points(log, _pick_points(log.events, points, rng), rng):
            figures["crash_points"] += 1
            lost_here = False
            for mode in MODES:
                lost, problem = _check_image(
                    point.images[mode], point.acked, tmp_path / "image" / "ledger.sqlite"
                )
                figures["crash_images"] += 1
                figures[f"acknowledged_lost_{mode}"] += lost
                figures["acknowledged_lost"] += lost
                figures["crash_images_losing_votes"] += lost > 0
                lost_here |= lost > 0
                if problem:
                    # The head file saying the newest rows are gone is `arena check`
                    # noticing a loss; anything else is damage.
                    flagged = all("newest rows are gone" in p for p in problem.split("; "))
                    figures[
                        "crash_images_loss_flagged_by_check" if flagged else "crash_images_damaged"
                    ] += 1
                    damaged.append(f"point {point.index} ({mode}): {problem}")
                elif lost:
                    figures["crash_images_loss_not_flagged"] += 1
            figures["crash_points_losing_votes"] += lost_here
    return damaged


@pytest.fixture
def image_dir(tmp_path: Path) -> Path:
    (tmp_path / "image").mkdir()
    return tmp_path


def test_power_loss_in_wal_full_loses_no_acknowledged_vote(image_dir, template_ledger, figures):
    damaged = _simulate(
        image_dir,
        template_ledger,
        synchronous="FULL",
        runs=1,
        votes=200,
        points=16,
        seed=8,
        figures=figures,
    )
    assert figures["crash_images"] >= 80
    assert figures["acknowledged_lost"] == 0
    assert not damaged, damaged[:5]


def test_power_loss_control_wal_normal_loses_votes(image_dir, template_ledger, figures):
    """The control: WAL + synchronous=NORMAL must lose acknowledged votes here."""
    damaged = _simulate(
        image_dir,
        template_ledger,
        synchronous="NORMAL",
        runs=1,
        votes=60,
        points=8,
        seed=9,
        figures=figures,
    )
    assert figures["acknowledged_lost_none"] > 0, "the simulator lost nothing: it is broken"
    assert figures["crash_images_damaged"] == 0, damaged[:5]  # consistent, not durable


@pytest.mark.slow
def test_power_loss_in_wal_full_full_run(image_dir, template_ledger, figures):
    damaged = _simulate(
        image_dir,
        template_ledger,
        synchronous="FULL",
        runs=6,
        votes=250,
        points=20,
        seed=2026,
        figures=figures,
    )
    assert figures["crash_images"] >= 300
    assert figures["acknowledged_lost"] == 0
    assert not damaged, damaged[:5]


@pytest.mark.slow
def test_power_loss_control_full_run(image_dir, template_ledger, figures):
    damaged = _simulate(
        image_dir,
        template_ledger,
        synchronous="NORMAL",
        runs=2,
        votes=250,
        points=16,
        seed=2027,
        figures=figures,
    )
    assert figures["acknowledged_lost_none"] > 0
    assert figures["crash_images_damaged"] == 0, damaged[:5]
