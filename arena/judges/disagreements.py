"""`arena judges disagreements`: the items where a judge's answer is not the rater's, most
confident first.

Items and answers are read as `judges_report` reads them (comparison.py): a pair of
systems on one case, in the order the rater first saw it, and one answer per item (the
same answer each time is that answer, differing answers a tie). A disagreement is a shared
item whose two answers differ, exactly the items the report's agreement with ties counts
against the judge.

Confidence, highest first:

1. *opposite*: both answers decisive and opposite (the rater chose one system, the judge
   the other) before one answer a tie and the other decisive;
2. *support*: one point when the judge answered the item more than once (both orders, or
   several games) always alike, one when the rater did (a repeat with sides swapped);
   two points before one, one before none;
3. then by case id and the pair's systems, so the same ledger lists them in the same order.

Each entry names the pair as the rater first saw it (left, right: the outputs of the
rater's first vote on it, which is what the window opens), and every answer is said on
those sides: ``left``, ``tie`` or ``right``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.errors import BadInput
from arena.judges.comparison import Item, coded_answers
from arena.ledger import Ledger, catalog, voting
from arena.records import OutputId, Vote, VoteId

if TYPE_CHECKING:
    from arena.rating.session import PairView

SAID = {-1: "left", 0: "tie", 1: "right"}
# A list of disagreements as the CLI and the window lay it out ("judge": the judge's name).
COLUMNS = ("#", "case", "left", "right", "rater", "judge", "in order | swapped")


@dataclass(frozen=True)
class Side:
    """One system of the pair, and its output the rater saw there."""

    system_id: str
    label: str
    output_id: str


@dataclass(frozen=True)
class Disagreement:
    case_id: str
    left: Side
    right: Side
    vote_id: str  # the rater's first vote in force on the pair
    rater: tuple[str, ...]  # each of the rater's answers, oldest first
    rater_answer: str
    judge_in_order: tuple[str, ...]  # the judge's answers with ``left`` shown on the left
    judge_swapped: tuple[str, ...]  # and with the sides swapped (said on this pair's sides)
    judge_answer: str
    opposite: bool
    judge_consistent: bool
    rater_consistent: bool


def _one_answer(answers: list[int]) -> int:
    """The item's answer, as the report reads several."""
    return answers[0] if len(set(answers)) == 1 else 0


def _alike(answers: list[int]) -> bool:
    return len(answers) > 1 and len(set(answers)) == 1


def _first_votes(
    ledger: Ledger, family: str, rater: str | None
) -> dict[tuple[str, str, str], Vote]:
    """The rater's (``rater``'s, where given and voting) first vote in force on each item,
    by (case, left system, right system)."""
    system_of = {o.output_id: o.system_id for o in catalog.outputs(ledger, family)}
    first: dict[tuple[str, str, str], Vote] = {}
    cast = [v for v in voting.votes_in_force(ledger, family) if v.actor != "settler"]
    if any(v.actor == rater for v in cast):
        cast = [v for v in cast if v.actor == rater]
    for vote in cast:
        key = (vote.case_id, system_of[vote.left_output], system_of[vote.right_output])
        first.setdefault(key, vote)
    return first


def disagreements(
    ledger: Ledger, family: str, judge: str, reference: str | None = None
) -> list[Disagreement]:
    """The items where ``judge`` and the rater (``reference``, where several people voted)
    answered differently, most confident first."""
    if catalog.get_family(ledger, family) is None:
        raise catalog.no_such_family(ledger, family)
    coded = coded_answers(ledger, family, reference)
    if judge == "rater" or judge not in coded:
        known = ", ".join(sorted(set(coded) - {"rater"})) or "none"
        raise BadInput(f"no judge {judge!r} in {family} (judges: {known})", field="--judge")
    rater: dict[Item, list[int]] = {}
    for item, answer, _ in coded["rater"]:
        rater.setdefault(item, []).append(answer)
    games: dict[Item, tuple[list[int], list[int]]] = {}
    for item, answer, shown_in_order in coded[judge]:
        games.setdefault(item, ([], []))[0 if shown_in_order else 1].append(answer)
    votes = _first_votes(ledger, family, reference)
    labels: dict[str, str] = {s.system_id: s.label for s in catalog.systems(ledger, family)}
    found = []
    for item in sorted(set(rater) & set(games)):
        in_order, swapped = games[item]
        said, heard = _one_answer(rater[item]), _one_answer(in_order + swapped)
        if said == heard:
            continue
        vote = votes[item]
        case, first, second = item
        found.append(
            Disagreement(
                case,
                Side(first, labels.get(first, first), vote.left_output),
                Side(second, labels.get(second, second), vote.right_output),
                vote.vote_id,
                tuple(SAID[a] for a in rater[item]),
                SAID[said],
                tuple(SAID[a] for a in in_order),
                tuple(SAID[a] for a in swapped),
                SAID[heard],
                opposite=said * heard == -1,
                judge_consistent=_alike(in_order + swapped),
                rater_consistent=_alike(rater[item]),
            )
        )
    # Stable: within one confidence, the items' order (case, then systems) stays.
    found.sort(key=lambda d: (not d.opposite, -(d.judge_consistent + d.rater_consistent)))
    return found


def pair_shown(ledger: Ledger, family: str, d: Disagreement) -> PairView | None:
    """``d``'s pair as the rater first saw it (its presentation, case and outputs), or
    None when any of them is no longer in ``ledger``."""
    from arena.rating.session import PairView  # the rating machinery: the window's alone

    vote = voting.get_vote(ledger, VoteId(d.vote_id))
    presentation = vote and voting.get_presentation(ledger, vote.presentation_id)
    case = catalog.get_case(ledger, family, d.case_id)
    left = catalog.get_output(ledger, OutputId(d.left.output_id))
    right = catalog.get_output(ledger, OutputId(d.right.output_id))
    if not (presentation and case and left and right):
        return None
    return PairView(presentation, case, left, right, identity_leak="")


def row(rank: int, d: Disagreement) -> list[str | int]:
    """``d`` in ``COLUMNS``: each answer on the rater's sides, the judge's games by order."""
    games = (", ".join(answers) or "—" for answers in (d.judge_in_order, d.judge_swapped))
    rater = ", ".join(d.rater)
    return [rank, d.case_id, d.left.label, d.right.label, rater, d.judge_answer, " | ".join(games)]
