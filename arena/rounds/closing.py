"""Closing a round: re-gate, gather the comparisons, fit, summarise, store for good."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from arena import __version__, cycle_gc, family_state, gates
from arena.canonical import sha256_hex
from arena.clock import now_iso
from arena.errors import BadInput, did_you_mean
from arena.family_state import FamilyState
from arena.fit import FIT_VERSION
from arena.gates import screening
from arena.ledger import (
    Ledger,
    catalog,
    chain,
    draws,
    family_changes,
    judge_runs,
    soundness,
    voting,
)
from arena.ledger import round_store as stored_rounds
from arena.ledger.judge_store import as_verdict
from arena.ledger.voting import new_id
from arena.pairs import adaptive
from arena.pairs.settling import SETTLING_VERSION
from arena.records import VOTED_KINDS, Family, Output, System, SystemId
from arena.rounds import case_set, pooling, settings_record, uncertainty
from arena.rounds.comparison_table import Column, Comparisons
from arena.rounds.comparisons import family_comparisons
from arena.rounds.model import Board, BoardRow, Round, RoundSettings, RoundSummary
from arena.rounds.round_records import FitRecord, PooledJudge, RoundEvent
from arena.rounds.round_summary import summary
from arena.rounds.scoring import BoardFit, design_weights, fit_board, fitted_weights, predictors
from arena.rounds.settings_record import AXIS_SPAN
from arena.rounds.system_columns import output_columns, tested_columns, vote_columns

TESTED = ("tests", "tests_then_votes")


def _board(
    fit: BoardFit,
    systems: Sequence[System],
    extra: dict[SystemId, dict[str, Any]],
    labels: dict[SystemId, str],
    *,
    tests_only: bool = False,
    own: dict[SystemId, dict[str, Any]] | None = None,
    ci: uncertainty.Found | None = None,
) -> Board:
    """A board of ``fit``; ``own`` gives a category's own vote columns, ``ci`` the board's
    check of its regime and its intervals (``uncertainty.intervals``)."""
    record, interval = ci or (None, {})
    points = [s.points for s in fit.scores.values() if s.points is not None]
    top = max(points) if points else None
    rows = []
    for system in systems:
        score = fit.scores[system.system_id]
        rows.append(
            BoardRow(
                system=system.system_id,
                label=system.label,
                points=score.points,
                rank=score.rank,
                status=score.status,
                # No votes are asked for in a tests family: nothing is preliminary.
                preliminary=score.preliminary and not tests_only,
                unranked=score.points is None,
                far_behind=(
                    score.points is not None and top is not None and score.points < top - AXIS_SPAN
                ),
                decisive_votes=score.decisive_votes,
                ci95=interval.get(system.system_id),
                **extra[system.system_id],
                **(
                    {
                        "category_votes": own[system.system_id]["votes"],
                        "category_both_bad_share": own[system.system_id]["both_bad_share"],
                    }
                    if own is not None
                    else {}
                ),
            )
        )
    rows.sort(key=lambda r: (r.rank is None, r.rank or 0, r.label))
    return Board(fit.anchor_record(labels), tuple(rows), record)


@dataclass(frozen=True)
class _Result:
    """What a kind of family adds to a round, and what is stored apart from it."""

    board: Board
    categories: dict[str, Board]
    summary: RoundSummary
    fit: FitRecord | None
    # Column by column (comparison_table.Comparisons, with the weight each was fitted with).
    comparisons: dict[str, Column]
    receipts: list[dict[str, Any]]
    # A pooled round's judges (Round.judges).
    judges: tuple[PooledJudge, ...] | None = None


def close_round(
    ledger: Ledger,
    family_name: str,
    settings: RoundSettings,
    progress: Callable[[int], None] | None = None,
    *,
    allow_missing: bool = False,
) -> Round:
    """Close a round of ``family_name``, store it for good and return it.

    The round records, under its settings, the rater's corrections in force. A tested
    family with outputs that have no test result is refused unless ``allow_missing``
    (they count as failed, and the board says how many). So is a family whose rows no
    longer match their hash chains and seals (``soundness``).
    """
    with cycle_gc.paused():
        return _close(ledger, family_name, settings, progress, allow_missing)


def _close(
    ledger: Ledger,
    family_name: str,
    settings: RoundSettings,
    progress: Callable[[int], None] | None,
    allow_missing: bool,
) -> Round:
    found = catalog.get_family(ledger, family_name)
    if found is not None and settings.with_judges:
        pooling.check_judges(ledger, found, settings.with_judges)
    if found is not None and settings.raters:
        _check_raters(ledger, found, settings.raters)
    # Even a close that restates an earlier round writes and publishes it: rows edited
    # since that round must stop it as they stop any other.
    soundness.require_sound(ledger, family_name, soundness.ROUND)
    before = None
    if found is not None and found.kind != "graded":
        before = _inputs(ledger, found, settings)
        earlier = stored_rounds.closed_on(ledger, found.name, before.round)
        if earlier is not None:
            return _restate(ledger, *earlier, before)
    state = family_state.load(ledger, family_name)
    untried = sum(o.test_result is None for o in state.in_force)
    if state.family.kind in TESTED and untried and not allow_missing:
        raise BadInput(
            f"{untried} outputs of tests family {family_name!r} have no test result: run "
            f"`arena tests run --family {family_name}`, or close with --allow-missing to "
            "count them as failed",
            field="--allow-missing",
        )
    # A round closed on what the gates read now left every verdict up to date.
    fresh = before is not None and stored_rounds.gated_on(ledger, family_name, before.gates)
    if not fresh and screening.refresh(ledger, state, progress=progress)[1]:
        state = family_state.load(ledger, family_name)
    family = state.family
    inputs = None
    case_ids = None
    if family.kind == "graded":
        result = _graded_result(ledger, family, settings)
        record = settings_record.graded(settings)
    else:
        result = _voted_result(ledger, state, settings)
        inputs = _inputs(ledger, family, settings)
        record, case_ids = settings_record.build(
            ledger, state, settings, result.board.anchor, find_round(ledger, family=family.name)
        )
    closed = Round(
        round_id=new_id(),
        family=family.name,
        kind=family.kind,
        closed_at=now_iso(),
        settings=settings,
        software=__version__,
        events=tuple(RoundEvent.from_json(e) for e in state.decisions.record()),
        board=result.board,
        categories=result.categories,
        summary=result.summary,
        fit=result.fit,
        # Where each chain of the family stood at closing, and how far outputs and gate
        # results stood: the export shows the family as it was then.
        chain_heads=chain.heads(ledger, family.name),
        marks=catalog.marks(ledger),
        # The settings in force (they change by recorded changes): what the gates read.
        family_settings=family,
        pairs=adaptive.choice_of(ledger, family.name) if family.kind in VOTED_KINDS else None,
        unsure_first=_unsure_first(ledger, family),
        judges=result.judges,
        settings_record=record,
        case_ids=None if case_ids is None else tuple(case_ids),
    )
    with ledger.atomic():
        stored_rounds.add_round(
            ledger, closed.to_json(), result.comparisons, result.receipts, inputs=inputs
        )
    return closed


def _unsure_first(ledger: Ledger, family: Family) -> str | None:
    """Whether the family's sessions draw first the cases a run judge is unsure of (``on``
    or ``off``), for a voted family with a run judge; None otherwise (arena.pairs.unsure)."""
    if family.kind not in VOTED_KINDS or not judge_runs.run_judges(ledger, family.name):
        return None
    return family_changes.unsure_first(ledger, family.name)


def family_raters(ledger: Ledger, family: str) -> list[str]:
    """The raters who voted in ``family``, whose votes a round may fit (``raters``)."""
    return voting.raters(ledger, family)


def _check_raters(ledger: Ledger, family: Family, names: Sequence[str]) -> None:
    """The raters named for a round must have voted in the family."""
    known = family_raters(ledger, family.name)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise BadInput(
            f"no rater {unknown[0]!r} in family {family.name!r}"
            + did_you_mean(unknown[0], known)
            + "; "
            + (f"its raters: {', '.join(known)}" if known else "it has none"),
            field="--raters",
        )


class Inputs(NamedTuple):
    """What a voted round is worked out from, as hashes: all of it, and what the gates read.

    The hash chains of the family stand for its votes, retractions and
    corrections; how far the catalog tables stand, for its outputs, cases and
    gate verdicts (those only grow, and a verdict changes by a new row).
    Whatever closing a round (or a gate) comes to read must be added here.
    """

    round: str
    gates: str


def _inputs(ledger: Ledger, family: Family, settings: RoundSettings) -> Inputs:
    heads = chain.heads(ledger, family.name)
    # A round of the rater's alone reads no judge: its inputs name none.
    judged = (
        {"judges": pooling.inputs(ledger, family.name, settings.with_judges)}
        if settings.with_judges
        else {}
    )
    # Only a tests family that allows mixed agents names the setting: the inputs of the
    # others stay what they were before it existed.
    mixed = family_changes.mixed_harness(ledger, family.name) if family.kind in TESTED else None
    agents = {"mixed_harness": mixed} if mixed == "allow" else {}
    gated = sha256_hex(
        json.dumps(
            {
                "gates": gates.GATES_VERSION,
                "family": dataclasses.asdict(family),
                "stored": catalog.marks(ledger),
                "events": heads["events"],
            },
            sort_keys=True,
        )
    )
    return Inputs(
        sha256_hex(
            json.dumps(
                {
                    "gated": gated,
                    "software": __version__,
                    "rules": [SETTLING_VERSION, FIT_VERSION],
                    "settings": settings.as_json(),
                    "chains": heads,
                    **judged,
                    **agents,
                },
                sort_keys=True,
            )
        ),
        gated,
    )


def _restate(ledger: Ledger, earlier: dict[str, Any], shared: str, inputs: Inputs) -> Round:
    """A round closed on the same ``inputs`` as ``earlier``: the same board, summary and
    comparisons (shared with it, not stored again), closed now."""
    before = Round.from_json(earlier)
    record = before.settings_record
    if record is not None and record.case_set is not None:  # the cases of the round restated
        restated = case_set.restated(record.case_set, before.round_id)
        record = dataclasses.replace(record, case_set=restated)
    closed = dataclasses.replace(
        before, round_id=new_id(), closed_at=now_iso(), settings_record=record
    )
    with ledger.atomic():
        stored_rounds.add_round(
            ledger, closed.to_json(), {}, [], inputs=inputs, comparisons_of=shared
        )
    return closed


def find_round(
    ledger: Ledger, round_id: str | None = None, family: str | None = None
) -> Round | None:
    """A round by id (or unambiguous prefix), else the newest of ``family`` (or of any)."""
    found = stored_rounds.find_round(ledger, round_id, family)
    return Round.from_json(found) if found is not None else None


def _graded_result(ledger: Ledger, family: Family, settings: RoundSettings) -> _Result:
    """A graded family's round: each run's scores and the receipts behind them."""
    from arena.graded import runs  # only graded rounds need the graders

    # Ranked by their intervals (runs.board): overlapping runs share a rank.
    rows = tuple(
        BoardRow.of({**row, "status": "graded"})
        for row in runs.board(ledger, family.name, seed=settings.seed)
    )
    return _Result(
        Board(None, rows), {}, RoundSummary(), None, {}, runs.receipts(ledger, family.name)
    )


class VotedBoards(NamedTuple):
    """A voted (or tested) family's boards as its comparisons stand, and what they rest on."""

    board: Board
    categories: dict[str, Board]
    fit: BoardFit
    comparisons: Comparisons
    weights: np.ndarray
    pooled: list[dict[str, Any]]
    systems: list[SystemId]  # the family's, in the order the fit numbers them


