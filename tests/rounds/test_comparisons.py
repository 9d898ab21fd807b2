"""Comparisons held column by column give what one record per vote gave, to the last digit.

The oracle below is the record-by-record way rounds were built before the
columns (a Comparison per vote, weights, fit arrays and summary from lists);
random families with settled pairs, retired cases, removed outputs,
overrules, repeats, retractions and skips go through both.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
from collections import defaultdict
from unittest.mock import ANY

import numpy as np
import pytest

import fitting
from arena import family_state
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, events, voting
from arena.ledger import round_store as stored_rounds
from arena.pairs.settling import RULE_GROUPS
from arena.records import Presentation, PresentationId, Vote, VoteId
from arena.rounds.closing import close_round
from arena.rounds.comparison_table import SETTLER, Y_OF_CHOICE, Comparison, Comparisons
from arena.rounds.comparisons import (
    family_comparisons,
    settled_output_pairs,
    vote_status,
)
from arena.rounds.model import RoundSettings
from arena.rounds.round_summary import summary
from arena.rounds.scoring import fit_board, fitted_weights
from tests.conftest import native_line

TEXTS = (
    "A clear answer that explains the idea in plain words.",
    "Another answer, with different words.\r\nAnd a second line.  ",
    "A fourth answer, shorter.",
    "The fifth answer says it\n\nin two paragraphs.",
    "Same text.\r\n",
    "Same text.  \n",
    "",
    "Short.",
    "A third, longer answer " * 3,
)
# Patches: the first two make the same change (they differ in their index line only).
DIFFS = (
    "diff --git a/x.py b/x.py\nindex 1..2\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    "diff --git a/x.py b/x.py\nindex 3..4\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+c\n",
)


def _family(ledger: Ledger, tmp_path, rng: random.Random) -> str:
    kind = rng.choice(["votes", "votes", "tests_then_votes", "tests"])
    systems = [f"s{i}" for i in range(rng.randint(2, 4))]
    lines = []
    for case in range(rng.randint(2, 5)):
        category = rng.choice("xy")
        for system in systems:
            for sample in range(rng.choice([1, 1, 2])):
                diff = kind != "votes" and rng.random() < 0.6
                extra = {
                    "sample": sample,
                    "category": category,
                    "is_diff": diff,
                    "finish_reason": rng.choice(["stop"] * 11 + ["length"]),
                    "test_result": rng.choice(["passed", "failed", None]),
                }
                if not lines:
                    extra["family"] = {"name": "f", "kind": kind, "min_chars": 3}
                lines.append(
                    native_line(f"c{case}", system, rng.choice(DIFFS if diff else TEXTS), **extra)
                )
    path = tmp_path / "f.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family="f", fmt="native")
    _votes(ledger, rng)
    _corrections(ledger, rng)
    return kind


def _votes(ledger: Ledger, rng: random.Random) -> None:
    outputs = catalog.outputs(ledger, "f")
    cast: list[Vote] = []
    for _ in range(rng.randint(1, 3)):
        session = voting.start_session(ledger, "f", seed=1, actor=rng.choice(["rater", "ann"]))
        for _ in range(rng.randint(0, 12)):
            if cast and rng.random() < 0.3:
                was = rng.choice(cast)
                left, right = was.right_output, was.left_output
                case = was.case_id
            else:
                first = rng.choice(outputs)
                case = first.case_id
                second = rng.choice(
                    [o for o in outputs if o.case_id == case and o.system_id != first.system_id]
                )
                left, right = first.output_id, second.output_id
                was = None
            presentation = Presentation(
                PresentationId(voting.new_id()),
                session.session_id,
                "f",
                case,
                left,
                right,
                "2026-11-30T10:00:00.000+00:00",
            )
            voting.record_presentation(ledger, presentation)
            vote = Vote(
                VoteId(voting.new_id()),
                presentation.presentation_id,
                session.session_id,
                "f",
                case,
                left,
                right,
                rng.choice(["left", "right", "tie", "both_bad", "skip"]),
                presentation.shown_at,
                "2026-11-30T10:00:05.000+00:00",
                5000,
                actor=rng.choice(["rater", "ann"]),
                repeat_of=was.vote_id if was is not None else None,
            )
            voting.record_vote(ledger, vote)
            cast.append(vote)
    for vote in rng.sample(cast, len(cast) // 5):
        voting.retract(ledger, vote.vote_id)


def _corrections(ledger: Ledger, rng: random.Random) -> None:
    state = family_state.load(ledger, "f")
    outputs = list(state.outputs.values())
    if rng.random() < 0.5:
        events.add_event(ledger, "f", "retire_case", case_id=rng.choice(outputs).case_id)
    if rng.random() < 0.5:
        events.add_event(ledger, "f", "remove_output", output_id=rng.choice(outputs).output_id)
    failing = [
        (o, r.gate) for o in outputs for r in state.gate_results[o.output_id] if not r.passed
    ]
    if failing and rng.random() < 0.7:
        output, gate = rng.choice(failing)
        events.add_event(ledger, "f", "overrule", output_id=output.output_id, gate=gate)


# The oracle: comparisons, weights, fit and summary one record at a time.


def _oracle_comparisons(ledger: Ledger, state: family_state.FamilyState) -> list[Comparison]:
    outputs = {**state.outputs, **{o.output_id: o for o in state.stand_ins}}

    def lengths(a, b):
        return {"len_a": len(a.text), "len_b": len(b.text), "is_diff": a.is_diff or b.is_diff}

    found = [
        Comparison(
            "settled",
            s.case_id,
            state.cases[s.case_id].category,
            s.output_a,
            s.output_b,
            s.system_a,
            s.system_b,
            s.y,
            s.weight,
            SETTLER,
            "fitted",
            rule=s.rule,
            overruled=s.overruled,
            **lengths(outputs[s.output_a], outputs[s.output_b]),
        )
        for s in state.settlement.settled
    ]
    pairs = settled_output_pairs(state)
    sessions = {s.session_id: s.number for s in voting.sessions(ledger, "f")}
    for vote in voting.votes_in_force(ledger, "f"):
        left, right = outputs[vote.left_output], outputs[vote.right_output]
        status, reason = vote_status(
            state, vote.case_id, left.output_id, right.output_id, vote.repeat_of, pairs
        )
        found.append(
            Comparison(
                "vote",
                vote.case_id,
                state.cases[vote.case_id].category,
                left.output_id,
                right.output_id,
                left.system_id,
                right.system_id,
                Y_OF_CHOICE[vote.choice],
                1.0,
                vote.actor,
                status,
                reason,
                vote.vote_id,
                vote.choice,
                vote.repeat_of,
                sessions.get(vote.session_id),
                **lengths(left, right),
            )
        )
    return found


def _oracle_weights(comparisons: list[Comparison], settings: RoundSettings) -> np.ndarray:
    weights = np.array([c.weight if c.status == "fitted" else 0.0 for c in comparisons])
    if settings.weighting == "ledger":
        totals: dict[str, float] = defaultdict(float)
        for c, w in zip(comparisons, weights, strict=True):
            totals[c.actor] += w
        scale = {a: min(1.0, settings.cap / t) if t > 0 else 1.0 for a, t in totals.items()}
        weights = np.array([w * scale[c.actor] for c, w in zip(comparisons, weights, strict=True)])
    return weights


def _oracle_points(comparisons, weights, systems, settings, reference):
    index = {s: i for i, s in enumerate(systems)}
    live = [i for i, w in enumerate(weights) if w > 0]
    result = fitting.fit_points(
        np.array([index[comparisons[i].system_a] for i in live], dtype=np.intp),
        np.array([index[comparisons[i].system_b] for i in live], dtype=np.intp),
        np.array([comparisons[i].y for i in live], dtype=float),
        np.array([weights[i] for i in live], dtype=float),
        n_systems=len(systems),
        penalty=settings.penalty,
        anchor=index.get(reference),
        base=settings.base,
        decisive=np.array(
            [
                comparisons[i].source == "vote" and comparisons[i].choice in ("left", "right")
                for i in live
            ],
            dtype=bool,
        ),
        threshold=settings.threshold,
    )
    return {
        s: (
            float(result.points[i]) if result.ranked[i] else None,
            str(result.status[i]),
            bool(result.preliminary[i]),
        )
        for s, i in index.items()
    }


def _number(value):
    return None if value is None or not math.isfinite(value) else float(value)


def _wilson(k: int, n: int) -> list[float]:
    """Wilson's score interval at 95%, by its formula."""
    z, p = 1.959963984540054, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [centre - half, centre + half]


