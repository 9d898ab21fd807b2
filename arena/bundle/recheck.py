"""Rechecks of a bundle's content: votes against comparisons, the settlement, the refit
of the board and the regrading of graded receipts, each from the bundle's files alone."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from arena.bundle.report import VerifyReport, lines
from arena.decisions import decisions
from arena.family_state import FamilyState, with_decided_languages
from arena.records import (
    Case,
    Event,
    Family,
    GateResult,
    Output,
)
from arena.rounds import uncertainty
from arena.rounds.comparison_table import Y_OF_CHOICE, Comparison, Comparisons
from arena.rounds.comparisons import (
    settled_comparisons,
    settled_output_pairs,
    vote_status,
)
from arena.rounds.model import Board, BoardRow, Recorded, RoundSettings
from arena.rounds.round_records import RoundEvent
from arena.rounds.round_summary import summary
from arena.rounds.scoring import BoardFit, design_weights, fit_board, predictors

POINTS_TOLERANCE = 0.01


def bundle_state(
    files: dict[str, bytes], manifest: dict, case_rows: list[dict], event_rows: list[dict]
) -> FamilyState:
    """The family as the bundle says it stood at closing, the rater's corrections applied."""
    family = Family(**manifest["family"])
    outputs = {
        row["output_id"]: Output(
            output_id=row["output_id"],
            family=family.name,
            case_id=row["case_id"],
            system_id=row["system_id"],
            sample=row["sample"],
            text=row["text"],
            is_diff=row["is_diff"],
            finish_reason=row["finish_reason"],
            test_result=row["test_result"],
        )
        for row in lines(files["outputs.jsonl"], "outputs.jsonl")
    }
    results = {
        row["output_id"]: tuple(GateResult(**r) for r in row["results"])
        for row in lines(files["gates.jsonl"], "gates.jsonl")
    }
    decided = decisions(Event.from_row(row) for row in event_rows)
    cases = {
        row["case_id"]: Case(
            family.name,
            row["case_id"],
            row["category"],
            row["prompt"],
            row["language"],
            row["detected_language"],
            row["language_evidence"],
        )
        for row in case_rows
    }
    return FamilyState(family, with_decided_languages(cases, decided), outputs, results, decided)


def check_trials(files: dict[str, bytes], report: VerifyReport) -> None:
    """A tested family's outputs carry the result of their trial in force (trials.jsonl)."""
    results = {
        row["output_id"]: row["test_result"]
        for row in lines(files["outputs.jsonl"], "outputs.jsonl")
    }
    for trial in lines(files["trials.jsonl"], "trials.jsonl"):
        found = results.get(trial["output_id"], "no such output")
        if found != trial["result"]:
            report.problems.append(
                f"trials.jsonl: trial {trial['trial_id'][:12]} says {trial['result']}; "
                f"outputs.jsonl says {found} for output {str(trial['output_id'])[:12]}"
            )


def check_settlement(
    state: FamilyState, manifest: dict, comparisons: list[Comparison], report: VerifyReport
) -> None:
    """Settle the family again from the bundle: every settled comparison and vote status."""
    in_force = tuple(RoundEvent.from_json(e) for e in state.decisions.record())
    recorded = Recorded.from_json(manifest["settings"])
    if recorded.events != in_force:
        report.problems.append(
            "manifest.json: the round's corrections differ from those events.jsonl puts in force"
        )
    expected = settled_comparisons(state)
    published = [c for c in comparisons if c.source == "settled"]
    if published != expected:
        key = {(c.output_a, c.output_b) for c in expected}
        invented = [c for c in published if (c.output_a, c.output_b) not in key]
        # Rounds closed before SETTLING_VERSION 2 let a failing patch beat a task not answered.
        older = sum(c.rule == "no_output" for c in set(published) - set(expected))
        report.problems.append(
            f"comparisons.jsonl: the settled comparisons are not those the rules give "
            f"({len(published)} published, {len(expected)} settled again"
            + (f", {len(invented)} not settled by any rule" if invented else "")
            + (
                f", {older} on tasks not answered, which now tie with every failed trial"
                if older
                else ""
            )
            + ")"
        )
    pairs = settled_output_pairs(state)
    # A round that names its raters leaves the others' votes out.
    raters = recorded.settings.raters
    for c in comparisons:
        if c.source != "vote":
            continue
        again = vote_status(
            state,
            c.case_id,
            c.output_a,
            c.output_b,
            c.repeat_of,
            pairs,
            other_rater=bool(raters) and c.actor not in raters,
        )
        if (c.status, c.reason) != again:
            report.problems.append(
                f"comparisons.jsonl: vote {c.vote_id} is {c.status} "
                f"({c.reason}); the rules make it {again[0]} ({again[1]})"
            )