def voted_boards(
    ledger: Ledger, state: FamilyState, settings: RoundSettings, *, bootstrap: bool = True
) -> VotedBoards:
    """The fit of ``state`` under ``settings`` and each category's refit, as a round
    closing on it would store them; without ``bootstrap`` each board records its
    regime's check but no interval (arena.rounds.preview: a board while voting)."""
    family = state.family
    pooled = pooling.rows(ledger, family.name, settings.with_judges)
    comparisons = family_comparisons(
        ledger, state, [as_verdict(row) for row in pooled], settings.raters
    )
    weights = fitted_weights(comparisons, settings)
    outputs = state.in_force
    failing = state.failing
    systems = catalog.systems(ledger, family.name)
    ids = [s.system_id for s in systems]
    labels = {s.system_id: s.label for s in systems}
    votes = vote_columns(systems, comparisons, weights)
    by_system: dict[SystemId, list[Output]] = {s.system_id: [] for s in systems}
    for output in outputs:
        by_system[output.system_id].append(output)
    extra = {
        s.system_id: {
            **votes[s.system_id],
            **output_columns(family, by_system[s.system_id], failing),
            **(tested_columns(state, s, by_system[s.system_id]) if family.kind in TESTED else {}),
        }
        for s in systems
    }
    # Model judges' verdicts are predictions the rater's votes correct (scoring.predictors).
    predicting = predictors((row["judge"], row["kind"]) for row in pooled)
    # How each vote's pair was chosen (arena.pairs.unsure): the prediction-powered fit
    # weighs the votes drawn more often for a judge's doubt back to the rater's board.
    design = (
        design_weights(comparisons, draws.vote_draws(ledger, family.name)) if predicting else None
    )
    fit = fit_board(
        comparisons,
        weights,
        ids,
        reference=family.reference,
        settings=settings,
        predictors=predicting,
        design=design,
    )
    tests_only = family.kind == "tests"
    uncertain = uncertainty.for_family(
        comparisons, ids, settings, family.reference, family.kind, bootstrap=bootstrap
    )
    categories = {}
    category = comparisons["category"]
    for name in sorted(category.values[code] for code in np.unique(category.codes).tolist()):
        inside = np.where(category.isin(name), weights, 0.0)
        part = fit_board(
            comparisons,
            inside,
            ids,
            reference=family.reference,
            settings=settings,
            predictors=predicting,
            design=design,
        )
        # Beside the family-wide columns, the votes this category's board rests on.
        own = vote_columns(systems, comparisons, inside)
        found = uncertain(part, inside, name)
        categories[name] = _board(
            part, systems, extra, labels, tests_only=tests_only, own=own, ci=found
        )
    board = _board(
        fit, systems, extra, labels, tests_only=tests_only, ci=uncertain(fit, weights, None)
    )
    return VotedBoards(board, categories, fit, comparisons, weights, pooled, ids)


def _voted_result(ledger: Ledger, state: FamilyState, settings: RoundSettings) -> _Result:
    """A voted (or tested) family's round: the fit, category refits and the summary."""
    family = state.family
    boards = voted_boards(ledger, state, settings)
    comparisons, weights, fit = boards.comparisons, boards.weights, boards.fit
    ids = boards.systems
    diff_family = any(o.is_diff for o in state.in_force)
    return _Result(
        board=boards.board,
        categories=boards.categories,
        summary=summary(
            comparisons,
            weights,
            ids,
            reference=family.reference,
            settings=settings,
            diff_family=diff_family,
            # A round naming its raters gives their figures even should one be named.
            raters=bool(settings.raters),
        ),
        fit=FitRecord(fit.iterations, fit.converged, fit.mle_exists),
        comparisons={**comparisons.columns, "fitted_weight": weights},
        receipts=[],
        judges=pooling.recorded(ledger, family.name, comparisons, boards.pooled, fit.powered)
        if settings.with_judges
        else None,
    )
