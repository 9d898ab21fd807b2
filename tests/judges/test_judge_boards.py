"""A judge's length bias, board and τ in `arena judges show`: a judge that repeats the rater's
votes has the board and length bias `arena round close` gives the rater (another path to
the same numbers); τ is scipy's between the two boards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from arena.cli.main import main
from arena.judges import figures
from arena.judges.comparison import Family, compare, judges_report
from arena.ledger import Ledger, judge_store
from arena.ledger.judge_store import JudgeVerdict

SYSTEMS = ("a", "b", "c", "d")
SHOWN = "2026-12-01T10:00:00Z"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "judges.md"


def _lines(path: Path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _build(folder: Path) -> str:
    """Family f: 120 cases, four systems whose answers differ in length; the rater votes
    once per case; judge ``copy`` gives the same verdicts, ``backwards`` the opposite ones
    in both orders."""
    rng = np.random.default_rng(11)
    sentence = "The answer to this question takes a few plain words. "
    outputs, votes, copy, backwards = [], [], [], []
    for case in range(120):
        for s, system in enumerate(SYSTEMS):
            # Lengths differ between any two systems on a case; no two texts are the same.
            text = f"{system} on {case:03d}: " + sentence * (1 + s + 4 * int(rng.integers(0, 3)))
            outputs.append(
                {"case": {"id": f"q{case:03d}", "prompt": f"Question {case}?"},
                 "system": {"label": system, "model": system}, "output": text}
            )  # fmt: skip
        left, right = (SYSTEMS[i] for i in rng.choice(4, 2, replace=False))
        # The later system (and the longer answer) wins more often; a few ties.
        u, edge = rng.random(), 0.5 + 0.12 * (SYSTEMS.index(left) - SYSTEMS.index(right))
        choice = "tie" if u < 0.1 else "left" if u < 0.1 + 0.9 * edge else "right"
        votes.append({"case_id": f"q{case:03d}", "left_system": left, "right_system": right,
                      "choice": choice, "session": "s1", "actor": "rater",
                      "shown_at": SHOWN, "voted_at": SHOWN})  # fmt: skip
        verdict = {"case_id": f"q{case:03d}", "left_system": left, "right_system": right}
        copy.append({**verdict, "winner": choice})
        other = {"left": "right", "right": "left", "tie": "tie"}[choice]
        backwards.append({**verdict, "winner": other})
        swapped = {"case_id": f"q{case:03d}", "left_system": right, "right_system": left}
        backwards.append({**swapped, "winner": choice, "game": 2})
    ledger = str(folder / "ledger.sqlite")
    at = ["--ledger", ledger]
    assert (
        main([*at, "import", _lines(folder / "o.jsonl", outputs), "--family", "f", "--create"]) == 0
    )
    assert main([*at, "import-votes", _lines(folder / "v.jsonl", votes), "--family", "f"]) == 0
    for name, verdicts in (("copy", copy), ("backwards", backwards)):
        path = _lines(folder / f"{name}.jsonl", verdicts)
        assert (
            main(
                [*at, "judges", "import", path, "--family", "f", "--judge", name, "--kind", "model"]
            )
            == 0
        )
    return ledger


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("boards")
    ledger = _build(folder)
    with Ledger.open(ledger, readonly=True) as opened:
        report = judges_report(opened, "f")
    return ledger, report


def _points(board):
    return {row["label"]: row["points"] for row in board}


def test_a_judge_with_the_raters_votes_has_the_raters_round(built, capsys):
    ledger, report = built
    capsys.readouterr()
    assert main(["--ledger", ledger, "round", "close", "--family", "f", "--json"]) == 0
    closed = json.loads(capsys.readouterr().out)
    assert closed["summary"]["left_out"] == {}  # every vote is in the round's fit
    copy = report["judges"][0]
    assert copy["judge"] == "copy"
    assert copy["board"] == report["rater_board"]
    for row in closed["systems"]:
        mine = _points(copy["board"])[row["label"]]
        assert mine["value"] == pytest.approx(row["points"], abs=1e-6)
        assert mine["count"] == row["decisive_votes"]
        if row["ci95"] is not None:  # inside the round's calibrated region
            assert [mine["low"], mine["high"]] == pytest.approx(row["ci95"], abs=1e-6)
    length = copy["length_bias"]
    assert length["value"] == pytest.approx(
        closed["summary"]["length_bias_points_per_sd"], abs=1e-6
    )
    assert length["count"] == 120 and length["low"] < length["value"] < length["high"]
    assert copy["board_tau"]["value"] == 1.0 and copy["board_tau"]["count"] == 4


def test_tau_is_scipys_between_the_judges_board_and_the_raters(built):
    _, report = built
    backwards = report["judges"][1]
    rater, judge = _points(report["rater_board"]), _points(backwards["board"])
    expected = stats.kendalltau(
        [rater[s]["value"] for s in SYSTEMS], [judge[s]["value"] for s in SYSTEMS]
    ).statistic
    tau = backwards["board_tau"]
    assert tau["value"] == pytest.approx(expected, abs=1e-12) and expected < 0
    # About 50 decisive votes a system: too few for τ's interval (TAU_MIN_DECISIVE).
    assert tau["low"] is None and tau["high"] is None and tau["count"] == 4
    # Both orders: the length lean is the rater's turned around, on twice the comparisons.
    assert backwards["length_bias"]["count"] == 240
    assert backwards["length_bias"]["value"] < 0 < report["judges"][0]["length_bias"]["value"]


def test_the_show_text_and_the_docs_name_every_figure(built, capsys):
    ledger, report = built
    capsys.readouterr()
    assert main(["--ledger", ledger, "judges", "show", "--family", "f"]) == 0
    text = capsys.readouterr().out
    assert "length bias" in text and "τ with the rater's board" in text
    assert f"{figures.tau_shown(report['judges'][1]['board_tau'])}" in text
    assert "over 4 systems" in text and figures.anchor_text(report) in text
    docs = DOCS.read_text(encoding="utf-8")
    for key in [*report, *report["judges"][0], *report["rater_board"][0]]:
        assert f"`{key}`" in docs, key


def test_single_answer_verdicts_give_no_position_figures():
    """Verdicts stored with game <= 0 were shown no way round, even when the same pair
    reads both ways (two turns)."""
    rater = [JudgeVerdict("rater", f"q{k}", "a", "b", "left", 1) for k in range(3)]
    judge = [JudgeVerdict("s", f"q{k}", "a", "b", "left", -k) for k in range(3)]
    judge += [JudgeVerdict("s", f"q{k}", "b", "a", "right", -9 - k) for k in range(3)]
    family = Family(("a", "b"), {"a": "a", "b": "b"}, None, {})
    summary = judge_store.JudgeSummary("s", "model", len(judge), ())
    row = compare(rater, [(summary, judge)], family, "f")["judges"][0]
    assert row["position_consistency"] is None and row["first_position_preference"] is None
    assert row["agreement_with_ties"]["value"] == 1.0 and row["length_bias"]["count"] == 0


def _verdicts(who: str, plan: dict[tuple[str, str], int]) -> list[JudgeVerdict]:
    """``plan[(left, right)]`` verdicts by ``who``: the left wins two in three, else a tie."""
    return [
        JudgeVerdict(who, f"q{left}{right}{k}", left, right, "tie" if k % 3 == 2 else "left", 1)
        for (left, right), count in plan.items()
        for k in range(count)
    ]


def _anchored(board):
    """The systems a board gives exactly 1000 points, with no spread."""
    return [r["label"] for r in board if r["points"]["value"] == r["points"]["high"] == 1000.0]


def _report(rater_plan, judge_plan, reference=None):
    labels = {s: s for s in SYSTEMS}
    family = Family(SYSTEMS, labels, reference, {})
    judged = _verdicts("j", judge_plan)
    summary = judge_store.JudgeSummary("j", "model", len(judged), ())
    return compare(_verdicts("rater", rater_plan), [(summary, judged)], family, "f")


def test_every_board_is_on_one_anchor_though_a_judge_never_compared_the_raters():
    """The rater votes most on a; the judge never compared a. Both boards are fitted on the
    system with the most of the rater's votes among those both compare (c), not each on its
    own, and the report and `show`'s text say so."""
    rater = {("a", "b"): 9, ("a", "c"): 9, ("b", "c"): 3, ("c", "d"): 6}
    judge = {("b", "c"): 9, ("c", "d"): 9, ("b", "d"): 30}  # its most compared: d, then b
    report = _report(rater, judge)
    anchor = report["anchor"]
    assert (anchor["label"], anchor["chosen"]) == ("c", "most_compared_shared")
    assert anchor["passed_over"] == {"system": "a", "label": "a", "boards": ["j"]}
    assert anchor["elsewhere"] == []
    assert _anchored(report["rater_board"]) == _anchored(report["judges"][0]["board"]) == ["c"]
    text = figures.anchor_text(report)
    assert text == (
        "Every board is anchored on c (1000 points): of the systems every board compares, "
        "the one with the most of the rater's votes (a has no comparison on j's board)."
    )
    assert figures.boards(report)[0] == ["system", "rater", "j"]


