"""Judges' verdicts (migration 0022), and the rater's votes read as the same kind of row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.ledger.connection import Ledger

# The rater's choices read as a verdict: `both_bad` prefers neither side.
_RATER_WINNER = {"left": "left", "right": "right", "tie": "tie", "both_bad": "tie"}


@dataclass(frozen=True)
class JudgeVerdict:
    """One verdict on a pair of systems on one case, as it was shown (left, right)."""

    judge: str
    case_id: str
    left_system: str
    right_system: str
    winner: str  # left, right or tie
    game: int


@dataclass(frozen=True)
class JudgeSummary:
    judge: str
    kind: str
    verdicts: int
    sources: tuple[str, ...]  # sha256 of each file imported


def judge_kind(ledger: Ledger, family: str, judge: str) -> str | None:
    row = ledger.conn.execute(
        "SELECT kind FROM judge_verdicts WHERE family = ? AND judge = ? LIMIT 1", [family, judge]
    ).fetchone()
    return None if row is None else str(row[0])


def source_imported(ledger: Ledger, family: str, judge: str, sha256: str) -> bool:
    row = ledger.conn.execute(
        "SELECT 1 FROM judge_verdicts WHERE family = ? AND judge = ? AND source_sha256 = ? LIMIT 1",
        [family, judge, sha256],
    ).fetchone()
    return row is not None


def add_verdicts(ledger: Ledger, rows: Sequence[dict]) -> None:
    """Append ``rows`` (every column but ``seq``); call inside ``ledger.atomic()``."""
    if not rows:
        return
    names = list(rows[0])
    ledger.conn.executemany(
        f"INSERT INTO judge_verdicts ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
        [[row[n] for n in names] for row in rows],
    )


def judges(ledger: Ledger, family: str) -> list[JudgeSummary]:
    """The family's judges in the order first imported."""
    rows = ledger.conn.execute(
        "SELECT judge, kind, COUNT(*), GROUP_CONCAT(DISTINCT source_sha256), MIN(seq) AS first "
        "FROM judge_verdicts WHERE family = ? GROUP BY judge ORDER BY first",
        [family],
    )
    return [
        JudgeSummary(judge, kind, count, tuple(sorted(sources.split(","))))
        for judge, kind, count, sources, _ in rows
    ]


def verdicts(ledger: Ledger, family: str) -> list[JudgeVerdict]:
    rows = ledger.conn.execute(
        "SELECT judge, case_id, left_system, right_system, winner, game FROM judge_verdicts "
        "WHERE family = ? ORDER BY seq",
        [family],
    )
    return [JudgeVerdict(*row) for row in rows]


def rater_verdicts(ledger: Ledger, family: str, judge: str = "rater") -> list[JudgeVerdict]:
    """The rater's votes in force (no skips, no settled pairs) as verdicts on systems."""
    rows = ledger.conn.execute(
        "SELECT l.case_id, l.system_id, r.system_id, v.choice FROM votes v "
        "JOIN outputs l ON l.output_id = v.left_output "
        "JOIN outputs r ON r.output_id = v.right_output "
        "WHERE v.family = ? AND v.choice != 'skip' AND v.actor != 'settler' "
        "AND v.vote_id NOT IN (SELECT vote_id FROM retractions) ORDER BY v.seq",
        [family],
    )
    return [
        JudgeVerdict(judge, case, left, right, _RATER_WINNER[choice], 1)
        for case, left, right, choice in rows
    ]