def _tau_b(x, z) -> float:
    pairs = list(itertools.combinations(range(len(x)), 2))
    sx = [(x[i] > x[j]) - (x[i] < x[j]) for i, j in pairs]
    sz = [(z[i] > z[j]) - (z[i] < z[j]) for i, j in pairs]
    untied = sum(v != 0 for v in sx) * sum(v != 0 for v in sz)
    return sum(u * v for u, v in zip(sx, sz, strict=True)) / math.sqrt(untied)


def _random_votes_share(split) -> float:
    """How many orders of the even half's points, of all of them, reach the τ found:
    what random votes, which order each half at random, would give."""
    x, z = split.odd.points[split.both], split.even.points[split.both]
    found = _tau_b(x, z)
    orders = list(itertools.permutations(z))
    return sum(_tau_b(x, order) >= found - 1e-12 for order in orders) / len(orders)


def _oracle_summary(comparisons, weights, systems, settings, reference) -> dict:
    index = {s: i for i, s in enumerate(systems)}
    by_vote = {c.vote_id: c for c in comparisons if c.source == "vote"}
    pairs = [
        (by_vote[c.repeat_of], c)
        for c in comparisons
        # A repeat of another rater's vote is no rater agreement.
        if c.status == "repeat" and c.repeat_of in by_vote and by_vote[c.repeat_of].actor == c.actor
    ]
    agreement = (
        _number(
            fitting.rater_agreement(
                [str(o.choice) for o, _ in pairs], [str(r.choice) for _, r in pairs], swapped=True
            ).share
        )
        if pairs
        else None
    )
    human = [i for i, c in enumerate(comparisons) if c.source == "vote" and weights[i] > 0]
    votes = [comparisons[i] for i in human]
    tau = bias = error = within_tau = tau_p = within_p = None
    halves: dict = {"odd": {}, "even": {}}
    unavailable = {}
    agreement_ci = None
    if pairs:
        agreed = sum(
            {"left": "right", "right": "left"}.get(str(r.choice), r.choice) == o.choice
            for o, r in pairs
        )
        agreement_ci = _wilson(agreed, len(pairs))
    if len(pairs) < 10:  # the rule: agreement needs 10 repeats
        agreed = sum(
            {"left": "right", "right": "left"}.get(str(r.choice), r.choice) == o.choice
            for o, r in pairs
        )
        unavailable["rater_agreement"] = (
            f"{len(pairs)} repeat{'' if len(pairs) == 1 else 's'} ({agreed} agreed); it needs 10"
        )
        agreement = agreement_ci = None
    decisive = [c.choice for c in votes if c.choice in ("left", "right")]
    left = decisive.count("left")
    if not decisive:
        unavailable["left_share"] = "no decisive votes in the fit"
    if not votes:
        unavailable["split_half_tau"] = "no human votes in the fit"
        unavailable["length_bias_points_per_sd"] = "no human votes in the fit"
        unavailable["within_session_tau"] = "no human votes in the fit"
    if votes:
        a, b = [index[c.system_a] for c in votes], [index[c.system_b] for c in votes]
        split = fitting.split_half_tau(
            a,
            b,
            [c.y for c in votes],
            weights[human],
            session=[c.session or 1 for c in votes],
            n_systems=len(systems),
            penalty=settings.penalty,
            anchor=index.get(reference),
        )
        tau = _number(split.tau)
        for name, half in (("odd", split.odd), ("even", split.even)):
            halves[name] = {s: _number(half.points[i]) for s, i in index.items()}
        odd = sum((c.session or 1) % 2 == 1 for c in votes)
        if split.n_systems < 3 or min(odd, len(votes) - odd) < 20:
            unavailable["split_half_tau"] = (
                f"{odd} votes in odd and {len(votes) - odd} in even sessions, "
                f"{split.n_systems} systems ranked in both; it needs 20 votes "
                "in each half and 3 systems"
            )
            tau = None
        elif tau is not None:
            tau_p = _random_votes_share(split)
        # Within each session, the 1st, 3rd, 5th… vote against the 2nd, 4th…
        cast: dict = {}
        by_vote_order = []
        for c in votes:
            cast[c.session or 1] = cast.get(c.session or 1, 0) + 1
            by_vote_order.append(2 - cast[c.session or 1] % 2)
        within = fitting.split_half_tau(
            a,
            b,
            [c.y for c in votes],
            weights[human],
            session=by_vote_order,
            n_systems=len(systems),
            penalty=settings.penalty,
            anchor=index.get(reference),
        )
        first = by_vote_order.count(1)
        if within.n_systems < 3 or min(first, len(votes) - first) < 20:
            unavailable["within_session_tau"] = (
                f"{first} odd- and {len(votes) - first} even-numbered votes, "
                f"{within.n_systems} systems ranked in both; it needs 20 votes in each half "
                "and 3 systems"
            )
        else:
            within_tau = _number(within.tau)
            within_p = None if within_tau is None else _random_votes_share(within)
        length = fitting.length_bias(
            a,
            b,
            [c.y for c in votes],
            [c.len_a for c in votes],
            [c.len_b for c in votes],
            weights[human],
            n_systems=len(systems),
            penalty=settings.penalty,
        )
        if length.identified:
            bias, error = _number(length.points_per_sd), _number(length.standard_error)
        else:
            spread = sum(c.len_a != c.len_b for c in votes)
            unavailable["length_bias_points_per_sd"] = {
                "no_length_spread": "the outputs voted on never differ in length",
                "too_few_comparisons": f"{spread} votes on outputs of different lengths; "
                "it needs 50",
                "separable": "every vote went to the longer output, or every one to the "
                "shorter: the lean has no finite estimate",
                "not_converged": "the fit did not converge",
            }[length.reason]
    left_out: dict[str, int] = {}
    for c in comparisons:
        if c.status == "left_out" and c.reason:
            left_out[c.reason] = left_out.get(c.reason, 0) + 1
    by_rule = dict.fromkeys(("gate", "identical", "tests", "overruled"), 0)
    settled_weight = 0.0
    for c, w in zip(comparisons, weights, strict=True):
        if c.source == "settled" and w > 0:
            by_rule["overruled" if c.overruled else RULE_GROUPS[str(c.rule)]] += 1
            settled_weight += float(w)
    total = float(np.sum(weights))
    return {
        "rater_agreement": agreement,
        "repeats": len(pairs),
        "split_half_tau": tau,
        "split_half_points": halves,
        "within_session_tau": within_tau,
        "rater_agreement_ci95": agreement_ci,
        "split_half_tau_null_p": tau_p,
        "within_session_tau_null_p": within_p,
        "left_share": left / len(decisive) if decisive else None,
        "left_share_ci95": _wilson(left, len(decisive)) if decisive else None,
        "decisive_votes": len(decisive),
        "left_out": left_out,
        "bias": bias,
        "length_bias_standard_error": error,
        "unavailable": unavailable,
        "settled": {
            "by_rule": by_rule,
            "weight_share": settled_weight / total if total > 0 else None,
        },
    }