def regrade(
    files: dict[str, bytes], board: dict, settings: RoundSettings, report: VerifyReport
) -> None:
    """Graded rounds: grade every receipt's output again and recompute every score."""
    from arena.graded.board_rows import score_row
    from arena.graded.suites import Suite, grade, parse_suite

    suites: dict[str, Suite] = {}
    for row in lines(files["suites.jsonl"], "suites.jsonl"):
        suite = parse_suite(row["manifest"], fmt=row["format"], source="suites.jsonl")
        if suite.manifest_hash != row["suite_hash"]:
            report.problems.append(
                f"suites.jsonl: {row['suite_hash'][:12]}: the manifest does not hash to its id"
            )
        suites[row["suite_hash"]] = suite
    receipts = lines(files["receipts.jsonl"], "receipts.jsonl")
    by_system: dict[str, list[dict]] = {}
    for r in receipts:
        where = f"receipts.jsonl: {r['system_id'][:12]} {r['task_id']}"
        found = suites.get(r["suite_hash"])
        if found is None:
            report.problems.append(f"{where}: its suite is not in suites.jsonl")
            continue
        try:
            task = found.task(r["task_id"])
        except KeyError:
            report.problems.append(f"{where}: no such task in its suite")
            continue
        if task.input_hash != r["input_hash"]:
            report.problems.append(f"{where}: input hash differs from the suite's task")
        if (
            r["output"] is not None
            and hashlib.sha256(r["output"].encode("utf-8")).hexdigest() != r["output_hash"]
        ):
            report.problems.append(f"{where}: output does not match its hash")
        regraded = grade(
            task,
            r["output"],
            finish_reason=r["finish_reason"],
            timed_out=r["attempt_status"] == "timeout",
        )
        if (regraded.status, regraded.credit, regraded.passed, regraded.parsed_answer) != (
            r["status"],
            r["credit"],
            r["passed"],
            r["parsed_answer"],
        ):
            report.problems.append(
                f"{where}: graded again it gives {regraded.status} "
                f"{regraded.credit}, the receipt says {r['status']} "
                f"{r['credit']}"
            )
        by_system.setdefault(r["system_id"], []).append(r)
    report.systems = len(board["systems"])
    recomputed = []
    for row in board["systems"]:
        items = by_system.get(row["system"], [])
        if not items:
            report.problems.append(f"board.json: {row['label']} has no receipts")
            recomputed.append(row)
            continue
        method = row.get("ci_method") or "percentile"  # rounds closed before it was recorded
        try:
            again = score_row(
                suites[items[0]["suite_hash"]], items, seed=settings.seed, ci_method=method
            )
        except ValueError as exc:
            report.problems.append(f"board.json: {row['label']}: {exc}")
            recomputed.append(row)
            continue
        for key, value in again.items():
            published = row.get(key)
            if not _close(published, value):
                report.problems.append(
                    f"board.json: {row['label']} {key}: published {published}, recomputed {value}"
                )
        recomputed.append({**row, **again})
    _check_ranks(board["systems"], recomputed, report)


def _check_ranks(
    published: list[dict[str, Any]], recomputed: list[dict[str, Any]], report: VerifyReport
) -> None:
    """Ranks by the recomputed intervals; rounds closed before ranks followed intervals
    ranked by headline (then label), one rank each."""
    from arena.graded.board_rows import interval_ranks

    if any(r.get("ci_method") for r in published):
        ranks = interval_ranks(recomputed)
    else:
        order = sorted(
            range(len(recomputed)),
            key=lambda i: (-recomputed[i]["headline"], recomputed[i]["label"]),
        )
        ranks = [0] * len(recomputed)
        for position, i in enumerate(order, start=1):
            ranks[i] = position
    for row, rank in zip(published, ranks, strict=True):
        if row.get("rank") != rank:
            report.problems.append(
                f"board.json: {row['label']} rank: published {row.get('rank')}, recomputed {rank}"
            )


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-9)
    return bool(a == b)


