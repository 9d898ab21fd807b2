"""Judges run from Arena (migration 0026): each judge's descriptor, and every reply."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.ledger.connection import Ledger

REPLY_COLUMNS = (
    "judge",
    "judge_id",
    "case_id",
    "left_system",
    "right_system",
    "game",
    "verdict",
    "strength",
    "reply_sha256",
    "template_sha256",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "asked_at",
)


@dataclass(frozen=True)
class StoredJudge:
    judge: str
    judge_id: str
    descriptor: dict[str, Any]
    template_sha256: str


@dataclass(frozen=True)
class Reply:
    judge: str
    judge_id: str
    case_id: str
    left_system: str
    right_system: str
    game: int
    verdict: str  # left, right, tie or unparsed
    strength: int
    reply_sha256: str
    template_sha256: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: float | None
    asked_at: str


def stored_judge(ledger: Ledger, family: str, judge: str) -> StoredJudge | None:
    row = ledger.conn.execute(
        "SELECT judge, judge_id, descriptor, template_sha256 FROM judge_descriptors "
        "WHERE family = ? AND judge = ?",
        [family, judge],
    ).fetchone()
    if row is None:
        return None
    return StoredJudge(row[0], row[1], json.loads(row[2]), row[3])


def run_judges(ledger: Ledger, family: str) -> list[StoredJudge]:
    rows = ledger.conn.execute(
        "SELECT judge, judge_id, descriptor, template_sha256 FROM judge_descriptors "
        "WHERE family = ? ORDER BY seq",
        [family],
    )
    return [StoredJudge(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]


def add_judge(ledger: Ledger, family: str, judge: StoredJudge, at: str) -> None:
    """Record a judge run in ``family``; call inside ``ledger.atomic()``."""
    ledger.conn.execute(
        "INSERT INTO judge_descriptors (family, judge, judge_id, descriptor, template_sha256, "
        "added_at) VALUES (?, ?, ?, ?, ?, ?)",
        [
            family,
            judge.judge,
            judge.judge_id,
            json.dumps(judge.descriptor, sort_keys=True, ensure_ascii=False),
            judge.template_sha256,
            at,
        ],
    )


def asked(ledger: Ledger, family: str, judge: str) -> set[tuple[str, str, str]]:
    """Each (case, left system, right system) ``judge`` has replied on: asked, not again."""
    rows = ledger.conn.execute(
        "SELECT case_id, left_system, right_system FROM judge_replies "
        "WHERE family = ? AND judge = ?",
        [family, judge],
    )
    return {(c, left, right) for c, left, right in rows}


def add_reply(ledger: Ledger, family: str, reply: Reply) -> int:
    """Append one reply; its ``seq``. Call inside ``ledger.atomic()``."""
    values = [getattr(reply, n) for n in REPLY_COLUMNS]
    cursor = ledger.conn.execute(
        f"INSERT INTO judge_replies (family, {', '.join(REPLY_COLUMNS)}) "
        f"VALUES (?, {', '.join('?' for _ in REPLY_COLUMNS)})",
        [family, *values],
    )
    return int(cursor.lastrowid or 0)


def replies(ledger: Ledger, family: str, judge: str | None = None) -> list[Reply]:
    """Every reply of ``judge`` (every run judge's if None), oldest first."""
    rows = ledger.conn.execute(
        f"SELECT {', '.join(REPLY_COLUMNS)} FROM judge_replies "
        "WHERE family = ?1 AND (?2 IS NULL OR judge = ?2) ORDER BY seq",
        [family, judge],
    )
    return [Reply(*row) for row in rows]


def unparsed_counts(ledger: Ledger, family: str) -> dict[str, int]:
    """Each run judge's replies that named no verdict."""
    rows = ledger.conn.execute(
        "SELECT judge, COUNT(*) FROM judge_replies WHERE family = ? AND verdict = 'unparsed' "
        "GROUP BY judge",
        [family],
    )
    return {judge: count for judge, count in rows}