def _oracle_raters(comparisons, weights, systems, settings, reference) -> list | None:
    """Each rater's figures: the summary of their votes alone, where the fit holds the
    votes of two raters or more."""
    fitted = [
        c.actor for c, w in zip(comparisons, weights, strict=True) if c.source == "vote" and w > 0
    ]
    raters = list(dict.fromkeys(fitted))
    if len(raters) < 2:
        return None
    found = []
    for rater in raters:
        mine = [i for i, c in enumerate(comparisons) if c.source == "vote" and c.actor == rater]
        # Their halves are the parity of their own sessions: 1, 2, 3… in the family's order.
        numbers = sorted({comparisons[i].session or 1 for i in mine if weights[i] > 0})
        votes = [
            dataclasses.replace(
                comparisons[i],
                session=numbers.index(comparisons[i].session or 1) + 1 if weights[i] > 0 else None,
            )
            for i in mine
        ]
        own = _oracle_summary(votes, weights[mine], systems, settings, reference)
        found.append(
            {
                "rater": rater,
                "votes": fitted.count(rater),
                "weight": pytest.approx(float(sum(w for w in weights[mine] if w > 0)), abs=1e-9),
                "repeats": own["repeats"],
                "rater_agreement": own["rater_agreement"],
                "rater_agreement_ci95": own["rater_agreement_ci95"],
                "split_half_tau": own["split_half_tau"],
                "split_half_tau_ci95": ANY,
                "left_share": own["left_share"],
                "left_share_ci95": pytest.approx(own["left_share_ci95"], abs=1e-12)
                if own["left_share_ci95"] is not None
                else None,
                "decisive_votes": own["decisive_votes"],
                "length_bias_points_per_sd": own["bias"],
                "diff_length_bias_points_per_sd": None,
                "length_bias_standard_error": own["length_bias_standard_error"],
                "unavailable": own["unavailable"],
            }
        )
    return found


