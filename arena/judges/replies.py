"""What the window reads of the judges run from Arena (``running.py``): their names in a
family, and a run judge's full replies on one item, from the ledger's file store.

Kept apart from ``running.py``, which loads the endpoint's client: the Judges page reads
replies without it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import LedgerError
from arena.ledger import Ledger, catalog, judge_runs
from arena.ledger.file_store import FileStore


@dataclass(frozen=True)
class ItemReply:
    """One order a run judge was asked an item in, and what it replied."""

    game: int  # 1: the item's first order, 2: swapped
    left: str  # the systems as the judge was shown them (ids)
    right: str
    verdict: str  # left, right, tie, or unparsed (the reply named no verdict)
    strength: int  # 2 for a graded template's >> mark, else 1
    text: str  # the full reply, as the endpoint sent it (untrusted: plain text only)

    @property
    def parsed(self) -> bool:
        return self.verdict != "unparsed"


def family_names(ledger: Ledger) -> list[str]:
    """Every family a judge may be run on, by name."""
    return sorted(f.name for f in catalog.families(ledger))


def run_judges(ledger: Ledger, family: str) -> list[str]:
    """The judges run in ``family`` (the ledger holds their descriptors: a run resumes)."""
    return [j.judge for j in judge_runs.run_judges(ledger, family)]


def is_run_judge(ledger: Ledger, family: str, judge: str) -> bool:
    return judge_runs.stored_judge(ledger, family, judge) is not None


def unparsed_counts(ledger: Ledger, family: str) -> dict[str, int]:
    """Each run judge's replies that named no verdict (0 for one whose all did)."""
    counts = judge_runs.unparsed_counts(ledger, family)
    return {name: counts.get(name, 0) for name in run_judges(ledger, family)}


def item_replies(
    ledger: Ledger, family: str, judge: str, case_id: str, systems: tuple[str, str]
) -> list[ItemReply]:
    """Each reply of run judge ``judge`` on the item (``case_id``, the two ``systems`` in
    either order), by game; empty for an imported judge."""
    store = FileStore.beside(ledger)
    found = []
    for r in judge_runs.replies(ledger, family, judge):
        if r.case_id != case_id or {r.left_system, r.right_system} != set(systems):
            continue
        try:
            text = store.get(r.reply_sha256).decode("utf-8", errors="replace")
        except (LedgerError, OSError) as exc:
            text = f"(the reply {r.reply_sha256[:12]} could not be read: {exc})"
        found.append(ItemReply(r.game, r.left_system, r.right_system, r.verdict, r.strength, text))
    return sorted(found, key=lambda r: r.game)