def check_votes(
    comparisons: list[Comparison], votes: list[dict], retractions: list[dict], report: VerifyReport
) -> None:
    by_id = {v["vote_id"]: v for v in votes}
    retracted = {r["vote_id"] for r in retractions}
    for c in comparisons:
        if c.source != "vote":
            continue
        vote = by_id.get(c.vote_id)
        if vote is None:
            report.problems.append(f"comparisons.jsonl: vote {c.vote_id} is not in votes.jsonl")
        elif (vote["choice"], vote["left_output"], vote["right_output"]) != (
            c.choice,
            c.output_a,
            c.output_b,
        ) or Y_OF_CHOICE[vote["choice"]] != c.y:
            report.problems.append(f"comparisons.jsonl: vote {c.vote_id} differs from its row")
        elif c.vote_id in retracted:
            report.problems.append(f"comparisons.jsonl: vote {c.vote_id} was retracted")


def _same(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=0, abs_tol=tolerance)


def _compare_board(
    name: str, published: tuple[BoardRow, ...], refit: BoardFit, report: VerifyReport
) -> None:
    for row in published:
        score = refit.scores.get(row.system)
        if score is None:
            report.problems.append(f"{name}: {row.label} is not among the refitted systems")
            continue
        if not _same(row.points, score.points, POINTS_TOLERANCE) or row.rank != score.rank:
            report.problems.append(
                f"{name}: {row.label} published {row.points} "
                f"(rank {row.rank}), refit gives {score.points} "
                f"(rank {score.rank})"
            )
        elif row.points is not None and score.points is not None:
            report.largest_difference = max(
                report.largest_difference, abs(row.points - score.points)
            )


def _compare_anchor(name: str, published: Board, refit: BoardFit, report: VerifyReport) -> None:
    """The anchor worked out again, and how it was chosen (rounds closed before that was
    recorded have only the system and the reason)."""
    recorded = published.anchor.to_json() if published.anchor else {"system": None}
    labels = {row.system: row.label for row in published.systems}
    again = refit.anchor_record(labels)
    if any(not _close(recorded[k], v) for k, v in again.to_json().items() if k in recorded):
        report.problems.append(
            f"{name}: anchor: published {recorded.get('label')} ({recorded.get('reason')}), "
            f"refit gives {again.label} ({again.reason})"
        )


# What a board's uncertainty records of how its intervals were made, checked again.
_HOW = ("available", "reason", "method", "resamples", "seed", "stream")


def _compare_intervals(
    name: str, published: Board, again: uncertainty.Found | None, report: VerifyReport
) -> None:
    """A board's recorded check of its regime and its intervals, worked out again (rounds
    closed before intervals were recorded have neither: nothing to recheck)."""
    recorded = published.uncertainty
    if recorded is None:
        return
    if again is None:
        report.problems.append(f"{name}: records an uncertainty its family kind never has")
        return
    record, found = again
    for key in _HOW:
        shown, redone = getattr(recorded, key), getattr(record, key)
        if shown != redone:
            report.problems.append(f"{name}: uncertainty {key}: published {shown}, again {redone}")
    for row in published.systems:
        shown, redone = row.ci95, found.get(row.system)
        if shown is None and redone is None:
            continue
        if (
            shown is None
            or redone is None
            or not all(_same(x, y, POINTS_TOLERANCE) for x, y in zip(shown, redone, strict=True))
        ):
            report.problems.append(
                f"{name}: {row.label} 95% interval: published {shown}, bootstrap again {redone}"
            )
        else:
            report.intervals += 1


def design(
    files: dict[str, bytes], votes: list[dict], comparisons: Comparisons, report: VerifyReport
) -> np.ndarray | None:
    """The votes' weights for how their pairs were drawn, from ``draws.jsonl`` (none: every
    vote drawn uniformly within its system pair); each draw must be of its vote's own
    presentation (``votes.jsonl``), with a probability in (0, 1]."""
    if "draws.jsonl" not in files:
        return None
    shown = {v["vote_id"]: v["presentation_id"] for v in votes}
    chosen: dict[str, tuple[float, int]] = {}
    for row in lines(files["draws.jsonl"], "draws.jsonl"):
        vote, p, m = row["vote_id"], float(row["probability"]), int(row["candidates"])
        if shown.get(vote) != row["presentation_id"]:
            report.problems.append(f"draws.jsonl: vote {vote}: not its presentation's draw")
        elif not (0.0 < p <= 1.0 and m >= 1):
            report.problems.append(f"draws.jsonl: vote {vote}: no probability of a draw")
        else:
            chosen[vote] = (p, m)
    return design_weights(comparisons, chosen)


