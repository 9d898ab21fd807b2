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
