"""Judges' verdicts (migration 0022) and their sources (0023), and the rater's votes read
as the same kind of row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.ledger.connection import Ledger
from arena.ledger.in_force import not_retracted

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
class JudgeSource:
    """One file imported for a judge."""

    judge: str
    sha256: str
    format: str | None  # None: imported before sources were recorded (0023)
    signer: str | None  # a colleague's bundle: the fingerprint of the key that signed it
    imported_at: str


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
        "SELECT 1 FROM judge_sources WHERE family = ?1 AND judge = ?2 AND source_sha256 = ?3 "
        "UNION ALL SELECT 1 FROM judge_verdicts WHERE family = ?1 AND judge = ?2 "
        "AND source_sha256 = ?3 LIMIT 1",
        [family, judge, sha256],
    ).fetchone()
    return row is not None


# A verdict's key: what it judged (case, the pair as shown, the game).
VerdictKey = tuple[str, str, str, int]


def stored_verdicts(
    ledger: Ledger, family: str, judge: str
) -> dict[VerdictKey, tuple[str, str, int]]:
    """Each verdict stored for ``judge`` by its key: its winner, source sha256 and line."""
    rows = ledger.conn.execute(
        "SELECT case_id, left_system, right_system, game, winner, source_sha256, source_line "
        "FROM judge_verdicts WHERE family = ? AND judge = ? ORDER BY seq",
        [family, judge],
    )
    return {
        (case, left, right, game): (winner, sha256, line)
        for case, left, right, game, winner, sha256, line in rows
    }


def votes_held(ledger: Ledger, vote_ids: Sequence[str]) -> list[str]:
    """Those of ``vote_ids`` that are votes of this ledger (in any family)."""
    held: list[str] = []
    for start in range(0, len(vote_ids), 500):  # within SQLite's limit on parameters
        chunk = vote_ids[start : start + 500]
        held += [
            row[0]
            for row in ledger.conn.execute(
                f"SELECT vote_id FROM votes WHERE vote_id IN ({', '.join('?' for _ in chunk)})",
                list(chunk),
            )
        ]
    return held


def add_source(ledger: Ledger, row: dict) -> None:
    """Append one ``judge_sources`` row (every column but ``seq``); call inside
    ``ledger.atomic()``."""
    names = list(row)
    ledger.conn.execute(
        f"INSERT INTO judge_sources ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
        [row[n] for n in names],
    )


def judge_sources(ledger: Ledger, family: str, judge: str | None = None) -> list[JudgeSource]:
    """The files imported for ``judge`` (every judge of ``family`` if None), oldest first.

    A source imported before 0023 is known by its verdicts alone: no format, no signer."""
    rows = ledger.conn.execute(
        "SELECT judge, source_sha256, format, signer, imported_at FROM judge_sources "
        "WHERE family = ?1 AND (?2 IS NULL OR judge = ?2) "
        "UNION ALL SELECT judge, source_sha256, NULL, NULL, MIN(imported_at) FROM judge_verdicts v "
        "WHERE family = ?1 AND (?2 IS NULL OR judge = ?2) AND NOT EXISTS (SELECT 1 FROM "
        "judge_sources s WHERE s.family = v.family AND s.judge = v.judge "
        "AND s.source_sha256 = v.source_sha256) GROUP BY judge, source_sha256 "
        "ORDER BY imported_at, judge, source_sha256",
        [family, judge],
    )
    return [JudgeSource(*row) for row in rows]


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
    """Every rater's votes in force (no skips, no settled pairs) as verdicts on systems."""
    return [v for _, v in _votes_as_verdicts(ledger, family, judge)]


def verdicts_by_rater(ledger: Ledger, family: str) -> dict[str, list[JudgeVerdict]]:
    """Each rater's votes in force as verdicts under the rater's name, raters in the order
    of their first vote."""
    by_rater: dict[str, list[JudgeVerdict]] = {}
    for actor, verdict in _votes_as_verdicts(ledger, family, None):
        by_rater.setdefault(actor, []).append(verdict)
    return by_rater


def _votes_as_verdicts(
    ledger: Ledger, family: str, judge: str | None
) -> list[tuple[str, JudgeVerdict]]:
    """(actor, the vote as a verdict of ``judge``, else of its actor) for each vote in force."""
    rows = ledger.conn.execute(
        "SELECT v.actor, l.case_id, l.system_id, r.system_id, v.choice FROM votes v "
        "JOIN outputs l ON l.output_id = v.left_output "
        "JOIN outputs r ON r.output_id = v.right_output "
        "WHERE v.family = ? AND v.choice != 'skip' AND v.actor != 'settler' "
        f"AND {not_retracted('v')} ORDER BY v.seq",
        [family],
    )
    return [
        (actor, JudgeVerdict(judge or actor, case, left, right, _RATER_WINNER[choice], 1))
        for actor, case, left, right, choice in rows
    ]


VERDICT_COLUMNS = (
    "judge",
    "kind",
    "case_id",
    "left_system",
    "right_system",
    "winner",
    "game",
    "source_sha256",
    "source_line",
)


def verdict_rows(ledger: Ledger, family: str, judges: Sequence[str]) -> list[dict[str, Any]]:
    """Every verdict of ``judges`` in ``family`` with its kind and source, oldest first:
    what a round pooled with them fits, and its bundle carries."""
    rows = ledger.conn.execute(
        f"SELECT {', '.join(VERDICT_COLUMNS)} FROM judge_verdicts WHERE family = ? AND judge IN "
        f"({', '.join('?' for _ in judges)}) ORDER BY seq",
        [family, *judges],
    )
    return [dict(zip(VERDICT_COLUMNS, row, strict=True)) for row in rows]


def as_verdict(row: dict[str, Any]) -> JudgeVerdict:
    """A row of ``verdict_rows`` (or of a bundle's ``judges.jsonl``) as a verdict."""
    return JudgeVerdict(
        row["judge"],
        row["case_id"],
        row["left_system"],
        row["right_system"],
        row["winner"],
        row["game"],
    )
