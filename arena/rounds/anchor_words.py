"""What a board says about its anchor and its unranked systems, in the same words on the
command line and in the window."""

from __future__ import annotations

from arena.rounds.round_records import AnchorFallback

_STANDING_IN = {
    "requested_has_no_comparisons": "it has no comparisons",
    "requested_unrankable": "without a penalty it has no finite points against any other system",
}
_TIE_BROKEN_BY = {"label": "the first by label", "file_order": "the first to appear in the file"}
_UNRANKED = {
    "no_comparisons": "no votes",
    "unranked": "not connected to the anchor by any chain of comparisons",
    "unbounded_above": "never loses to the ranked systems: no finite points without a penalty",
    "unbounded_below": "never beats the ranked systems: no finite points without a penalty",
    "unbounded": "no finite points without a penalty, and no order to the ranked systems",
}


def anchor_why(
    reason: str, fallback: AnchorFallback | None, *, reference: str = "the family's reference"
) -> str:
    """Why the anchor is the anchor: ``reason`` and ``fallback`` as a round records them
    (``scoring.fallback``); ``reference``: what asked for an anchor."""
    if reason == "requested":
        return reference
    if reason == "no_comparisons":
        return "nothing was compared"
    if reason == "none_requested":
        lead = "no reference is set"
    elif reason in _STANDING_IN:
        lead = f"standing in for {reference}, as {_STANDING_IN[reason]}"
    else:
        lead = reason
    return f"{lead}; {_chosen(fallback)}" if fallback else lead


def _chosen(fallback: AnchorFallback) -> str:
    weight = f"{fallback.weight:g}"
    tied = fallback.tied
    if not tied:
        return f"the most-voted system that can be ranked (comparison weight {weight})"
    by = str(fallback.tie_broken_by)
    first = _TIE_BROKEN_BY.get(by, by)
    # When every candidate has the same weight none of them is "the most-voted".
    if len(tied) == fallback.among:
        every = "both" if len(tied) == 2 else f"all {len(tied)}"
        return (
            f"{every} systems that can be ranked have the same comparison weight "
            f"({weight}), so {first} was taken"
        )
    return (
        f"{', '.join(tied)} tie for the most comparison weight ({weight} each) among the "
        f"{fallback.among} systems that can be ranked, so {first} was taken"
    )


def why_unranked(status: str) -> str:
    """Why a system of a board has no points (its ``status``)."""
    return _UNRANKED.get(status, status)


def unranked_entry(label: str, status: str) -> str:
    """One system of a board's unranked list, as the command line and images print it."""
    return f"{label} ({why_unranked(status)})"
