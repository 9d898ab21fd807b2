"""`arena verify`'s check of a round's settings record (``arena.rounds.settings_record``).

The record is worked out again from the bundle alone: the point method and the coverage
rules from the round's settings, kind and anchor, the case set from the cases and the
rater's corrections at closing, the agents from the systems with outputs in force. A
record that differs was changed after closing, even in a bundle signed again.
"""

from __future__ import annotations

from typing import Any

from arena.bundle.report import lines
from arena.family_state import FamilyState
from arena.rating.one_agent import agents_of
from arena.records import System, SystemDescriptor
from arena.rounds import settings_record
from arena.rounds.case_set import case_set_hash
from arena.rounds.model import Board, Recorded

_WHERE = "manifest.json: settings"


def problems(
    files: dict[str, bytes], manifest: dict[str, Any], board: dict[str, Any], state: FamilyState
) -> list[str]:
    """What in the settings record of ``manifest`` the bundle does not bear out (nothing
    for a round closed before the record was kept)."""
    recorded = Recorded.from_json(manifest["settings"])
    record = recorded.settings_record
    if record is None:
        return []
    kind = manifest["family"]["kind"]
    settings = recorded.settings
    found = []
    if record.method != settings_record.method(kind, settings, Board.from_json(board).anchor):
        found.append(f"{_WHERE}.method: not the round's penalty, base and anchor (changed)")
    if record.coverage != settings_record.coverage(kind, settings):
        found.append(f"{_WHERE}.coverage: not the coverage rules of a {kind} round (changed)")
    if record.seeds.intervals != settings.seed:
        found.append(f"{_WHERE}.seeds: not the round's seed (changed)")
    cases = [state.cases[c] for c in state.cases_in_force]
    shown = record.case_set
    if shown is None or (shown.hash, shown.cases) != (case_set_hash(cases), len(cases)):
        found.append(
            f"{_WHERE}.case_set: not the {len(cases)} cases in force in cases.jsonl (changed)"
        )
    if record.agents is not None:
        answering = {o.system_id for o in state.in_force}
        systems = [
            System(row["system_id"], row["label"], SystemDescriptor(**row["descriptor"]))
            for row in lines(files["systems.jsonl"], "systems.jsonl")
            if row["system_id"] in answering
        ]
        if record.agents != agents_of(systems, allowed=record.agents.allowed):
            found.append(f"{_WHERE}.agents: not the agents of systems.jsonl (changed)")
    return found