@pytest.mark.parametrize("seed", range(40))
def test_columns_give_what_one_record_per_comparison_gave(tmp_path, seed):
    rng = random.Random(seed)
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        kind = _family(ledger, tmp_path, rng)
        state = family_state.load(ledger, "f")
        table = family_comparisons(ledger, state)
        # The round settles without listing pending pairs; the oracle lists them too.
        assert state.settled == state.settlement.settled
        expected = _oracle_comparisons(ledger, state)
        assert list(table) == expected
        assert list(Comparisons.from_records(expected)) == expected
        systems = [s.system_id for s in catalog.systems(ledger, "f")]
        reference = systems[0] if seed % 2 else None
        for settings in (
            RoundSettings(penalty=rng.choice([0.0, 0.1, 1.0])),
            RoundSettings(weighting="ledger", cap=rng.choice([0.5, 2.0, 5.0])),
        ):
            weights = fitted_weights(table, settings)
            assert np.array_equal(weights, _oracle_weights(expected, settings))
            fit = fit_board(table, weights, systems, reference=reference, settings=settings)
            assert {
                s: (v.points, v.status, v.preliminary) for s, v in fit.scores.items()
            } == _oracle_points(expected, weights, systems, settings, reference)
            found = summary(
                table, weights, systems, reference=reference, settings=settings, diff_family=False
            ).to_json()
            found["bias"] = found.pop("length_bias_points_per_sd")
            del found["diff_length_bias_points_per_sd"]
            # The τ intervals resample: each is there exactly when its τ is (and the fit has
            # a penalty), inside [-1, 1]; tests/fitting checks how they cover.
            for name in ("split_half_tau", "within_session_tau"):
                ci = found.pop(f"{name}_ci95")
                assert (ci is not None) == (found[name] is not None and settings.penalty > 0)
                assert ci is None or -1 <= ci[0] <= ci[1] <= 1
            oracle = _oracle_summary(expected, weights, systems, settings, reference)
            assert found.pop("raters", None) == _oracle_raters(
                expected, weights, systems, settings, reference
            )
            for name in ("rater_agreement_ci95", "left_share_ci95"):
                assert found.pop(name) == pytest.approx(oracle.pop(name), abs=1e-12)
            for name in ("split_half_tau_null_p", "within_session_tau_null_p"):
                assert found.pop(name) == pytest.approx(oracle.pop(name), abs=1e-9)
            assert found == oracle
        closed = close_round(ledger, "f", RoundSettings(), allow_missing=True)
        stored = list(stored_rounds.items(ledger, closed.round_id, "comparison"))
        weights = _oracle_weights(expected, RoundSettings())
        reference = catalog.get_family(ledger, "f").reference
        for name in sorted({c.category for c in expected}):
            inside = np.array([c.category == name for c in expected])
            points = _oracle_points(
                expected, np.where(inside, weights, 0.0), systems, RoundSettings(), reference
            )
            if kind == "tests":  # no votes asked for: nothing is preliminary
                points = {s: (p, status, False) for s, (p, status, _) in points.items()}
            assert {
                r.system: (r.points, r.status, r.preliminary)
                for r in closed.categories[name].systems
            } == points
        assert set(closed.categories) == {c.category for c in expected}
        for row in closed.board.systems:
            mine = [
                c
                for c, w in zip(expected, weights, strict=True)
                if c.source == "vote" and w > 0 and row.system in (c.system_a, c.system_b)
            ]
            bad = sum(c.choice == "both_bad" for c in mine)
            assert (row.votes, row.both_bad_share) == (len(mine), bad / len(mine) if mine else None)
        assert stored == [
            {**dataclasses.asdict(c), "fitted_weight": float(w)}
            for c, w in zip(expected, weights, strict=True)
        ]
        # Stored as JSON, read back as JSON: the same text an export writes.
        assert [json.dumps(r, sort_keys=True) for r in stored] == [
            json.dumps({**dataclasses.asdict(c), "fitted_weight": float(w)}, sort_keys=True)
            for c, w in zip(expected, weights, strict=True)
        ]
    assert kind in ("votes", "tests", "tests_then_votes")
