"""A round's settings as one named record: the point method, the coverage rules, the seeds,
the case set and (tests families) the agents.

Rounds always recorded the choices they were closed with (``RoundSettings``: weighting and
cap, penalty, base, decisive-vote threshold, seed), the software version, the pair design,
the family's settings and the corrections in force. Each round now records beside them
(``Round.record``, shown under ``settings``):

- ``method``: the point method by name, its penalty, base and scale, the anchor and why;
- ``coverage``: the rules that decide what the board ranks, marks and counts;
- ``seeds``: the seed of the intervals and, on voted boards, each rating session's seed
  (the order of its pairs);
- ``case_set``: the cases in force, by hash, and how they differ from the last round's;
- ``agents``: in tests families, each harness and turn budget with its systems.

`arena verify` works method, coverage, case set and agents out again from a bundle and
reports any that differ (``arena.bundle.settings_check``).
"""

from __future__ import annotations

import math
from typing import Any

from arena.family_state import FamilyState
from arena.ledger import Ledger, voting
from arena.pairs.settling import TESTED_KINDS
from arena.rating import one_agent
from arena.records import VOTED_KINDS, CaseId
from arena.rounds import case_set
from arena.rounds.model import Round, RoundSettings
from arena.rounds.round_records import Anchor, PointMethod, Seeds, SettingsRecord

METHOD = "penalized_bradley_terry"
GRADED_METHOD = "macro_average_of_category_credit"
# Points per unit of the fitted strength: 400 points apart are 10 : 1 odds.
SCALE = 400 / math.log(10)
# The points axis starts at most this far below the top score; below it is "far behind".
AXIS_SPAN = 600.0


def method(kind: str | None, settings: RoundSettings, anchor: Anchor | None) -> PointMethod:
    """How the round's scores were made; ``anchor``: the board's."""
    if kind == "graded":
        return PointMethod(GRADED_METHOD, interval="stratified_bootstrap_smoothed_t")
    return PointMethod(METHOD, settings.penalty, settings.base, SCALE, anchor)


def coverage(kind: str | None, settings: RoundSettings) -> dict[str, Any]:
    """The rules that decide which systems a board ranks and marks, and what it counts."""
    if kind == "graded":
        return {"unattempted_task": "credit_0", "shared_rank": "overlapping_intervals"}
    rules: dict[str, Any] = {
        # Below the threshold of decisive (left or right) human votes: preliminary.
        "preliminary_below_decisive_votes": None if kind == "tests" else settings.threshold,
        "unranked": "not_connected_to_anchor",
        "far_behind_below_top": AXIS_SPAN,
        "settled_weight_per_case_and_system_pair": 1.0,
        "repeats": "diagnostics_only",
    }
    if kind in TESTED_KINDS:
        rules["unanswered_task"] = "failed_trial"
        rules["untested_output"] = "failed_trial"
    return rules


def seeds(ledger: Ledger, family: str, kind: str | None, settings: RoundSettings) -> Seeds:
    """The seed of the intervals and, where the rater votes, of each session's pairs."""
    if kind not in VOTED_KINDS:
        return Seeds(settings.seed)
    return Seeds(settings.seed, {str(s.number): s.seed for s in voting.sessions(ledger, family)})


def build(
    ledger: Ledger,
    state: FamilyState,
    settings: RoundSettings,
    anchor: Anchor | None,
    previous: Round | None,
) -> tuple[SettingsRecord, list[CaseId]]:
    """The record of a voted or tested round of ``state``'s family, and its case ids;
    ``previous``: the family's last round before it."""
    kind = state.family.kind
    cases, ids = case_set.case_set((state.cases[c] for c in state.cases_in_force), previous)
    agents = None
    if kind in TESTED_KINDS:
        answering = {o.system_id for o in state.in_force}
        agents = one_agent.family_agents(ledger, state.family.name, answering)
    record = SettingsRecord(
        method(kind, settings, anchor),
        coverage(kind, settings),
        seeds(ledger, state.family.name, kind, settings),
        cases,
        agents,
    )
    return record, ids


def graded(settings: RoundSettings) -> SettingsRecord:
    """The record of a graded round: its cases are its suites' tasks, named by the receipts."""
    return SettingsRecord(
        method("graded", settings, None), coverage("graded", settings), Seeds(settings.seed)
    )
