"""The probability each presentation was chosen with (migration 0027), and what a run
judge was unsure of (the replies ``arena.pairs.unsure`` reads)."""

from __future__ import annotations

from typing import Any

from arena.ledger.connection import Ledger


def add_draw(
    ledger: Ledger,
    family: str,
    presentation_id: str,
    probability: float,
    candidates: int,
    unsure: bool,
) -> None:
    """Record how ``presentation_id``'s case was drawn; call inside ``ledger.atomic()``
    with the presentation's own write."""
    ledger.conn.execute(
        "INSERT INTO presentation_draws (family, presentation_id, probability, candidates, "
        "unsure) VALUES (?, ?, ?, ?, ?)",
        [family, presentation_id, float(probability), int(candidates), int(bool(unsure))],
    )


def vote_draws(ledger: Ledger, family: str) -> dict[str, tuple[float, int]]:
    """Each vote of ``family`` whose presentation has a recorded draw: (probability,
    candidates), by vote id."""
    rows = ledger.conn.execute(
        "SELECT v.vote_id, d.probability, d.candidates FROM votes v "
        "JOIN presentation_draws d ON d.presentation_id = v.presentation_id "
        "WHERE v.family = ? AND d.family = ?",
        [family, family],
    )
    return {vote_id: (float(p), int(m)) for vote_id, p, m in rows}


def vote_draw_rows(ledger: Ledger, family: str) -> list[dict[str, Any]]:
    """``vote_draws`` as a bundle's ``draws.jsonl`` carries them, in vote order."""
    rows = ledger.conn.execute(
        "SELECT v.vote_id, v.presentation_id, d.probability, d.candidates, d.unsure "
        "FROM votes v JOIN presentation_draws d ON d.presentation_id = v.presentation_id "
        "WHERE v.family = ? AND d.family = ? ORDER BY v.rowid",
        [family, family],
    )
    return [
        {
            "vote_id": vote_id,
            "presentation_id": presentation_id,
            "probability": float(p),
            "candidates": int(m),
            "unsure": bool(u),
        }
        for vote_id, presentation_id, p, m, u in rows
    ]


def judged_verdicts(ledger: Ledger, family: str) -> list[tuple[str, str, str, str, str]]:
    """Every parsed verdict of the family's run judges: (judge, case, left system, right
    system, verdict), in one read."""
    rows = ledger.conn.execute(
        "SELECT judge, case_id, left_system, right_system, verdict FROM judge_replies "
        "WHERE family = ? AND verdict != 'unparsed'",
        [family],
    )
    return [tuple(r) for r in rows]
