"""Trials a report imported with the outputs gives (SWE-bench): one per output and result."""

from __future__ import annotations

import dataclasses

from arena.clock import now_iso
from arena.ledger import Ledger, trial_store
from arena.pairs.settling import TESTED_KINDS
from arena.records import CaseId, Family, Output, SystemId, Trial, TrialResult


class ImportedTrials:
    """Adds an imported trial for an output unless the newest imported trial of that
    output already says the same (result and reason): importing the same files again
    adds nothing, and a sandbox run since is not outdone by the report it re-checked."""

    def __init__(self, ledger: Ledger, family: str) -> None:
        self.ledger = ledger
        self.family = family
        self.added = 0
        # (case, system, sample) -> (result, reason) of the newest imported trial; read
        # on first use, so imports without results never read the trials.
        self._newest: dict[tuple[CaseId, SystemId, int], tuple[str, str]] | None = None

    def add(self, tried: list[tuple[Output, TrialResult, str]]) -> None:
        """Store a trial for each (output, result, reason) that says something new; the
        outputs must be stored already."""
        if not tried:
            return
        newest = self._read()
        for output, result, reason in tried:
            key = (output.case_id, output.system_id, output.sample)
            if newest.get(key) == (result, reason):
                continue
            trial = Trial(
                trial_id="",
                family=self.family,
                case_id=output.case_id,
                system_id=output.system_id,
                sample=output.sample,
                output_id=output.output_id,
                result=result,
                source="imported",
                at=now_iso(),
                reason=reason,
            )
            trial = dataclasses.replace(
                trial, trial_id=trial_store.new_trial_id(dataclasses.asdict(trial))
            )
            trial_store.add_trial(self.ledger, trial)
            newest[key] = (result, reason)
            self.added += 1

    def _read(self) -> dict[tuple[CaseId, SystemId, int], tuple[str, str]]:
        if self._newest is None:
            self._newest = {
                (t.case_id, t.system_id, t.sample): (t.result, t.reason)
                for t in trial_store.trials(self.ledger, self.family)
                if t.source == "imported"
            }
        return self._newest


def untested_warning(family: Family | None, added: int, with_results: int) -> list[str]:
    """What an import says when a tested family got ``added`` outputs and not one of them
    came with a test result (``with_results``): how they count until their tests run."""
    if family is None or family.kind not in TESTED_KINDS or not added or with_results:
        return []
    return [
        f"warning: none of the {added} new outputs has a test result. Until `arena tests "
        f"run --family {family.name}` records a trial for each (after `arena tasks import`; "
        "docs/tests.md), every one counts as failed: their pairs settle as ties (both "
        "failed), none reaches the rater, and `arena round close` refuses the family "
        "unless --allow-missing"
    ]
