"""A round's fitted comparisons as FastChat / LMArena battles, for peers' notebooks.

One record per comparison the round fitted (repeats and left-out votes are not
battles): ``model_a`` / ``model_b`` (the systems' labels, a on the left for a
vote), ``winner`` (``model_a``, ``model_b``, ``tie``, or ``tie (bothbad)`` for
both bad), ``tstamp`` (seconds since 1970: the vote's time, or the round's
closing for a settled pair), ``question_id`` (the case), ``category``,
``weight`` (the weight the round fitted it with), ``source`` (``vote`` or
``settled``) and ``arena_round``.

The battles format has no weight field; ``weight`` is an addition that
``arena fit`` honours and FastChat's and arena-rank's readers ignore. Their fit
of the file matches the round only where every weight is 1: unit weighting, no
settled pair (whose weight is 1/(k_a·k_b)) and no ledger cap.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from arena.errors import BadInput
from arena.ledger import Ledger, catalog, soundness, voting
from arena.ledger import round_store as stored_rounds
from arena.rounds.closing import find_round
from arena.rounds.model import Round


def _seconds(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def _winner(comparison: dict[str, Any]) -> str:
    if comparison["y"] == 1:
        return "model_a"
    if comparison["y"] == 0:
        return "model_b"
    return "tie (bothbad)" if comparison.get("choice") == "both_bad" else "tie"


def battles(ledger: Ledger, found: Round) -> Iterator[dict[str, Any]]:
    """The round's fitted comparisons as battle records, in the round's order."""
    labels = {s.system_id: s.label for s in catalog.systems(ledger, found.family)}
    times = voting.vote_times(ledger, found.family)
    closed = _seconds(found.closed_at)
    for comparison in stored_rounds.items(ledger, found.round_id, "comparison"):
        weight = comparison["fitted_weight"]
        if comparison["status"] != "fitted" or weight <= 0:
            continue
        vote = comparison.get("vote_id")
        yield {
            "model_a": labels[comparison["system_a"]],
            "model_b": labels[comparison["system_b"]],
            "winner": _winner(comparison),
            "tstamp": _seconds(times[vote]) if vote else closed,
            "question_id": comparison["case_id"],
            "category": comparison["category"],
            "weight": weight,
            "source": comparison["source"],
            "arena_round": found.round_id,
        }


def export_battles(
    ledger: Ledger, out: Path, *, round_id: str | None = None, family: str | None = None
) -> tuple[Round, int]:
    """Write a voted round's battles to ``out`` as one JSON list; return the round and count."""
    if out.exists():
        raise BadInput("already exists; choose another --out", path=str(out))
    found = find_round(ledger, round_id, family)
    if found is None:
        raise BadInput("no such round; close one with `arena round close`", field="round")
    if found.anchor is None:
        raise BadInput("a graded round has scores, not battles", field="--format")
    soundness.require_sound(ledger, found.family, soundness.BATTLES)
    rows = list(battles(ledger, found))
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    partial.replace(out)
    return found, len(rows)
