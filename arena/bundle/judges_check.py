"""A pooled round's judges, checked from its bundle alone: every judge's comparison follows
from a verdict of ``judges.jsonl`` by the rules a vote follows, with the weight the pooling
rule gives it, and the round's record of its judges (``settings.with_judges``) is theirs;
no judge is a bundle of the round's own signer."""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.bundle.report import VerifyReport, lines
from arena.family_state import FamilyState
from arena.ledger.judge_store import as_verdict
from arena.rounds.comparison_table import Comparison, Comparisons
from arena.rounds.comparisons import judge_comparisons
from arena.rounds.model import Recorded
from arena.rounds.pooling import judges_record

# What the round records of each judge and verify works out again (kind and sources apart).
RECORDED = ("verdicts", "fitted", "left_out", "unmatched", "weight")


def _unweighted(c: Comparison) -> tuple[Any, ...]:
    return (c.actor, c.case_id, c.output_a, c.output_b, c.y, c.choice, c.status, c.reason)


def check_judges(
    files: dict[str, bytes],
    manifest: dict[str, Any],
    state: FamilyState,
    comparisons: list[Comparison],
    report: VerifyReport,
) -> None:
    recorded = Recorded.from_json(manifest["settings"]).judges
    published = [c for c in comparisons if c.source == "judge"]
    if recorded is None:
        if published or "judges.jsonl" in files:
            report.problems.append(
                "comparisons.jsonl: judges' verdicts in a round that pools no judge"
            )
        return
    report.judges = [j.judge for j in recorded]
    for judge in recorded:
        for source in judge.sources:
            # The signer's own bundle pooled as a colleague's counts their votes twice.
            if report.signer is not None and source.signer == report.signer:
                report.problems.append(
                    f"manifest.json: judge {judge.judge}'s bundle {source.sha256[:12]} "
                    f"is signed by this bundle's own signer ({report.signer}): the rater's "
                    "votes pooled again as a colleague's"
                )
    if "judges.jsonl" not in files:
        report.problems.append("judges.jsonl: missing from a round pooled with judges")
        return
    rows = lines(files["judges.jsonl"], "judges.jsonl")
    by_name = {j.judge: j for j in recorded}
    sources = {(j.judge, s.sha256) for j in recorded for s in j.sources}
    for number, row in enumerate(rows, start=1):
        if (row["judge"], row["source_sha256"]) not in sources:
            report.problems.append(
                f"judges.jsonl: line {number}: a verdict of {row['judge']!r} from a source "
                "the round does not record"
            )
        elif row["kind"] != by_name[row["judge"]].kind:
            report.problems.append(
                f"judges.jsonl: line {number}: a {row['kind']} verdict of a "
                f"{by_name[row['judge']].kind} judge"
            )
    verdicts = [as_verdict(row) for row in rows]
    rater = sum(c.source == "vote" and c.status == "fitted" for c in comparisons)
    expected = judge_comparisons(state, verdicts, rater)
    given, again = Counter(map(_unweighted, published)), Counter(map(_unweighted, expected))
    if given != again:
        report.problems.append(
            f"comparisons.jsonl: the judges' comparisons are not those judges.jsonl gives "
            f"({len(published)} published, {len(expected)} from the verdicts: "
            f"{(given - again).total()} not from any verdict, "
            f"{(again - given).total()} verdicts missing)"
        )
    weights = {c.actor: c.weight for c in expected}
    for actor, weight in sorted({(c.actor, c.weight) for c in published}):
        if actor in weights and weight != weights[actor]:
            report.problems.append(
                f"comparisons.jsonl: {actor}'s verdicts weigh {weight:.6g}; pooling gives "
                f"{weights[actor]:.6g} (the rater's fitted votes over the judge's fitted "
                "verdicts, at most 1)"
            )
    found = {j["judge"]: j for j in judges_record(Comparisons.from_records(expected), verdicts)}
    for name, entry in by_name.items():
        redone = found.get(name, {"verdicts": 0})
        for key in RECORDED:
            if getattr(entry, key) != redone.get(key):
                report.problems.append(
                    f"manifest.json: judge {name} {key}: recorded {getattr(entry, key)}, "
                    f"judges.jsonl gives {redone.get(key)}"
                )
    for name in sorted(set(found) - set(by_name)):
        report.problems.append(
            f"judges.jsonl: verdicts of {name!r}, a judge the round does not pool"
        )