def test_a_board_that_cannot_be_on_the_anchor_says_which_it_is_on():
    """No system is compared on both boards: the judge's board is on its own most compared
    system, its column names it, and the text says its points do not read across."""
    report = _report({("a", "b"): 6}, {("c", "d"): 4})
    anchor = report["anchor"]
    assert (anchor["label"], anchor["chosen"]) == ("a", "not_shared")
    assert anchor["elsewhere"] == [{"board": "j", "system": "c", "label": "c"}]
    assert _anchored(report["rater_board"]) == ["a"]
    assert _anchored(report["judges"][0]["board"]) == ["c"]
    assert figures.boards(report)[0] == ["system", "rater", "j (on c)"]
    assert figures.anchor_text(report, "you") == (
        "No system is compared on every board: a has no comparison on j's board. The boards "
        "are anchored on a (1000 points) where they compare it; j's board is on c, the "
        "system it compares most: its points do not read across."
    )


def test_the_reference_anchors_every_board_that_compares_it():
    report = _report({("a", "b"): 9, ("b", "c"): 3}, {("b", "c"): 3, ("a", "b"): 2}, "b")
    assert (report["anchor"]["label"], report["anchor"]["chosen"]) == ("b", "reference")
    assert _anchored(report["rater_board"]) == _anchored(report["judges"][0]["board"]) == ["b"]
    assert figures.anchor_text(report, "you").endswith("b (1000 points): the family's reference.")


