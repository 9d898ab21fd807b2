"""What `arena status` reports for each family.

The rows come from those kept beside the ledger (``status_cache``) for the families
nothing was written to since; the others are counted (``status_count``, imported only
then: an unchanged ledger answers without loading the counting). Each row counts every
rater's votes (``votes``, ``votes_by_rater``: the board is one) and, beside them, those
of the rater it is read for (``rater``, ``rater_votes``).
"""

from __future__ import annotations

from typing import Any

from arena.ledger import Ledger, catalog
from arena.rating import raters, status_cache


def family_status(
    ledger: Ledger,
    name: str | None = None,
    *,
    archived: bool = False,
    rater: str = raters.DEFAULT_RATER,
) -> list[dict[str, Any]]:
    """One row per family (or just ``name``), as `status --json` prints it (docs/cli.md),
    grouped by aspect; archived families only with ``archived`` (or by ``name``); the
    votes of ``rater`` counted apart."""
    rater = raters.checked(rater)
    listed = [
        (f, listing)
        for f, listing in catalog.family_listings(ledger)
        if (f.name == name if name is not None else archived or not listing.archived)
    ]
    if name is not None and not listed:
        raise catalog.no_such_family(ledger, name)
    listed.sort(key=lambda fl: (fl[0].aspect == "", fl[0].aspect, fl[0].name))
    by_name = {f.name: f for f, _ in listed}

    def count(names: list[str]) -> list[dict[str, Any]]:
        from arena.rating import status_count

        return status_count.counted_rows(ledger, [by_name[n] for n in names])

    rows = status_cache.rows(ledger, list(by_name), count)
    for row, (family, listing) in zip(rows, listed, strict=True):
        row.update(aspect=family.aspect, label=listing.label, archived=listing.archived)
        row.update(rater=rater, rater_votes=row["votes_by_rater"].get(rater, 0))
    return rows
