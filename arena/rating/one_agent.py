"""One agent, one turn budget per tests family: which systems differ, and how.

A tests family compares its systems through the same agent within the same turn budget:
systems run under different harnesses, or allowed different numbers of turns, rank the
agents along with the models. Such a family is *mixed*. `arena status`, `round close`
and the board name the systems that differ and how, and every round of a tests family
records its agents (``Agents.to_json``), unless the family allows the mix (`arena family
set F --mixed-harness allow`, a recorded change): the round then still records them, and
nothing is reported.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from arena.ledger import Ledger, catalog, family_changes
from arena.records import MIXED_HARNESS_CHOICES, System, SystemId

# A descriptor that names no harness, or no turn budget: it cannot be told the same as any.
NOT_RECORDED = ""
FIELDS = {"harness": "harness", "turn_budget": "turn budget"}


@dataclass(frozen=True)
class Agents:
    """The harnesses and the turn budgets of a family's systems, each with the labels of
    the systems run under it, and whether the family allows them to differ."""

    harness: dict[str, list[str]]
    turn_budget: dict[str, list[str]]
    allowed: bool = False

    @property
    def differ(self) -> tuple[str, ...]:
        """The fields on which the systems differ: ``harness``, ``turn_budget``."""
        return tuple(name for name in FIELDS if len(getattr(self, name)) > 1)

    @property
    def reported(self) -> bool:
        """Whether status, round close and the board say the family is mixed."""
        return bool(self.differ) and not self.allowed

    def describe(self) -> str:
        """The fields that differ, each value with its systems: ``harness: swe-agent (a,
        b), openhands (c)``; the one agent when none differ: ``swe-agent, 30 turns``."""
        if not self.differ:
            (harness,), (budget,) = self.harness or {"": []}, self.turn_budget or {"": []}
            return (harness or "harness not recorded") + (f", {budget} turns" if budget else "")
        return "; ".join(
            f"{FIELDS[name]}: "
            + ", ".join(
                f"{value or 'not recorded'} ({', '.join(labels)})"
                # By their systems: stored records keep keys sorted, not in first-seen order.
                for value, labels in sorted(getattr(self, name).items(), key=lambda vl: vl[1])
            )
            for name in self.differ
        )

    def warning(self, family: str) -> str:
        """What status, round close and the board say of a mixed ``family``."""
        return (
            f"{family}: its systems do not share one agent and turn budget "
            f"({self.describe()}): its points rank the agents along with the models; "
            f"`arena family set {family} --mixed-harness allow` accepts this"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "turn_budget": self.turn_budget,
            "mixed_harness": "allow" if self.allowed else MIXED_HARNESS_CHOICES[0],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Agents:
        return cls(data["harness"], data["turn_budget"], data["mixed_harness"] == "allow")


def agents_of(systems: Iterable[System], *, allowed: bool) -> Agents:
    """The agents of ``systems``, each value with its systems' labels in order."""
    harness: dict[str, list[str]] = {}
    budget: dict[str, list[str]] = {}
    for system in sorted(systems, key=lambda s: s.label):
        described = system.descriptor
        harness.setdefault(described.harness or NOT_RECORDED, []).append(system.label)
        turns = described.turn_budget
        budget.setdefault(NOT_RECORDED if turns is None else str(turns), []).append(system.label)
    return Agents(harness, budget, allowed)


def family_agents(ledger: Ledger, family: str, answering: Collection[SystemId]) -> Agents:
    """The agents of the systems of ``family`` among ``answering`` (those with outputs in
    force), and whether the family allows them to differ."""
    allowed = family_changes.mixed_harness(ledger, family) == "allow"
    systems = [s for s in catalog.systems(ledger, family) if s.system_id in answering]
    return agents_of(systems, allowed=allowed)