def test_tau_reads_with_the_systems_it_is_over():
    figure = {"value": 1.0, "low": None, "high": None, "count": 2}
    assert figures.tau_shown(figure) == "1.000 over 2 systems: one pair, in the same order"
    assert figures.tau_shown({**figure, "value": -1.0}).endswith("in the opposite order")
    many = {"value": 0.905, "low": 0.874, "high": 0.968, "count": 20}
    assert figures.tau_shown(many) == "0.905 [0.874, 0.968] over 20 systems"
    none = {"value": None, "low": None, "high": None, "count": 1}
    assert figures.tau_shown(none) == "— (1 system ranked on both)"


def test_without_a_vote_the_boards_are_on_the_system_with_most_verdicts():
    family = Family(SYSTEMS, {s: s for s in SYSTEMS}, None, {})
    judged = [
        (judge_store.JudgeSummary(name, "model", len(v), ()), v)
        for name, v in (
            ("j", _verdicts("j", {("a", "b"): 3, ("b", "c"): 6})),
            ("k", _verdicts("k", {("c", "d"): 4, ("b", "d"): 2})),
        )
    ]
    report = compare([], judged, family, "f")
    assert report["rater_board"] == [] and report["anchor"]["by"] == "verdicts"
    assert (report["anchor"]["label"], report["anchor"]["chosen"]) == ("b", "most_compared")
    assert [_anchored(j["board"]) for j in report["judges"]] == [["b"], ["b"]]
    assert figures.anchor_text(report).endswith(
        "b (1000 points): the system with the most verdicts."
    )
