"""A round pooled with judges (`round close --with-judges`): which judges may be named, what
the round reads of them (its inputs), and what it records of each (``settings.with_judges``).

The judges' verdicts become comparisons in ``arena.rounds.comparisons`` (by the rules a
vote follows, weighted so no judge weighs more than the rater). A person's are fitted as
votes; a model's are predictions that the rater's votes correct, in a prediction-powered
board (``arena.rounds.scoring.powered_board``); docs/judges.md says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.errors import BadInput
from arena.ledger import Ledger, judge_store
from arena.ledger.judge_store import JudgeVerdict
from arena.records import Family
from arena.rounds.comparison_table import Comparisons
from arena.rounds.comparisons import JUDGE_ACTOR
from arena.rounds.round_records import JudgeSource, PooledJudge
from arena.rounds.scoring import POOLED, PREDICTION_POWERED, Powered


def check_judges(ledger: Ledger, family: Family, names: Sequence[str]) -> None:
    """The judges named for pooling must be the family's; a graded family has no votes."""
    if family.kind == "graded":
        raise BadInput(
            "a graded family's board is scored, not voted: no judges to pool with",
            field="--with-judges",
        )
    known = [j.judge for j in judge_store.judges(ledger, family.name)]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise BadInput(
            f"no judge {', '.join(map(repr, unknown))} in family {family.name!r}; "
            + (f"its judges: {', '.join(known)}" if known else "it has none")
            + " (`arena judges import`)",
            field="--with-judges",
        )


def inputs(ledger: Ledger, family: str, names: Sequence[str]) -> dict[str, Any]:
    """What a pooled round reads of its judges: each one's verdicts and sources."""
    return {
        j.judge: [j.verdicts, list(j.sources)]
        for j in judge_store.judges(ledger, family)
        if j.judge in names
    }


def rows(ledger: Ledger, family: str, names: Sequence[str]) -> list[dict[str, Any]]:
    """The verdicts of the judges ``names`` as rows; none at all for the rater's own round,
    which reads no judge's verdict."""
    return judge_store.verdict_rows(ledger, family, names) if names else []


def recorded(
    ledger: Ledger,
    family: str,
    comparisons: Comparisons,
    pooled: list[dict[str, Any]],
    powered: Powered | None = None,
) -> tuple[PooledJudge, ...]:
    """Each pooled judge as the round records it (``pooled``: its verdicts' rows): kind,
    counts, weight, the sources its verdicts came from (with the format read and a
    bundle's signer, where recorded) and how it was used: a model judge's ``lam`` and
    effective rater votes come from the family board's prediction-powered fit
    (``powered``; several model judges share one, their mean prediction)."""
    kinds = {row["judge"]: row["kind"] for row in pooled}
    used = {(row["judge"], row["source_sha256"]) for row in pooled}
    sources: dict[str, list[JudgeSource]] = {}
    for source in judge_store.judge_sources(ledger, family):
        if (source.judge, source.sha256) in used:
            sources.setdefault(source.judge, []).append(
                JudgeSource(source.sha256, source.format, source.signer)
            )
    verdicts = [judge_store.as_verdict(row) for row in pooled]
    return tuple(
        PooledJudge(
            **entry,
            kind=kinds[entry["judge"]],
            sources=tuple(sources.get(entry["judge"], [])),
            **_used(kinds[entry["judge"]], powered),
        )
        for entry in judges_record(comparisons, verdicts)
    )


def _used(kind: str, powered: Powered | None) -> dict[str, Any]:
    """How a round used a judge of ``kind``: a model's verdicts as predictions."""
    if kind != "model" or powered is None:
        return {"method": POOLED}
    return {
        "method": PREDICTION_POWERED,
        "lam": powered.lam,
        "effective_votes": powered.effective_votes,
        "effective_votes_ci95": list(powered.effective_votes_ci95),
    }


def judges_record(comparisons: Comparisons, verdicts: Sequence[JudgeVerdict]) -> list[dict]:
    """Per judge pooled (in the order first met): its verdicts, how many are comparisons
    fitted, left out (by reason) or unmatched, and the weight each fitted one has."""
    rows = np.flatnonzero(comparisons.mask("source", "judge"))
    actors = comparisons.values("actor", rows)
    statuses = comparisons.values("status", rows)
    reasons = comparisons.values("reason", rows)
    weights = comparisons["weight"][rows].tolist()
    record: dict[str, dict[str, Any]] = {}
    for v in verdicts:
        entry = record.setdefault(
            v.judge,
            {"judge": v.judge, "verdicts": 0, "fitted": 0, "left_out": {}, "weight": None},
        )
        entry["verdicts"] += 1
    for actor, status, reason, weight in zip(actors, statuses, reasons, weights, strict=True):
        entry = record[actor.removeprefix(JUDGE_ACTOR)]
        if status == "fitted":
            entry["fitted"] += 1
            entry["weight"] = weight
        else:
            entry["left_out"][reason] = entry["left_out"].get(reason, 0) + 1
    for entry in record.values():
        entry["unmatched"] = entry["verdicts"] - entry["fitted"] - sum(entry["left_out"].values())
    return list(record.values())