def refit(
    comparisons: Comparisons,
    weights: np.ndarray,
    board: dict,
    manifest: dict,
    settings: RoundSettings,
    report: VerifyReport,
    design: np.ndarray | None = None,
) -> None:
    """Fit the board again, and each category's; ``design``: the votes' weights for how
    their pairs were drawn (``design``)."""
    family = Board.from_json(board)
    systems = [r.system for r in sorted(family.systems, key=lambda r: r.label)]
    report.systems = len(systems)
    reference = manifest["family"]["reference"]
    # A round with model judges fitted the prediction-powered board: fit it again.
    judges = Recorded.from_json(manifest["settings"]).judges or ()
    predicting = predictors((j.judge, j.kind) for j in judges)
    fit = fit_board(
        comparisons,
        weights,
        systems,
        reference=reference,
        settings=settings,
        predictors=predicting,
        design=design,
    )
    _compare_board("board.json", family.systems, fit, report)
    _compare_powered(judges, fit, report)
    _compare_anchor("board.json", family, fit, report)
    redo = uncertainty.for_family(
        comparisons, systems, settings, reference, manifest["family"]["kind"]
    )
    _compare_intervals("board.json", family, redo(fit, weights, None), report)
    for category, shown in board["categories"].items():
        view = Board.from_json(shown)
        inside = np.where(comparisons.mask("category", category), weights, 0.0)
        part = fit_board(
            comparisons,
            inside,
            systems,
            reference=reference,
            settings=settings,
            predictors=predicting,
            design=design,
        )
        _compare_board(f"board.json category {category}", view.systems, part, report)
        _compare_anchor(f"board.json category {category}", view, part, report)
        _compare_intervals(
            f"board.json category {category}", view, redo(part, inside, category), report
        )
    diff_family = bool(np.any(comparisons["is_diff"]))
    again = summary(
        comparisons,
        weights,
        systems,
        reference=reference,
        settings=settings,
        diff_family=diff_family,
        raters=bool(settings.raters),  # as closing.close_round works it out
    ).to_json()
    for key, published in board["summary"].items():
        value = again[key]
        # τ, shares and their intervals to 1e-6; the rest to the points' tolerance.
        exact = any(word in key for word in ("tau", "agreement", "share"))
        tolerance = 1e-6 if exact else POINTS_TOLERANCE
        if not _same_figure(published, value, tolerance):
            report.problems.append(f"summary {key}: published {published}, refit {value}")


def _compare_powered(judges: Any, fit: BoardFit, report: VerifyReport) -> None:
    """A prediction-powered round's judge weight and what its judges were worth, again."""
    for judge in judges:
        if judge.lam is None:
            continue  # pooled as a rater, or closed before boards were prediction-powered
        powered = fit.powered
        again = (
            (None, None)
            if powered is None
            else (powered.lam, powered.effective_votes, *powered.effective_votes_ci95)
        )
        shown = (judge.lam, judge.effective_votes, *(judge.effective_votes_ci95 or ()))
        if len(shown) != len(again) or not all(
            _same(x, y, 1e-6 * max(1.0, abs(y or 0.0))) for x, y in zip(shown, again, strict=True)
        ):
            report.problems.append(
                f"manifest.json: judge {judge.judge}: lam and effective votes {list(shown)}, "
                f"the prediction-powered fit again gives {list(again)}"
            )


def _same_figure(published: Any, value: Any, tolerance: float) -> bool:
    """A number, or a list (an interval) or mapping (each half's points) of them, the same
    within ``tolerance``: a refit on another processor differs in its last bits."""
    if isinstance(published, list) and isinstance(value, list) and len(published) == len(value):
        return all(_same_figure(p, v, tolerance) for p, v in zip(published, value, strict=True))
    if isinstance(published, dict) and isinstance(value, dict):
        return published.keys() == value.keys() and all(
            _same_figure(published[k], value[k], tolerance) for k in published
        )
    if isinstance(published, (int, float)) and isinstance(value, (int, float)):
        return _same(float(published), float(value), tolerance)
    return bool(published == value)
